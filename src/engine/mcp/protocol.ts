/**
 * The Model Context Protocol methods the engine's tool server answers in the 2025 lane
 * (initialize, ping, tools/list, tools/call) and the protocol versions of that lane. The server is stateless: each request
 * stands alone, so it offers no session, no subscriptions and no list-changed notifications, and a
 * `notifications/cancelled` cannot reach the request it names (closing the connection cancels).
 */
import { HANDSHAKE_VERSIONS as PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION as LATEST_PROTOCOL_VERSION } from '../../contract/mcpProtocol';
import { INVALID_PARAMS, isObject, METHOD_NOT_FOUND, RpcError, type JsonRpcRequest, type Params } from './jsonRpc';
import type { ToolDescription } from '../tools/toolCalls';

/** Newest first: the versions the official MCP SDK (1.32) speaks, clients of older ones included. */
export { LATEST_PROTOCOL_VERSION, PROTOCOL_VERSIONS };
/** Versions from this one on have no JSON-RPC batches. */
export const FIRST_VERSION_WITHOUT_BATCHES = '2025-06-18';

/** The client's version when this server speaks it; otherwise the latest, for the client to accept or decline. */
export function negotiateProtocolVersion(requested: string): string {
  return PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
}

/** The schemas say their dialect: JSON Schema 2020-12, MCP's default and what real servers publish. */
export const SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** A tool as tools/list lists it: the catalogue's own description. */
export type ListedTool = ToolDescription;

export interface CallToolResult {
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: true;
}

/** The tools behind tools/list and tools/call. */
export interface ToolCatalogue {
  tools: readonly ListedTool[];
  /** Runs a tool; every failure, an unknown name or bad arguments included, is a result with `isError`. */
  call(name: string, args: Params, signal: AbortSignal): Promise<CallToolResult>;
}

export interface ServerInfo {
  name: string;
  version: string;
}

/** Answers one request with its result, or throws an RpcError. */
export type McpMethods = (request: JsonRpcRequest, signal: AbortSignal) => Promise<object>;

/** tools/list's tools, their schemas saying their dialect (both lanes list them so). */
export function toolListing(catalogue: ToolCatalogue): { tools: object[] } {
  return {
    tools: catalogue.tools.map((tool) => ({
      ...tool,
      inputSchema: { $schema: SCHEMA_DIALECT, ...tool.inputSchema },
      outputSchema: { $schema: SCHEMA_DIALECT, ...tool.outputSchema },
    })),
  };
}

/** The 2025 lane's methods (the handshake's versions); the 2026 lane's are in stateless.ts. */
export function mcpMethods(server: ServerInfo, catalogue: ToolCatalogue): McpMethods {
  const listing = toolListing(catalogue);
  return async (request, signal) => {
    const params = request.params ?? {};
    switch (request.method) {
      case 'initialize': {
        const requested = field(params, 'protocolVersion', 'string');
        field(params, 'capabilities', 'object');
        field(params, 'clientInfo', 'object');
        return { protocolVersion: negotiateProtocolVersion(requested), capabilities: { tools: {} }, serverInfo: server };
      }
      case 'ping':
        return {};
      case 'tools/list':
        // One page holds every tool, so a cursor has nothing to continue.
        return listing;
      case 'tools/call': {
        const name = field(params, 'name', 'string');
        const args = params.arguments;
        if (args !== undefined && !isObject(args)) {
          throw new RpcError(
            INVALID_PARAMS,
            `Invalid params: arguments must be an object of the tool's arguments, not ${args === null ? 'null' : typeof args}.`,
          );
        }
        return catalogue.call(name, args ?? {}, signal);
      }
      default:
        throw new RpcError(METHOD_NOT_FOUND, `Method not found: ${request.method} (this server answers initialize, ping, tools/list and tools/call).`);
    }
  };
}

function field(params: Params, name: string, type: 'string'): string;
function field(params: Params, name: string, type: 'object'): Params;
function field(params: Params, name: string, type: 'string' | 'object'): unknown {
  const value = params[name];
  if (type === 'string' ? typeof value !== 'string' : !isObject(value)) {
    throw new RpcError(INVALID_PARAMS, `Invalid params: ${name} is required and must be ${type === 'string' ? 'a string' : 'an object'}.`);
  }
  return value;
}
