/**
 * The one error type of the Deep Search client. Every failure (HTTP status, network, timeout,
 * garbage in a body) ends up as a `DeepSearchError` whose `message` tells a person what happened
 * and what to do, and which never carries the access token. The words go through `@vscode/l10n`
 * (configured by whichever bundle this module is copied into: see translations.ts).
 */
import * as l10n from '@vscode/l10n';
import { errorMessage } from '../contract/errorMessage';
import { TOKEN_SCOPES } from '../contract/tokenScopes';

/** The client's users read it from here; the engine from the contract. */
export { errorMessage };

export type DeepSearchErrorKind =
  | 'unauthorized'
  | 'forbidden'
  | 'notFound'
  | 'badRequest'
  | 'conflict'
  | 'rateLimited'
  /** HTTP 507: the instance had no room to store the request, so nothing of it was saved. */
  | 'insufficientStorage'
  | 'server'
  | 'network'
  | 'timeout'
  | 'canceled'
  | 'invalidResponse'
  | 'configuration'
  /** The instance lacks the feature (e.g. no tool server before 6.8). */
  | 'unsupported';

export interface DeepSearchErrorDetails {
  status?: number;
  /** What the server said, already cleaned up and redacted. */
  detail?: string;
  /** How long the server asked us to wait (from `Retry-After`). */
  retryAfterMs?: number;
  /** Low-level error code such as `ECONNREFUSED` or `CERT_HAS_EXPIRED`. */
  code?: string;
  cause?: Error;
}

/**
 * Marks every DeepSearchError. The network code is a bundle of its own (loaded on first use), so the
 * class exists twice at run time and `instanceof` would miss errors made by the other copy.
 */
const BRAND = Symbol.for('deepSearch.error');

export class DeepSearchError extends Error {
  override readonly name = 'DeepSearchError';
  readonly [BRAND] = true;
  readonly kind: DeepSearchErrorKind;
  readonly status?: number;
  readonly detail?: string;
  readonly retryAfterMs?: number;
  readonly code?: string;

  constructor(kind: DeepSearchErrorKind, message: string, details: DeepSearchErrorDetails = {}) {
    super(message, details.cause ? { cause: details.cause } : undefined);
    this.kind = kind;
    this.status = details.status;
    this.detail = details.detail;
    this.retryAfterMs = details.retryAfterMs;
    this.code = details.code;
  }
}

export function isDeepSearchError(error: unknown): error is DeepSearchError {
  return error instanceof Error && (error as { [BRAND]?: unknown })[BRAND] === true;
}

/** TLS failures do not heal by retrying: the user must fix a CA or proxy setting. */
const CERTIFICATE_CODE = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS|ERR_SSL|DEPTH_ZERO/;

/** Whether trying the same request again later may succeed. */
export function isRetryable(error: unknown): boolean {
  if (!isDeepSearchError(error)) {
    return false;
  }
  switch (error.kind) {
    case 'timeout':
    case 'rateLimited':
      return true;
    case 'network':
      // Nor does an origin the instance's CORS policy refuses (the web build: fetchTransport.ts).
      return !(error.code && (CERTIFICATE_CODE.test(error.code) || error.code === 'CORS_BLOCKED'));
    case 'server':
      // 501 and 505 say the server will never do it, not that it failed this time.
      return error.status !== 501 && error.status !== 505;
    default:
      return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Redaction

const REDACTED = '[redacted]';
/** Sourcegraph access tokens look like `sgp_…`; catch echoes even of a token we were not given. */
const TOKEN_LIKE = /\b(sgp|sgph|sgs)_[A-Za-z0-9_]{8,}/g;
const AUTH_HEADER_LIKE = /\b(token|bearer)\s+[A-Za-z0-9._~+/=-]{16,}/gi;

/** Removes every secret (and anything shaped like an access token) from a text. */
export function redact(text: string, secrets: readonly string[] = []): string {
  let result = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) {
      result = result.split(secret).join(REDACTED);
      const encoded = encodeURIComponent(secret);
      if (encoded !== secret) {
        result = result.split(encoded).join(REDACTED);
      }
    }
  }
  return result.replace(TOKEN_LIKE, REDACTED).replace(AUTH_HEADER_LIKE, (_match, scheme: string) => `${scheme} ${REDACTED}`);
}

// ---------------------------------------------------------------------------------------------
// What the server said

const MAX_DETAIL_LENGTH = 300;

/** Turns an error body (JSON, HTML or text) into one short line a person can read, or undefined. */
export function describeErrorBody(body: string, contentType = '', secrets: readonly string[] = []): string | undefined {
  const trimmed = body.trim();
  if (!trimmed) {
    return undefined;
  }
  const detail =
    /json/i.test(contentType) || /^[{[]/.test(trimmed)
      ? (detailFromJson(trimmed) ?? detailFromText(trimmed))
      : /html/i.test(contentType) || /^<(!doctype|html|head|body)\b/i.test(trimmed)
        ? detailFromHtml(trimmed)
        : detailFromText(trimmed);
  return detail ? cap(redact(detail, secrets)) : undefined;
}

function detailFromJson(text: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return messageOf(value);
}

function messageOf(value: unknown): string | undefined {
  if (typeof value === 'string') {
    return value.trim() || undefined;
  }
  if (Array.isArray(value)) {
    const messages = value.map(messageOf).filter((message): message is string => !!message);
    return messages.length ? messages.join('; ') : undefined;
  }
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const key of ['error', 'message', 'errors', 'detail', 'error_description', 'title']) {
      const message = messageOf(record[key]);
      if (message) {
        return message;
      }
    }
  }
  return undefined;
}

function detailFromHtml(html: string): string | undefined {
  const title = collapse(decodeEntities(html.match(/<title[^>]*>([\s\S]*?)<\/title>/i)?.[1] ?? ''));
  const bodyHtml = html.match(/<body[^>]*>([\s\S]*)<\/body>/i)?.[1] ?? html.replace(/<head[\s\S]*?<\/head>/i, '');
  const text = collapse(decodeEntities(bodyHtml.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]*>/g, ' ')));
  if (title && text && !text.startsWith(title)) {
    return `${title}: ${text}`;
  }
  return text || title || undefined;
}

function detailFromText(text: string): string | undefined {
  return collapse(text) || undefined;
}

function decodeEntities(text: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, name: string) => {
    if (name.startsWith('#')) {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : entity;
    }
    return named[name.toLowerCase()] ?? entity;
  });
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function cap(text: string): string {
  return text.length > MAX_DETAIL_LENGTH ? `${text.slice(0, MAX_DETAIL_LENGTH - 1).trimEnd()}…` : text;
}

// ---------------------------------------------------------------------------------------------
// Building errors

/** `Retry-After` as milliseconds from now: delta seconds or an HTTP date; undefined if absent or bad. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (!value) {
    return undefined;
  }
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) {
    return Math.round(Number(trimmed) * 1000);
  }
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

export function formatWait(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  if (seconds < 120) {
    return l10n.t('{0} s', seconds);
  }
  const minutes = Math.ceil(seconds / 60);
  return minutes < 120 ? l10n.t('{0} min', minutes) : l10n.t('{0} h', Math.ceil(minutes / 60));
}

/** A message, then what the server said when it said something: one message, so a translation may reorder them. */
function withServerWords(message: string, detail: string | undefined): string {
  return detail ? l10n.t('{0} The server said: {1}', message, detail) : message;
}

export interface HttpErrorInput {
  status: number;
  /** `https://host[:port]` of the instance: never a path or query (they may hold read tokens). */
  origin: string;
  body?: string;
  contentType?: string;
  retryAfterMs?: number;
  /** The `Location` of a redirect, if any. */
  location?: string;
  secrets?: readonly string[];
}

/** The error for a non-2xx HTTP answer. */
export function errorFromStatus(input: HttpErrorInput): DeepSearchError {
  const { status, origin, retryAfterMs } = input;
  const detail = input.body ? describeErrorBody(input.body, input.contentType, input.secrets) : undefined;
  const said = (message: string) => withServerWords(message, detail);
  const details = { status, detail, retryAfterMs };
  if (status >= 300 && status < 400) {
    const target = input.location ? safeOrigin(input.location, origin) : undefined;
    const message =
      target && target !== origin
        ? l10n.t('The instance redirected the request (HTTP {0}) to {1} — use that address as the instance URL.', status, target)
        : l10n.t('The instance redirected the request (HTTP {0}) — check the instance URL.', status);
    return new DeepSearchError('invalidResponse', message, details);
  }
  // A 507 says for sure that nothing was saved, whatever code a Connect body adds.
  const connect = input.body && status !== 507 ? connectErrorCode(input.body) : undefined;
  if (connect) return connectError(connect, status, detail, details);
  switch (status) {
    case 401:
      return new DeepSearchError('unauthorized', said(l10n.t('The instance rejected the access token — sign in again.')), details);
    case 403:
      return new DeepSearchError(
        'forbidden',
        said(
          l10n.t(
            'The instance refused this request (HTTP 403) — your account or token lacks a permission or scope it needs (conversations need {0} and {1}, or {2}).',
            TOKEN_SCOPES.read,
            TOKEN_SCOPES.write,
            TOKEN_SCOPES.all,
          ),
        ),
        details,
      );
    case 404:
    case 410:
      return new DeepSearchError(
        'notFound',
        said(
          l10n.t(
            'Not found on the instance (HTTP {0}) — the conversation may have been deleted, or the instance does not offer Deep Search (it needs version 6.7 or later).',
            status,
          ),
        ),
        details,
      );
    case 408:
      return new DeepSearchError('timeout', said(l10n.t('The instance timed out the request (HTTP 408) — try again.')), details);
    case 409:
      return new DeepSearchError('conflict', said(l10n.t("The instance could not do this in the conversation's current state (HTTP 409).")), details);
    case 429: {
      const message =
        retryAfterMs !== undefined
          ? l10n.t('The instance is rate limiting requests (HTTP 429) — try again in {0}.', formatWait(retryAfterMs))
          : l10n.t('The instance is rate limiting requests (HTTP 429) — wait a moment and try again.');
      return new DeepSearchError('rateLimited', said(message), details);
    }
  }
  if (status === 507) {
    // Nothing was saved, for sure: not an internal error of unknown outcome, and not healed by retrying at once.
    const message =
      detail && !isBare507(detail)
        ? detail
        : l10n.t('The instance has no storage space left: nothing was saved (HTTP 507). Free space on it (or ask its administrator to), then try again.');
    return new DeepSearchError('insufficientStorage', message, details);
  }
  if (status >= 500) {
    return new DeepSearchError(
      'server',
      said(l10n.t('The instance had an internal error (HTTP {0}) — try again in a moment; if it persists, contact your administrator.', status)),
      details,
    );
  }
  return new DeepSearchError('badRequest', said(l10n.t('The instance rejected the request (HTTP {0}).', status)), details);
}

/**
 * What each Connect error code (7.x conversation API) means to a user, and its kind. The words are
 * functions: read when an error is made, after the bundle's translations are configured.
 */
const CONNECT_ERRORS: Readonly<Record<string, { kind: DeepSearchErrorKind; lead: () => string }>> = {
  unauthenticated: { kind: 'unauthorized', lead: () => l10n.t('The instance rejected the access token — sign in again.') },
  permission_denied: {
    kind: 'forbidden',
    lead: () =>
      l10n.t(
        'The instance refused this request — your account or token lacks a permission or scope it needs (conversations need {0} and {1}, or {2}).',
        TOKEN_SCOPES.read,
        TOKEN_SCOPES.write,
        TOKEN_SCOPES.all,
      ),
  },
  not_found: { kind: 'notFound', lead: () => l10n.t('Not found on the instance — the conversation may have been deleted.') },
  invalid_argument: { kind: 'badRequest', lead: () => l10n.t('The instance rejected the request.') },
  out_of_range: { kind: 'badRequest', lead: () => l10n.t('The instance rejected the request.') },
  failed_precondition: { kind: 'conflict', lead: () => l10n.t("The instance could not do this in the conversation's current state.") },
  aborted: { kind: 'conflict', lead: () => l10n.t('The instance could not do this now — try again.') },
  already_exists: { kind: 'conflict', lead: () => l10n.t('The instance already has this.') },
  resource_exhausted: {
    kind: 'rateLimited',
    lead: () => l10n.t('The instance is out of something this request needs (a quota, a rate limit or storage); nothing was done.'),
  },
  unimplemented: { kind: 'unsupported', lead: () => l10n.t('The instance does not offer this.') },
  deadline_exceeded: { kind: 'timeout', lead: () => l10n.t('The instance took too long — try again.') },
  canceled: { kind: 'canceled', lead: () => l10n.t('The request was cancelled.') },
  unavailable: { kind: 'server', lead: () => l10n.t('The instance is unavailable right now — try again in a moment.') },
};

/** Connect's codes for a failure on the server's side. */
const SERVER_SIDE_CONNECT_CODES = new Set(['internal', 'unknown', 'data_loss']);

/** The `code` of a Connect error body (`{"code": "not_found", "message": "…"}`), if the body is one. */
function connectErrorCode(body: string): string | undefined {
  if (body.length > 64 * 1024 || !body.trimStart().startsWith('{')) return undefined;
  try {
    const value = JSON.parse(body) as unknown;
    const code = typeof value === 'object' && value !== null ? (value as Record<string, unknown>).code : undefined;
    return typeof code === 'string' && (code in CONNECT_ERRORS || SERVER_SIDE_CONNECT_CODES.has(code)) ? code : undefined;
  } catch {
    return undefined;
  }
}

function connectError(code: string, status: number, detail: string | undefined, details: DeepSearchErrorDetails): DeepSearchError {
  const known = CONNECT_ERRORS[code];
  if (known) return new DeepSearchError(known.kind, withServerWords(known.lead(), detail), details);
  return new DeepSearchError(
    'server',
    withServerWords(
      l10n.t('The instance had an internal error (HTTP {0}, {1}) — try again in a moment; if it persists, contact your administrator.', status, code),
      detail,
    ),
    details,
  );
}

/** Whether a 507 body says no more than its status line ("507 Insufficient Storage", maybe naming the proxy). */
function isBare507(detail: string): boolean {
  const rest = detail
    .replace(/\bHTTP\b|\b507\b|\binsufficient storage\b/gi, ' ')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
  return rest.split(' ').filter(Boolean).length <= 1;
}

/** Reports only the origin of a redirect target, resolved against the instance. */
function safeOrigin(location: string, base: string): string | undefined {
  try {
    return new URL(location, base).origin;
  } catch {
    return undefined;
  }
}

/** The error for a request that never got an HTTP answer (refused, reset, DNS, TLS, proxy…). */
export function networkError(cause: unknown, origin: string, secrets: readonly string[] = []): DeepSearchError {
  const code = errorCode(cause);
  const sanitized = sanitizeCause(cause, secrets);
  if (code && CERTIFICATE_CODE.test(code)) {
    return new DeepSearchError(
      'network',
      l10n.t(
        "The TLS certificate of {0} could not be verified ({1}) — add your organisation's CA certificate in the settings, or check the proxy settings.",
        origin,
        code,
      ),
      { code, cause: sanitized },
    );
  }
  const neverConnected = (code !== undefined && NEVER_CONNECTED_CODE.test(code)) || PROXY_REFUSED.test(sanitized.message);
  if (!neverConnected) {
    // The connection was made and then broke: the instance may well have the request.
    const message = code
      ? l10n.t(
          'The connection to {0} broke before its answer arrived ({1}) — the instance may have received the request. Check your network or proxy settings.',
          origin,
          code,
        )
      : l10n.t(
          'The connection to {0} broke before its answer arrived — the instance may have received the request. Check your network or proxy settings.',
          origin,
        );
    return new DeepSearchError('network', message, { code, cause: sanitized });
  }
  const message = code
    ? l10n.t('Could not reach {0} — check the instance URL, your network or proxy settings. ({1})', origin, code)
    : l10n.t('Could not reach {0} — check the instance URL, your network or proxy settings.', origin);
  return new DeepSearchError('network', message, { code, cause: sanitized });
}

/** Failures before any byte of the request could reach the instance (no connection was made). */
const PROXY_REFUSED = /Proxy response \(\d+\)/;
const NEVER_CONNECTED_CODE =
  /^(?:ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EAI_NONAME|EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|EADDRNOTAVAIL|UND_ERR_CONNECT_TIMEOUT|ERR_INVALID_URL)$/;

export function timeoutError(origin: string, timeoutMs: number): DeepSearchError {
  return new DeepSearchError(
    'timeout',
    l10n.t('{0} did not answer within {1} — try again, or check your network or proxy settings.', origin, formatWait(timeoutMs)),
  );
}

export function canceledError(): DeepSearchError {
  return new DeepSearchError('canceled', l10n.t('The request was canceled.'));
}

/** `problem`: what was wrong with the response, already in the user's words (an `l10n.t` message). */
export function invalidResponseError(problem: string, detail?: string): DeepSearchError {
  return new DeepSearchError(
    'invalidResponse',
    l10n.t(
      'The instance sent a response this extension does not understand ({0}) — check that the instance URL points at a Sourcegraph instance with Deep Search (6.7 or later).',
      problem,
    ),
    { detail },
  );
}

/** A response whose body should have been JSON and does not parse. */
export function notJsonError(status: number, contentType: string | undefined): DeepSearchError {
  return invalidResponseError(
    contentType === undefined
      ? l10n.t('HTTP {0} with a body that is not JSON (no content type)', status)
      : l10n.t('HTTP {0} with a body that is not JSON ({1})', status, contentType),
  );
}

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  // The useful code (ECONNRESET, CERT_…) often sits one or two causes deep inside undici's wrapper.
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code && !/^UND_ERR(_SOCKET)?$/.test(code)) {
      return code;
    }
    current = (current as { cause?: unknown }).cause;
  }
  const top = error && typeof error === 'object' ? (error as { code?: unknown }).code : undefined;
  return typeof top === 'string' ? top : undefined;
}

/** A copy of a low-level error with secrets stripped from its message and no nested cause. */
function sanitizeCause(cause: unknown, secrets: readonly string[]): Error {
  const message = errorMessage(cause);
  const copy = new Error(redact(message, secrets));
  copy.name = cause instanceof Error ? cause.name : 'Error';
  const code = errorCode(cause);
  if (code) {
    (copy as Error & { code?: string }).code = code;
  }
  copy.stack = undefined;
  return copy;
}
