/**
 * HTTP for the Deep Search client: one undici dispatcher built from proxy and certificate settings,
 * and a request function with timeouts, cancellation and careful retries (GET only: a repeated
 * POST could ask a question twice and cost the user credits).
 */
import * as l10n from '@vscode/l10n';
import { rootCertificates } from 'node:tls';
import { Agent, EnvHttpProxyAgent, request, type Dispatcher } from 'undici';
import { canceledError, DeepSearchError, errorFromStatus, isDeepSearchError, isRetryable, networkError, parseRetryAfter, timeoutError } from './errors';
import { sendAuthorized, tokenOf, type Credential } from './credential';
import { sleep } from './sleep';

export interface DispatcherOptions {
  /** e.g. VS Code's `http.proxy`; `host:port` means `http://host:port`. Empty = connect directly. */
  proxyUrl?: string;
  /** Hosts (`example.com`, `.corp`, `host:8080`) reached without the proxy. */
  noProxy?: string[];
  /** Loopback (the local engine) never goes through the proxy unless this is false. Default true. */
  bypassProxyForLoopback?: boolean;
  /** VS Code's `http.proxyStrictSSL`. Default true. */
  strictSSL?: boolean;
  /** PEM contents of extra CA certificates, trusted in addition to the public roots. */
  caCertificates?: string[];
}

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/** The one dispatcher all HTTP of the extension goes through, so proxies and private CAs work. */
export function createDispatcher(options: DispatcherOptions = {}): Dispatcher {
  const extraCas = (options.caCertificates ?? []).filter((pem) => pem.trim() !== '');
  const tls = {
    rejectUnauthorized: options.strictSSL ?? true,
    // Node replaces its roots when `ca` is set: keep the public ones next to the private ones.
    ...(extraCas.length ? { ca: [...rootCertificates, ...extraCas] } : {}),
  };
  const proxyUrl = options.proxyUrl?.trim();
  if (!proxyUrl) {
    return new Agent({ connect: tls });
  }
  const uri = /^[a-z][a-z0-9+.-]*:\/\//i.test(proxyUrl) ? proxyUrl : `http://${proxyUrl}`;
  const noProxy = [...(options.bypassProxyForLoopback === false ? [] : LOOPBACK_HOSTS), ...(options.noProxy ?? [])];
  return new EnvHttpProxyAgent({
    httpProxy: uri,
    httpsProxy: uri,
    // A non-empty value keeps undici from reading NO_PROXY from the environment.
    noProxy: noProxy.length ? noProxy.join(',') : ',',
    connect: tls,
    requestTls: tls,
    proxyTls: tls,
  });
}

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
  dispatcher?: Dispatcher;
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
  private readonly dispatcher?: Dispatcher;
  private readonly timeoutMs: number;
  private readonly retry: RetryPolicy;
  private readonly timers: RetryTimers;
  private readonly secrets: string[];
  private readonly maxBodyBytes: number;
  private readonly credential: Credential | undefined;

  constructor(options: HttpTransportOptions = {}) {
    this.dispatcher = options.dispatcher;
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
      const response = await request(req.url, {
        method: req.method,
        headers: req.headers,
        body: req.body,
        signal,
        dispatcher: this.dispatcher,
      });
      const body = await this.readBody(response.body);
      const headers = flattenHeaders(response.headers);
      if ((response.statusCode >= 200 && response.statusCode < 300) || req.acceptStatuses?.includes(response.statusCode)) {
        return { status: response.statusCode, headers, body };
      }
      throw errorFromStatus({
        status: response.statusCode,
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

  private async readBody(body: AsyncIterable<Buffer | string> & { destroy?(): void }): Promise<string> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buffer.length;
      if (size > this.maxBodyBytes) {
        body.destroy?.();
        throw new DeepSearchError('invalidResponse', l10n.t('The instance sent more than {0} bytes in one response.', this.maxBodyBytes));
      }
      chunks.push(buffer);
    }
    return Buffer.concat(chunks).toString('utf8');
  }
}

function isUndiciTimeout(error: unknown): boolean {
  const code = error && typeof error === 'object' ? (error as { code?: unknown }).code : undefined;
  return code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT';
}

/** Response headers by lower-case name, a repeated one's values joined. */
export function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) {
      flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
    }
  }
  return flat;
}
