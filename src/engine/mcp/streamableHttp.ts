/**
 * MCP's Streamable HTTP transport, server side, stateless and answering in JSON. A POST carries one
 * JSON-RPC message (or, for clients older than protocol 2025-06-18, a batch of them) and gets the
 * response(s) to its request(s) as `application/json`, or 202 with no body when it held only
 * notifications or responses. No `Mcp-Session-Id` is issued (so none is checked), which leaves no
 * stream to open by GET and no session to end by DELETE: both get 405. Replies are never SSE
 * streams: they would only carry progress messages, and no tool sends any.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ClientGoneError, HttpError, jsonReply, readBody, sendReply } from '../http';
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
import { errorMessage as textOf } from '../errorMessage';

/** Most messages in one batch (the official SDK's limit too). */
export const MAX_BATCH_MESSAGES = 100;

export interface StreamableHttpOptions {
  /** Answers one request with its result, or throws an RpcError. */
  answer: (request: JsonRpcRequest) => Promise<object>;
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
 * The POST's messages, or why they cannot be taken: then the POST is answered 400 as a whole, with
 * no id, as the transport prescribes for input it cannot accept.
 */
function takeMessages(elements: unknown[], batch: boolean, version: string | undefined): { messages: ClientMessage[] } | { problem: { code: number; message: string } } {
  const problem = (code: number, message: string): { problem: { code: number; message: string } } => ({ problem: { code, message } });
  if (batch && elements.length === 0) return problem(INVALID_REQUEST, 'Invalid Request: the batch is empty.');
  if (elements.length > MAX_BATCH_MESSAGES) return problem(INVALID_REQUEST, `Invalid Request: a batch holds at most ${MAX_BATCH_MESSAGES} messages.`);
  const messages: ClientMessage[] = [];
  for (const element of elements) {
    const message = readMessage(element);
    if (!message) {
      return problem(INVALID_REQUEST, 'Invalid Request: not a JSON-RPC 2.0 message of MCP (a request is {"jsonrpc": "2.0", "id": <string or integer>, "method": <string>, "params": <object>}).');
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
