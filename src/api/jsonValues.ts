/**
 * Small readers of untrusted JSON from a server: each says what it expected, and none throws on a
 * value of the wrong type except `record`.
 */
import * as l10n from '@vscode/l10n';
import { invalidResponseError } from './errors';

export type Json = Record<string, unknown>;

export function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object, or an "invalid response" error naming what was expected (`what`, in the user's words) and what came. */
export function record(value: unknown, what: string): Json {
  if (!isRecord(value)) {
    throw invalidResponseError(l10n.t('expected {0}, got {1}', what, describe(value)));
  }
  return value;
}

function describe(value: unknown): string {
  // `null` and the type names are JavaScript's own words.
  return value === null ? 'null' : Array.isArray(value) ? l10n.t('a list') : typeof value;
}

/** A non-empty string, else undefined. */
export function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The array, or an empty one for anything else. */
export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
