/**
 * A real `node:http` server on 127.0.0.1 that plays a remote instance (or a reverse proxy in front
 * of one) for behaviour the local engine cannot produce: HTML error pages, resets, slow answers,
 * Retry-After. Each test scripts its replies and reads back what arrived.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path and query as sent. */
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type ScriptedReply =
  | { status: number; body?: string | object; headers?: Record<string, string> }
  | { reset: true }
  /** Answers only after this long (or never, when the client gives up first). */
  | { delayMs: number; then: ScriptedReply };

export type Script = (request: RecordedRequest, index: number) => ScriptedReply;

export interface ScriptedInstance {
  url: string;
  port: number;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startScriptedInstance(script: Script, tls?: { key: string; cert: string }): Promise<ScriptedInstance> {
  const requests: RecordedRequest[] = [];
  const pending = new Set<NodeJS.Timeout>();
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      reply(script(recorded, requests.length - 1));
    });
    const reply = (scripted: ScriptedReply): void => {
      if ('reset' in scripted) {
        req.socket.destroy();
      } else if ('delayMs' in scripted) {
        const timer = setTimeout(() => {
          pending.delete(timer);
          if (!res.destroyed) reply(scripted.then);
        }, scripted.delayMs);
        pending.add(timer);
      } else {
        const isJson = scripted.body !== undefined && typeof scripted.body === 'object';
        const body = isJson ? JSON.stringify(scripted.body) : ((scripted.body as string | undefined) ?? '');
        res.writeHead(scripted.status, {
          ...(isJson ? { 'content-type': 'application/json' } : {}),
          ...scripted.headers,
        });
        res.end(body);
      }
    };
  };
  const server = tls ? https.createServer(tls, handler) : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of pending) clearTimeout(timer);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A reply with a JSON body. */
export function json(body: unknown, status = 200): ScriptedReply {
  return { status, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
}
