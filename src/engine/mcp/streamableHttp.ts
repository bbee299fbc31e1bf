/**
 * MCP's Streamable HTTP transport, server side, stateless and answering in JSON, for both lanes of
 * the protocol: a request that carries the 2026-07-28 `_meta` goes to that lane (stateless.ts), any
 * other to the 2025 handshake's, as it always did. In the 2025 lane a POST carries one
 * JSON-RPC message (or, for clients older than protocol 2025-06-18, a batch of them) and gets the
 * response(s) to its request(s) as `application/json`, or 202 with no body when it held only
 * notifications or responses. No `Mcp-Session-Id` is issued (so none is checked), which leaves no
 * stream to open by GET and no session to end by DELETE: both get 405. Replies are never SSE
 * streams: they would only carry progress messages, and no tool sends any.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ClientGoneError, HttpError, jsonReply, readBody, sendReply } from '../http/http';
import {
  errorMessage,
  INTERNAL_ERROR,
  INVALID_REQUEST,
  PARSE_ERROR,
  readMessage,
  resultMessage,
  RpcError,
  SERVER_ERROR,
  type ClientMessage,
  type JsonRpcRequest,
} from './jsonRpc';
import { FIRST_VERSION_WITHOUT_BATCHES, PROTOCOL_VERSIONS } from './protocol';
import { carriesProtocolVersion, PROTOCOL_2026, STATELESS_VERSIONS, StatelessError, type StatelessHeaders } from './stateless';
import { errorMessage as textOf } from '../../contract/errorMessage';

/** Most messages in one batch (the official SDK's limit too). */
export const MAX_BATCH_MESSAGES = 100;

/** Which lanes of MCP an endpoint serves: the 2025 handshake's, the 2026-07-28 stateless one, or both. */
export type ProtocolLanes = '2025' | '2026' | 'both';

export interface StreamableHttpOptions {
  /** Answers one request of the 2025 lane with its result, or throws an RpcError. */
  answer: (request: JsonRpcRequest) => Promise<object>;
  /** Answers one request of the 2026 lane, or throws a StatelessError. */
  stateless: (request: JsonRpcRequest, headers: StatelessHeaders) => Promise<object>;
  /** Default `both`. */
  lanes?: ProtocolLanes;
  /** Told about failures that are the server's fault (they become internal errors). */
  log: (line: string) => void;
}

/** Serves one HTTP request of an already authenticated client. */
export async function serveStreamableHttp(request: IncomingMessage, response: ServerResponse, options: StreamableHttpOptions): Promise<void> {
  if (request.method !== 'POST') {
    const method = request.method ?? 'GET';
    sendError(response, 405, SERVER_ERROR, `${method} is not supported: this stateless MCP endpoint takes JSON-RPC messages by POST.`, {
      Allow: 'POST',
      'Cache-Control': 'no-store',
    });
    return;
  }
  if (!acceptsJsonAndEventStream(request.headers.accept)) {
    sendError(response, 406, SERVER_ERROR, 'Not Acceptable: send "Accept: application/json, text/event-stream", as the Streamable HTTP transport of MCP asks.');
    return;
  }
  if (mediaType(request.headers['content-type']) !== 'application/json') {
    sendError(response, 415, SERVER_ERROR, 'Unsupported Media Type: send the JSON-RPC message with "Content-Type: application/json".');
    return;
  }
  let text: string;
  try {
    text = await readBody(request);
  } catch (error) {
    // A client that left gets no reply; the server logs it as such.
    if (!(error instanceof HttpError) || error instanceof ClientGoneError) throw error;
    sendError(response, error.status, SERVER_ERROR, error.message, error.headers);
    return;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    sendError(response, 400, PARSE_ERROR, 'Parse error: Invalid JSON');
    return;
  }
  const batch = Array.isArray(body);
  if (laneOf(body, request, options.lanes ?? 'both') === '2026') {
    await serveStateless(body, request, response, options);
    return;
  }
  const elements: unknown[] = Array.isArray(body) ? body : [body];
  const taken = takeMessages(elements, batch, headerValue(request, 'mcp-protocol-version'));
  if ('problem' in taken) {
    sendError(response, 400, taken.problem.code, taken.problem.message);
    return;
  }
  const requests = taken.messages.flatMap((message) => (message.kind === 'request' ? [message.request] : []));
  if (requests.length === 0) {
    // Notifications and responses are taken without a reply. initialized needs no action here, and
    // cancelled cannot reach its request: that one runs in another POST, which ends if its client closes it.
    response.writeHead(202, { 'Content-Length': 0 });
    response.end();
    return;
  }
  const replies = await Promise.all(requests.map((each) => answerOne(each, options)));
  sendJson(response, 200, batch ? replies : replies[0]);
}

/**
 * Which lane a POST is for: 2026's when its request carries the revision's `_meta` (or its header
 * names a stateless version, or the endpoint serves no other lane); otherwise 2025's. A server of
 * the 2025 lane only reads neither, as servers before the revision did.
 */
function laneOf(body: unknown, request: IncomingMessage, lanes: ProtocolLanes): '2025' | '2026' {
  if (lanes !== 'both') return lanes;
  const message = Array.isArray(body) ? undefined : readMessage(body);
  if (message?.kind === 'request' && carriesProtocolVersion(message.request)) return '2026';
  const version = headerValue(request, 'mcp-protocol-version');
  return version !== undefined && STATELESS_VERSIONS.includes(version) ? '2026' : '2025';
}

/** One message of the 2026 lane: no batches, a request answered with its result or its error and the error's HTTP status. */
async function serveStateless(body: unknown, request: IncomingMessage, response: ServerResponse, options: StreamableHttpOptions): Promise<void> {
  if (Array.isArray(body)) {
    sendError(response, 400, INVALID_REQUEST, `Invalid Request: MCP ${PROTOCOL_2026} has no batches: send one message per POST.`);
    return;
  }
  const message = readMessage(body);
  if (!message) {
    sendError(
      response,
      400,
      INVALID_REQUEST,
      'Invalid Request: not a JSON-RPC 2.0 message of MCP (a request is {"jsonrpc": "2.0", "id": <string or integer>, "method": <string>, "params": <object>}).',
    );
    return;
  }
  if (message.kind !== 'request') {
    response.writeHead(202, { 'Content-Length': 0 });
    response.end();
    return;
  }
  const { id, method } = message.request;
  const headers = {
    protocolVersion: headerValue(request, 'mcp-protocol-version'),
    method: headerValue(request, 'mcp-method'),
    name: headerValue(request, 'mcp-name'),
  };
  try {
    sendJson(response, 200, resultMessage(id, await options.stateless(message.request, headers)));
  } catch (error) {
    if (error instanceof StatelessError) sendJson(response, error.status, errorMessage(id, error.code, error.message, error.data));
    else if (error instanceof RpcError) sendJson(response, 400, errorMessage(id, error.code, error.message));
    else {
      const text = textOf(error);
      options.log(`mcp ${method}: internal error: ${error instanceof Error && error.stack ? error.stack : text}`);
      sendJson(response, 500, errorMessage(id, INTERNAL_ERROR, `Internal error: ${text}. The engine log has details.`));
    }
  }
}

/**
 * The POST's messages, or why they cannot be taken: then the POST is answered 400 as a whole, with
 * no id, as the transport prescribes for input it cannot accept.
 */
function takeMessages(
  elements: unknown[],
  batch: boolean,
  version: string | undefined,
): { messages: ClientMessage[] } | { problem: { code: number; message: string } } {
  const problem = (code: number, message: string): { problem: { code: number; message: string } } => ({ problem: { code, message } });
  if (batch && elements.length === 0) return problem(INVALID_REQUEST, 'Invalid Request: the batch is empty.');
  if (elements.length > MAX_BATCH_MESSAGES) return problem(INVALID_REQUEST, `Invalid Request: a batch holds at most ${MAX_BATCH_MESSAGES} messages.`);
  const messages: ClientMessage[] = [];
  for (const element of elements) {
    const message = readMessage(element);
    if (!message) {
      return problem(
        INVALID_REQUEST,
        'Invalid Request: not a JSON-RPC 2.0 message of MCP (a request is {"jsonrpc": "2.0", "id": <string or integer>, "method": <string>, "params": <object>}).',
      );
    }
    messages.push(message);
  }
  const initializing = messages.some((message) => message.kind === 'request' && message.request.method === 'initialize');
  if (initializing && messages.length > 1) return problem(INVALID_REQUEST, 'Invalid Request: initialize must be sent alone, not in a batch.');
  // initialize is what settles the version, so only the messages after it are held to the header.
  if (!initializing && version !== undefined && !PROTOCOL_VERSIONS.includes(version)) {
    return problem(SERVER_ERROR, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${PROTOCOL_VERSIONS.join(', ')})`);
  }
  if (batch && version !== undefined && version >= FIRST_VERSION_WITHOUT_BATCHES) {
    return problem(INVALID_REQUEST, `Invalid Request: protocol ${version} has no batches: send one message per POST.`);
  }
  return { messages };
}

async function answerOne(request: JsonRpcRequest, options: StreamableHttpOptions): Promise<object> {
  try {
    return resultMessage(request.id, await options.answer(request));
  } catch (error) {
    if (error instanceof RpcError) return errorMessage(request.id, error.code, error.message);
    const message = textOf(error);
    options.log(`mcp ${request.method}: internal error: ${error instanceof Error && error.stack ? error.stack : message}`);
    return errorMessage(request.id, INTERNAL_ERROR, `Internal error: ${message}. The engine log has details.`);
  }
}

/** The transport asks clients to accept both: a server may answer either way. */
function acceptsJsonAndEventStream(accept: string | undefined): boolean {
  const types = (accept ?? '').split(',').map((entry) => mediaType(entry));
  return types.includes('application/json') && types.includes('text/event-stream');
}

/** `application/json` from `Application/JSON; charset=utf-8`. */
function mediaType(header: string | undefined): string {
  return (header ?? '').split(';', 1)[0].trim().toLowerCase();
}

function headerValue(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function sendError(response: ServerResponse, status: number, code: number, message: string, headers: Readonly<Record<string, string>> = {}): void {
  sendJson(response, status, errorMessage(null, code, message), headers);
}

/** Through the engine's one reply path, so MCP replies carry the same no-store and nosniff headers. */
function sendJson(response: ServerResponse, status: number, value: unknown, headers: Readonly<Record<string, string>> = {}): void {
  sendReply(response, { ...jsonReply(status, value), headers });
}
