/**
 * A stand-in for the Open VSX registry on 127.0.0.1, for the test that runs the real `ovsx publish`:
 * open-vsx.org cannot be reached from the machines the tests run on, and a test must never publish.
 * It answers the calls ovsx makes before and during a publish (ovsx's lib/registry.js), as a
 * registry new enough for all of ovsx's checks would: `GET /api/version` (the registry's version and
 * default size limit), `GET /api/-/size-limit` (the limit for one extension, asked with the token)
 * and `POST /api/-/publish` (the VSIX), and records each request and the uploaded bytes. What the
 * real registry checks on its side (who owns the namespace, the token, its own warnings) it cannot.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The size limit the stand-in reports: ovsx refuses, before uploading, a package above it. */
export const STAND_IN_SIZE_LIMIT = 64 * 1024 * 1024;

export interface RecordedRequest {
  method: string;
  /** The path and query, as sent. */
  url: string;
  authorization: string | undefined;
}

export interface OpenVsxStandIn {
  url: string;
  requests: RecordedRequest[];
  /** The body of each `POST /api/-/publish`, in order. */
  uploads: Buffer[];
  /** Answers each publish with the extension the test says it uploaded (the registry reads it from the VSIX). */
  published: { namespace: string; name: string; version: string };
  close(): Promise<void>;
}

export async function startOpenVsxStandIn(published: OpenVsxStandIn['published']): Promise<OpenVsxStandIn> {
  const requests: RecordedRequest[] = [];
  const uploads: Buffer[] = [];
  const json = (response: ServerResponse, status: number, body: unknown) =>
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const handle = (request: IncomingMessage, response: ServerResponse, body: Buffer) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method === 'GET' && url.pathname === '/api/version') return json(response, 200, { version: '1.3.0', maxExtensionSize: STAND_IN_SIZE_LIMIT });
    if (request.method === 'GET' && url.pathname === '/api/-/size-limit') return json(response, 200, { maxSize: STAND_IN_SIZE_LIMIT });
    if (request.method === 'POST' && url.pathname === '/api/-/publish') {
      uploads.push(body);
      return json(response, 201, { ...standIn.published, targetPlatform: 'universal' });
    }
    return json(response, 404, { error: `The stand-in does not answer ${request.method} ${url.pathname}.` });
  };
  const server = createServer((request, response) => {
    requests.push({ method: request.method ?? '', url: request.url ?? '', authorization: request.headers.authorization });
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > STAND_IN_SIZE_LIMIT) {
        json(response, 413, { error: 'Too large.' });
        request.destroy();
      } else chunks.push(chunk);
    });
    request.on('end', () => handle(request, response, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const standIn: OpenVsxStandIn = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    uploads,
    published,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  return standIn;
}
