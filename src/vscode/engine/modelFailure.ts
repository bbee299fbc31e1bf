/**
 * Why a turn on one of VS Code's models failed, in words that follow "<model> could not finish this
 * answer:" in the answer's note: VS Code's reasons (no consent, blocked, gone), a provider's usage
 * limit, a reply past the bounds, or the provider's own message. A provider's message is cut short
 * and scrubbed of anything that looks like a credential: providers' errors may echo request headers.
 * No `vscode` import: the host hands over what a `LanguageModelError` carries.
 */
import * as l10n from '@vscode/l10n';

/** What went wrong, for the engine (it may tell the user more than the words do). */
export type ModelFailureKind = 'no-permissions' | 'blocked' | 'not-found' | 'quota' | 'flood' | 'failed';

/** A provider's message is kept to this many characters. */
const DETAIL_CHARS = 300;
/** Of a provider's message, only this much is looked at (it may be a whole response body). */
const SCANNED_CHARS = 16 * 1024;

/** A model's turn that failed: what happened, and the words for the user. */
export class ModelTurnFailure extends Error {
  constructor(
    readonly kind: ModelFailureKind,
    message: string,
  ) {
    super(message);
    this.name = 'ModelTurnFailure';
  }
}

/** What a provider's error carries: a `LanguageModelError`'s code (`NoPermissions`, `Blocked`, `NotFound`, `Unknown`), its message, its cause. */
export interface ProviderError {
  code?: string;
  message: string;
  cause?: unknown;
}

/** The failure for an error a model's request or its stream ended with. */
export function modelFailure(error: ProviderError): ModelTurnFailure {
  const detail = providerDetail(messagesOf(error));
  switch (error.code) {
    case 'NoPermissions':
      return new ModelTurnFailure(
        'no-permissions',
        l10n.t('Deep Search may not use this model: allow it when VS Code asks (or in the Language Models settings), or choose another model'),
      );
    case 'NotFound':
      return new ModelTurnFailure('not-found', l10n.t('this model is no longer available in VS Code: choose another model'));
  }
  if (isUsageLimit(messagesOf(error))) {
    return new ModelTurnFailure('quota', l10n.t('this model has reached its usage limit ({0}): wait, or choose another model', detail));
  }
  if (error.code === 'Blocked') {
    return new ModelTurnFailure('blocked', l10n.t('the model’s provider blocked the request ({0}): choose another model', detail));
  }
  return new ModelTurnFailure('failed', l10n.t('the model’s provider failed ({0})', detail));
}

/** A reply that ran past the host's bounds: the host stopped reading it and cancelled the request. */
export function floodFailure(bound: { chars: number } | { toolCalls: number }): ModelTurnFailure {
  return new ModelTurnFailure(
    'flood',
    'chars' in bound
      ? l10n.t('the model’s reply ran past {0} KB, so Deep Search stopped it', Math.round(bound.chars / 1024))
      : l10n.t('the model asked for more than {0} tool calls at once, so Deep Search stopped it', bound.toolCalls),
  );
}

/** Whether a provider's words say it has run out of its quota or is rate-limiting (HTTP 429). */
export function isUsageLimit(text: string): boolean {
  return /quota|rate[ _-]?limit|too many requests|usage limit|\b429\b/i.test(text);
}

/**
 * A provider's message as shown to the user: whitespace collapsed, credentials scrubbed, at most
 * 300 characters; "no reason given" when it says nothing.
 */
export function providerDetail(message: string): string {
  const text = scrubCredentials(message.slice(0, SCANNED_CHARS).replace(/\s+/g, ' ').trim())
    .replace(/[.\s]+$/, '')
    .trim();
  if (text === '') return l10n.t('no reason given');
  return text.length <= DETAIL_CHARS ? text : `${text.slice(0, DETAIL_CHARS - 1).trimEnd()}…`;
}

const REDACTED = '[redacted]';

/** Anything in a message that looks like a credential: header values, key parameters, known token shapes. */
export function scrubCredentials(text: string): string {
  return (
    text
      // Authorization: Bearer x / Proxy-Authorization: Basic x / "authorization":"x"
      .replace(/((?:proxy-)?authorization["']?\s*[:=]\s*["']?)(?:(?:bearer|basic|token|digest)\s+)?[^\s"',;]+/gi, `$1${REDACTED}`)
      .replace(/\b(bearer|basic)\s+[\w.~+/=-]{6,}/gi, `$1 ${REDACTED}`)
      // api_key=x, x-api-key: x, "access_token": "x", ?key=x, client_secret=x, password=x
      .replace(/(\b[\w-]*(?:api[-_]?key|\bkey|token|secret|password|passwd|credential|cookie)["']?\s*[:=]\s*["']?)[^\s"',;&]+/gi, `$1${REDACTED}`)
      // Keys and tokens of well-known shapes, wherever they stand.
      .replace(
        /\b(?:sk-[\w-]{16,}|gh[pousr]_\w{20,}|github_pat_\w{20,}|xox[abprs]-[\w-]{10,}|AKIA[0-9A-Z]{16}|AIza[\w-]{30,}|eyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]{8,})/g,
        REDACTED,
      )
  );
}

/** The error's message and its cause's (a `LanguageModelError` of code `Unknown` holds the provider's error there). */
function messagesOf(error: ProviderError): string {
  const cause = error.cause instanceof Error ? error.cause.message : typeof error.cause === 'string' ? error.cause : '';
  return cause && !error.message.includes(cause) ? `${error.message} ${cause}` : error.message;
}
