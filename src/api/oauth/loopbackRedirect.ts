/**
 * The browser sign-in's way back when VS Code cannot be reached by a link of its own scheme (VS Code
 * in a browser, or an instance that accepts loopback redirects only): a listener on 127.0.0.1, on a
 * port the system picks, for one answer (RFC 8252 §7.3). It answers the browser once the sign-in is
 * settled, with a page that says how it went. No `vscode` import.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as l10n from '@vscode/l10n';
import { canceledError } from '../errors';

import { LOOPBACK_CALLBACK_PATH } from './loopbackAddress';

export { LOOPBACK_CALLBACK_PATH, LOOPBACK_REDIRECT_URI } from './loopbackAddress';

/** A redirect that came back: its URL, and how to answer the browser tab that brought it. */
export interface ArrivedRedirect {
  url: URL;
  /** Answers the browser with a page saying how the sign-in went (then the listener closes). */
  finish(outcome: { ok: boolean; message: string }): void;
}

export class LoopbackRedirect {
  private waiting: { state: string; resolve: (redirect: ArrivedRedirect) => void } | undefined;
  private closed = false;

  private constructor(
    private readonly server: Server,
    /** `http://127.0.0.1:<port>/callback`: the redirect URI to send. */
    readonly redirectUri: string,
  ) {
    server.on('request', (request: IncomingMessage, response: ServerResponse) => this.onRequest(request, response));
  }

  /** Listens on 127.0.0.1 (never another interface) on a free port. */
  static async listen(): Promise<LoopbackRedirect> {
    const server = createServer();
    server.requestTimeout = 10_000;
    server.headersTimeout = 10_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    return new LoopbackRedirect(server, `http://127.0.0.1:${port}${LOOPBACK_CALLBACK_PATH}`);
  }

  /**
   * The first redirect that carries `state` (another state gets a page saying it is not this
   * sign-in's answer, and the wait goes on). Rejects when `signal` aborts; the listener then closes.
   */
  wait(state: string, signal?: AbortSignal): Promise<ArrivedRedirect> {
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.waiting = undefined;
        this.close();
        reject(canceledError());
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting = {
        state,
        resolve: (redirect) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(redirect);
        },
      };
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.server.close();
    this.server.closeIdleConnections();
  }

  private onRequest(request: IncomingMessage, response: ServerResponse): void {
    const notHere = () => answer(response, 404, l10n.t('Not found'), l10n.t('This address only receives the answer of a Deep Search sign-in.'));
    if (request.method !== 'GET' || (request.url ?? '').length > 8_192) return notHere();
    const url = new URL(request.url ?? '/', this.redirectUri);
    if (url.pathname !== LOOPBACK_CALLBACK_PATH) return notHere();
    const waiting = this.waiting;
    if (!waiting)
      return answer(response, 410, l10n.t('Sign-in over'), l10n.t('No sign-in waits for this answer any more: start the sign-in again in VS Code.'));
    if (url.searchParams.get('state') !== waiting.state) {
      return answer(
        response,
        400,
        l10n.t('Not this sign-in'),
        l10n.t('This answer belongs to another sign-in: use the browser tab VS Code opened last, or start the sign-in again.'),
      );
    }
    this.waiting = undefined;
    let finished = false;
    waiting.resolve({
      url,
      finish: ({ ok, message }) => {
        if (finished) return;
        finished = true;
        answer(response, ok ? 200 : 400, ok ? l10n.t('Signed in') : l10n.t('Sign-in failed'), message);
        this.close();
      },
    });
  }
}

/** A small page with no script, no styles from elsewhere and no framing. */
function answer(response: ServerResponse, status: number, title: string, message: string): void {
  const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  response.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    'X-Frame-Options': 'DENY',
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
  });
  response.end(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(l10n.t('{0} · Deep Search', title))}</title>` +
      '<style>body{font:16px system-ui,sans-serif;max-width:36em;margin:15vh auto;padding:0 1em;color:#222}h1{font-size:1.4em}</style></head>' +
      `<body><h1>${escape(title)}</h1><p>${escape(message)}</p></body></html>`,
  );
}
