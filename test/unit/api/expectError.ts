import assert from 'node:assert/strict';
import { DeepSearchError, type DeepSearchErrorKind } from '../../../src/api/errors';

/** Awaits a promise that must reject with a `DeepSearchError` of `kind`, and returns that error. */
export async function expectError(promise: Promise<unknown>, kind: DeepSearchErrorKind): Promise<DeepSearchError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof DeepSearchError, `expected a DeepSearchError, got ${String(error)}`);
    assert.equal(error.kind, kind, `expected kind ${kind}, got ${error.kind}: ${error.message}`);
    return error;
  }
  assert.fail(`expected a ${kind} error, but the call succeeded`);
}

/** Every text an error exposes: message, detail, stack, and its cause chain. */
export function everythingIn(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    if (current instanceof Error) {
      parts.push(current.message, current.stack ?? '', JSON.stringify(current), String((current as { detail?: string }).detail ?? ''));
      current = current.cause;
    } else {
      parts.push(typeof current === 'string' ? current : JSON.stringify(current));
      current = undefined;
    }
  }
  return parts.join('\n');
}
