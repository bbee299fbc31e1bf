/**
 * The web side of the client's transport (transport.ts): the browser's `fetch`, for VS Code for the
 * Web, whose extension host is a web worker without Node. Redirects come back as answers
 * (`redirect: 'manual'`), never followed, so a token cannot be carried to another origin; no
 * cookie is sent. Bodies are read as they arrive, so the client's size limits count bytes as they
 * come. A request the browser blocks gets no status, only a TypeError: it is told apart (a second,
 * opaque request to the same origin that the browser lets through says the instance is up and its
 * CORS policy refused this page's origin) and named, never left as "Failed to fetch".
 */
import * as l10n from '@vscode/l10n';
import { DeepSearchError } from './errors';
import type { Transport, TransportRequest, TransportResponse } from './transport';

export interface FetchTransportOptions {
  /** The page's origin, as the browser sends it in `Origin` (in a worker: its `location`). Absent on Node, which has no CORS. */
  pageOrigin?: string;
  /** `fetch` itself (the global one when absent). */
  fetch?: typeof fetch;
  /** How long the check that tells a blocked origin from a server that is down may take. Default 5 s. */
  probeTimeoutMs?: number;
}

export function createFetchTransport(options: FetchTransportOptions = {}): Transport {
  const send = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const pageOrigin = options.pageOrigin ?? workerOrigin();
  const probeTimeoutMs = options.probeTimeoutMs ?? 5000;
  const controllers = new Set<AbortController>();
  let closed = false;

  return {
    async send(sent: TransportRequest): Promise<TransportResponse> {
      if (closed) throw new DeepSearchError('canceled', l10n.t('The connection to the instance was replaced.'));
      const own = new AbortController();
      controllers.add(own);
      const signal = AbortSignal.any([sent.signal, own.signal]);
      let response: Response;
      try {
        response = await send(sent.url, {
          method: sent.method,
          headers: sent.headers,
          body: sent.body,
          signal,
          redirect: 'manual',
          credentials: 'omit',
          cache: 'no-store',
        });
      } catch (error) {
        controllers.delete(own);
        if (signal.aborted || !(error instanceof TypeError) || pageOrigin === undefined) throw error;
        throw await blockedOrUnreachable(send, sent.url, pageOrigin, probeTimeoutMs);
      }
      if (response.type === 'opaqueredirect') {
        controllers.delete(own);
        throw new DeepSearchError(
          'invalidResponse',
          l10n.t('{0} redirected the request; the browser does not say where to, and it was not followed — check the instance URL.', sent.url.origin),
        );
      }
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => (headers[name.toLowerCase()] = value));
      const reader = response.body?.getReader();
      const release = () => {
        controllers.delete(own);
        void reader?.cancel().catch(() => undefined);
      };
      return { status: response.status, headers, body: bytesOf(reader, () => controllers.delete(own)), discard: release };
    },
    async close() {
      closed = true;
    },
    async destroy() {
      closed = true;
      for (const controller of controllers) controller.abort();
      controllers.clear();
    },
  };
}

/** A body's bytes as they arrive; leaving early cancels the rest. */
async function* bytesOf(reader: ReadableStreamDefaultReader<Uint8Array> | undefined, done: () => void): AsyncGenerator<Uint8Array> {
  if (!reader) return done();
  let finished = false;
  try {
    for (;;) {
      const { value, done: ended } = await reader.read();
      if (ended) {
        finished = true;
        return;
      }
      yield value;
    }
  } finally {
    if (!finished) void reader.cancel().catch(() => undefined);
    done();
  }
}

/**
 * After a fetch that got no answer at all: an opaque request (`no-cors`, which CORS does not stop)
 * to the same origin tells whether the instance can be reached from this page. If it can, the
 * instance refused this page's origin; if it cannot, it is down or out of reach, which may hide a
 * refused origin too: both are said.
 */
async function blockedOrUnreachable(send: typeof fetch, url: URL, pageOrigin: string, timeoutMs: number): Promise<DeepSearchError> {
  const page = hostOf(pageOrigin);
  let reachable = false;
  try {
    await send(new URL('/', url), {
      method: 'GET',
      mode: 'no-cors',
      credentials: 'omit',
      redirect: 'manual',
      cache: 'no-store',
      signal: AbortSignal.timeout(timeoutMs),
    });
    reachable = true;
  } catch {
    reachable = false;
  }
  if (reachable) {
    // vscode.dev and github.dev run extensions on a subdomain of vscode-cdn.net that changes: one origin would not last.
    const message = VSCODE_CDN.test(page)
      ? l10n.t(
          '{0} does not accept requests from {1}, where VS Code for the Web runs extensions: a site admin adds the origin {2} to `corsOrigin` in the site configuration (the subdomain changes: the instance must accept https://*.vscode-cdn.net).',
          url.host,
          page,
          pageOrigin,
        )
      : l10n.t(
          '{0} does not accept requests from {1}: a site admin adds the origin {2} to `corsOrigin` in the site configuration.',
          url.host,
          page,
          pageOrigin,
        );
    return new DeepSearchError('network', message, { code: 'CORS_BLOCKED' });
  }
  return new DeepSearchError(
    'network',
    l10n.t(
      'Could not reach {0} from {1} — the instance is down or out of reach from this browser, or it does not accept requests from {1} (a site admin adds the origin {2} to `corsOrigin`). Check the instance URL and your network.',
      url.host,
      page,
      pageOrigin,
    ),
    { code: 'UNREACHABLE_FROM_PAGE' },
  );
}

/** The hosts VS Code for the Web's extension host runs on (its iframe's origin). */
const VSCODE_CDN = /(^|\.)vscode-cdn\.net$/;

function hostOf(origin: string): string {
  try {
    return new URL(origin).host;
  } catch {
    return origin;
  }
}

/** A worker's (or page's) own origin; undefined outside a browser. */
function workerOrigin(): string | undefined {
  const location = (globalThis as { location?: { origin?: string } }).location;
  return location?.origin && location.origin !== 'null' ? location.origin : undefined;
}
