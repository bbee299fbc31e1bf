/**
 * HTTP for the Deep Search client: requests through the given transport (undici on Node, fetch on
 * the web: transport.ts) with timeouts, a cap on the bytes read, cancellation and careful retries
 * (GET only: a repeated POST could ask a question twice and cost the user credits).
 */
import * as l10n from '@vscode/l10n';
import { canceledError, DeepSearchError, errorFromStatus, isDeepSearchError, isRetryable, networkError, parseRetryAfter, timeoutError } from './errors';
import { sendAuthorized, tokenOf, type Credential } from './credential';
import { sleep } from './sleep';
import { utf8Text, type Transport } from './transport';
import { createFetchTransport } from './fetchTransport';

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

export interface HttpRequest {
  method: HttpMethod;
  url: URL;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** A read sent as POST (Connect's unary calls): retried like a GET. Never set it on a write. */
  idempotent?: boolean;
  /** Statuses besides 2xx answered as responses, not errors (an OAuth endpoint's errors are answers to read). */
  acceptStatuses?: readonly number[];
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RetryPolicy {
  /** Attempts in all, the first included (GET only). Default 3. */
  maxAttempts: number;
  /** Delay before the first retry; doubles each time. Default 500 ms. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A longer `Retry-After` than this is not waited for: the error goes to the caller. Default 10 s. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 5000, maxRetryAfterMs: 10_000 };

/** Time as the retry loop sees it; tests inject a fast one. */
export interface RetryTimers {
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  now(): number;
  /** In [0, 1): the jitter source. */
  random(): number;
}

export const realTimers: RetryTimers = {
  sleep,
  now: () => Date.now(),
  random: () => Math.random(),
};

export interface HttpTransportOptions {
  /** What carries the requests (transport.ts); the platform's `fetch` when absent. */
  transport?: Transport;
  /** Per attempt, headers and body included. Default 30 s (below common proxy cut-offs). */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  timers?: Partial<RetryTimers>;
  /** Strings that must never appear in an error (the access token). */
  secrets?: string[];
  /**
   * Authorizes every request that carries no Authorization header of its own; its token never
   * appears in an error. A 401 renews it once (see `send`).
   */
  credential?: Credential;
  /** Largest body read, to protect the extension host from a runaway server. Default 32 MiB. */
  maxBodyBytes?: number;
}

/** Sends requests, turns every failure into a `DeepSearchError`, and retries GETs that may heal. */
export class HttpTransport {
  private readonly wire: Transport;
  private readonly timeoutMs: number;
  private readonly retry: RetryPolicy;
  private readonly timers: RetryTimers;
  private readonly secrets: string[];
  private readonly maxBodyBytes: number;
  private readonly credential: Credential | undefined;

  constructor(options: HttpTransportOptions = {}) {
    this.wire = options.transport ?? createFetchTransport();
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.timers = { ...realTimers, ...options.timers };
    this.secrets = options.secrets ?? [];
    this.maxBodyBytes = options.maxBodyBytes ?? 32 * 1024 * 1024;
    this.credential = options.credential;
  }

  /**
   * A 2xx response, or a `DeepSearchError` (after retries for GET). With a credential, a 401 renews
   * it and sends the request once more, whatever its method: the instance refused the request before
   * acting on it, so this repeats nothing (a question is not asked twice).
   */
  async send(req: HttpRequest): Promise<HttpResponse> {
    const credential = this.credential;
    if (!credential || Object.keys(req.headers).some((name) => name.toLowerCase() === 'authorization')) return this.sendWithRetries(req, this.secrets);
    // Every token sent so far stays out of the errors, the refused one too.
    const sent: string[] = [];
    return sendAuthorized(credential, (authorization) => {
      sent.push(tokenOf(authorization));
      return this.sendWithRetries({ ...req, headers: { ...req.headers, authorization } }, [...this.secrets, ...sent]);
    });
  }

  private async sendWithRetries(req: HttpRequest, secrets: string[]): Promise<HttpResponse> {
    const attempts = req.method === 'GET' || req.idempotent === true ? Math.max(1, this.retry.maxAttempts) : 1;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt(req, secrets);
      } catch (error) {
        const delay = attempt < attempts ? this.retryDelay(error, attempt) : undefined;
        if (delay === undefined) {
          throw error;
        }
        await this.timers.sleep(delay, req.signal);
      }
    }
  }

  /** Milliseconds to wait before the next attempt, or undefined to give up now. */
  private retryDelay(error: unknown, attempt: number): number | undefined {
    if (!isRetryable(error)) {
      return undefined;
    }
    const retryAfter = isDeepSearchError(error) ? error.retryAfterMs : undefined;
    if (retryAfter !== undefined) {
      return retryAfter <= this.retry.maxRetryAfterMs ? retryAfter : undefined;
    }
    const exponential = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
    // Equal jitter: half fixed, half random, so many clients do not retry in lockstep.
    return Math.round(exponential / 2 + (exponential / 2) * this.timers.random());
  }

  private async attempt(req: HttpRequest, secrets: string[]): Promise<HttpResponse> {
    const origin = req.url.origin;
    if (req.signal?.aborted) {
      throw canceledError();
    }
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), this.timeoutMs);
    const signal = req.signal ? AbortSignal.any([req.signal, timeout.signal]) : timeout.signal;
    try {
      const response = await this.wire.send({ method: req.method, url: req.url, headers: req.headers, body: req.body, signal });
      const body = await this.readBody(response.body, () => response.discard());
      const headers = response.headers;
      if ((response.status >= 200 && response.status < 300) || req.acceptStatuses?.includes(response.status)) {
        return { status: response.status, headers, body };
      }
      throw errorFromStatus({
        status: response.status,
        origin,
        body,
        contentType: headers['content-type'],
        retryAfterMs: parseRetryAfter(headers['retry-after'], this.timers.now()),
        location: headers.location,
        secrets,
      });
    } catch (error) {
      if (isDeepSearchError(error)) {
        throw error;
      }
      if (req.signal?.aborted) {
        throw canceledError();
      }
      if (timeout.signal.aborted || isUndiciTimeout(error)) {
        throw timeoutError(origin, this.timeoutMs);
      }
      throw networkError(error, origin, secrets);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Counts bytes as they arrive: past the cap, reading stops there, whatever the server sends. */
  private async readBody(body: AsyncIterable<Uint8Array>, discard: () => void): Promise<string> {
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of body) {
      size += chunk.byteLength;
      if (size > this.maxBodyBytes) {
        discard();
        throw new DeepSearchError('invalidResponse', l10n.t('The instance sent more than {0} bytes in one response.', this.maxBodyBytes));
      }
      chunks.push(chunk);
    }
    return utf8Text(chunks);
  }
}

function isUndiciTimeout(error: unknown): boolean {
  const code = error && typeof error === 'object' ? (error as { code?: unknown }).code : undefined;
  return code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT';
}
