/**
 * The HTTP plumbing the engine's routes share: errors that carry a status, replies as values (so a
 * fault can still corrupt them), bounded body reading and JSON parsing with actionable messages.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WireErrorBody } from '../../contract/legacyWire';
import { errorMessage } from '../../contract/errorMessage';

/** A failure the client caused or must know about; becomes `{"error": message}` with `status`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export interface Reply {
  status: number;
  /** Serialised body; absent for 204. */
  body?: string;
  contentType?: string;
  headers?: Readonly<Record<string, string>>;
}

export const MAX_BODY_BYTES = 1024 * 1024;
/** How much of an oversized body is drained so the client can read the 413 before the socket closes. */
const MAX_DRAINED_BYTES = 16 * 1024 * 1024;

const JSON_TYPE = 'application/json; charset=utf-8';

export function jsonReply(status: number, value: unknown): Reply {
  return { status, body: JSON.stringify(value), contentType: JSON_TYPE };
}

export function errorReply(error: HttpError): Reply {
  const body: WireErrorBody = { error: error.message };
  return { ...jsonReply(error.status, body), headers: error.headers };
}

export function noContentReply(): Reply {
  return { status: 204 };
}

/** The client closed the connection before its request was read whole; no reply can reach it. */
export class ClientGoneError extends HttpError {
  constructor() {
    super(400, 'The client closed the connection before sending the whole request body.');
  }
}

/** Reads the whole request body; rejects with 413 past `MAX_BODY_BYTES`, `ClientGoneError` if the client leaves. */
export function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const tooLarge = (headers: Record<string, string>): HttpError =>
      new HttpError(413, `The request body is larger than the limit of ${MAX_BODY_BYTES} bytes.`, headers);
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received <= MAX_BODY_BYTES) {
        chunks.push(chunk);
      } else if (received > MAX_DRAINED_BYTES) {
        // Stop listening but leave the stream alone: destroying it would lose the 413 reply too.
        request.off('data', onData);
        request.off('end', onEnd);
        reject(tooLarge({ Connection: 'close' }));
      }
    };
    const onEnd = (): void => {
      if (received > MAX_BODY_BYTES) reject(tooLarge({}));
      else resolve(Buffer.concat(chunks).toString('utf8'));
    };
    request.on('data', onData);
    request.on('end', onEnd);
    // The client went away mid-body ("aborted"): nothing to answer, and nothing went wrong here.
    request.once('error', (error) => reject(request.destroyed || (error as NodeJS.ErrnoException).code === 'ECONNRESET' ? new ClientGoneError() : error));
  });
}

/** Parses a JSON object body; every way it can be wrong gets a 400 that says how to fix it. */
export function parseJsonObject(text: string, example: string): Record<string, unknown> {
  if (text.trim() === '') throw new HttpError(400, `The request body is empty: send a JSON object such as ${example}.`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = errorMessage(error);
    throw new HttpError(400, `The request body is not valid JSON (${reason}): send a JSON object such as ${example}.`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HttpError(400, `The request body must be a JSON object such as ${example}.`);
  }
  return value as Record<string, unknown>;
}

/** A request header's value, trimmed; repeated headers joined as HTTP joins them; '' when absent. */
export function headerValue(request: IncomingMessage, name: string): string {
  const value = request.headers[name];
  return (Array.isArray(value) ? value.join(', ') : (value ?? '')).trim();
}

/** Writes a reply; `truncated` cuts the body short, as a broken proxy would (fault injection). */
export function sendReply(response: ServerResponse, reply: Reply, truncated = false): void {
  const headers: Record<string, string | number> = {
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    ...reply.headers,
  };
  let status = reply.status;
  let body = reply.body;
  if (truncated) {
    status = 200;
    body = truncate(body);
    headers['Content-Type'] = JSON_TYPE;
  } else if (reply.contentType) {
    headers['Content-Type'] = reply.contentType;
  }
  if (body !== undefined && status !== 204) {
    const bytes = Buffer.from(body, 'utf8');
    headers['Content-Length'] = bytes.length;
    response.writeHead(status, headers);
    response.end(bytes);
  } else {
    response.writeHead(status, headers);
    response.end();
  }
}

function truncate(body: string | undefined): string {
  if (body === undefined || body.length < 4) return '{"conversations": [';
  return body.slice(0, Math.max(1, Math.floor(body.length / 2)));
}
