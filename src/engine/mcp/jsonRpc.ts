/**
 * JSON-RPC 2.0 as MCP uses it: the messages a client may send, the error codes, and a check that
 * tells requests (answered) from notifications and responses (taken, never answered).
 */

export { INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, SERVER_ERROR } from '../../contract/mcpProtocol';

/** MCP allows strings and integers only (not null, not fractions). */
export type RequestId = string | number;
export type Params = Record<string, unknown>;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: Params;
}

export type ClientMessage = { kind: 'request'; request: JsonRpcRequest } | { kind: 'notification'; method: string } | { kind: 'response' };

/** An error to answer a request with; anything else a method throws becomes an internal error. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What one element of a POST body is, or undefined when it is no JSON-RPC message of MCP. */
export function readMessage(value: unknown): ClientMessage | undefined {
  if (!isObject(value) || value.jsonrpc !== '2.0') return undefined;
  if ('method' in value) {
    if (typeof value.method !== 'string') return undefined;
    if (value.params !== undefined && !isObject(value.params)) return undefined;
    if (!('id' in value)) return { kind: 'notification', method: value.method };
    if (!isRequestId(value.id)) return undefined;
    return { kind: 'request', request: value as unknown as JsonRpcRequest };
  }
  // A client's answer to a server request. This server sends none, so it is taken and dropped.
  const answersSomething = 'result' in value !== 'error' in value;
  return answersSomething && (isRequestId(value.id) || value.id === null) ? { kind: 'response' } : undefined;
}

function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || Number.isInteger(value);
}

export function resultMessage(id: RequestId, result: unknown): object {
  return { jsonrpc: '2.0', id, result };
}

export function errorMessage(id: RequestId | null, code: number, message: string, data?: unknown): object {
  return { jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } };
}
