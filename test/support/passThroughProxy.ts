/**
 * An HTTP proxy on 127.0.0.1 that passes every request on to a target unchanged — but for the
 * headers it is told to set — and shows each request body to the test first: what a client sent,
 * or a token a tool without an option for it cannot send.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PassThroughProxy {
  url: string;
  close(): Promise<void>;
}

export interface PassThroughOptions {
  /** Headers set on every request passed on (an Authorization header, say). */
  setHeaders?: Readonly<Record<string, string>>;
  /** Sees each request's body before it is passed on. */
  onBody?: (body: Buffer) => void;
  /** Sees each request's method, path and headers as the client sent them. */
  onRequest?: (request: { method: string; path: string; headers: Readonly<Record<string, string | string[] | undefined>> }) => void;
}

const HOP_BY_HOP = ['host', 'connection', 'content-length', 'keep-alive', 'transfer-encoding'];

export async function startPassThroughProxy(target: string, options: PassThroughOptions = {}): Promise<PassThroughProxy> {
  const server = createServer((request, response) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      options.onRequest?.({ method: request.method ?? 'GET', path: request.url ?? '/', headers: request.headers });
      options.onBody?.(body);
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string' && !HOP_BY_HOP.includes(name)) headers.set(name, value);
      for (const [name, value] of Object.entries(options.setHeaders ?? {})) headers.set(name, value);
      const method = request.method ?? 'GET';
      const answer = await fetch(target + (request.url ?? '/'), { method, headers, body: ['GET', 'HEAD', 'DELETE'].includes(method) ? undefined : body });
      const passed: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (![...HOP_BY_HOP, 'content-encoding'].includes(name)) passed[name] = value;
      });
      response.writeHead(answer.status, passed);
      response.end(Buffer.from(await answer.arrayBuffer()));
    })().catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
