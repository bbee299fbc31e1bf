/**
 * The 2026-07-28 lane of MCP: no handshake and no session; each request carries its protocol
 * version and the client's capabilities in `params._meta`, and its method (and, for a tool call,
 * the tool's name) in headers that must agree with the body. The server describes itself through
 * `server/discover`; every result says `resultType`, list results carry cache hints, and results
 * carry the server's name in `_meta`. `ping`, `initialize` and `logging/setLevel` are not methods
 * here (404). Errors the revision defines: -32602 with HTTP 400 for a request without its `_meta`,
 * -32022 with the versions served for a version not served, -32020 when headers and body disagree.
 */
import {
  HEADER_MISMATCH,
  META_CLIENT_CAPABILITIES,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
  STATELESS_VERSION as PROTOCOL_2026,
  UNSUPPORTED_PROTOCOL_VERSION,
} from '../../contract/mcpProtocol';
import { INVALID_PARAMS, isObject, METHOD_NOT_FOUND, RpcError, type JsonRpcRequest, type Params } from './jsonRpc';
import type { ServerInfo, ToolCatalogue } from './protocol';
import { toolListing } from './protocol';

// Named here as the lane's modules and tests know them; the values live in the contract.
export { HEADER_MISMATCH, META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, META_SERVER_INFO, PROTOCOL_2026, UNSUPPORTED_PROTOCOL_VERSION };
/** The stateless revisions this server speaks, newest first. */
export const STATELESS_VERSIONS: readonly string[] = [PROTOCOL_2026];

/** How long a client may keep the tool list: it changes only when the engine starts again. */
const TOOL_LIST_TTL_MS = 5 * 60_000;

/** An error of this lane, with its HTTP status and the data the revision gives it. */
export class StatelessError extends RpcError {
  constructor(
    code: number,
    message: string,
    readonly status: number,
    readonly data?: unknown,
  ) {
    super(code, message);
  }
}

/** Whether a request is of the stateless lane: its `_meta` names a protocol version. */
export function carriesProtocolVersion(request: JsonRpcRequest): boolean {
  const meta = request.params?._meta;
  return isObject(meta) && META_PROTOCOL_VERSION in meta;
}

export interface StatelessHeaders {
  protocolVersion: string | undefined;
  method: string | undefined;
  name: string | undefined;
}

/** Answers one request of the lane, or throws a StatelessError (or an RpcError, a 400 too). */
export type StatelessMethods = (request: JsonRpcRequest, headers: StatelessHeaders, signal: AbortSignal) => Promise<object>;

/**
 * The lane's methods. `handshakeVersions`: the versions of the 2025 handshake the endpoint also keeps
 * (none when it speaks this lane only), which an unsupported version's error names.
 */
export function statelessMethods(server: ServerInfo, catalogue: ToolCatalogue, handshakeVersions: readonly string[]): StatelessMethods {
  const listing = toolListing(catalogue);
  const resultMeta = { [META_SERVER_INFO]: server };
  return async (request, headers, signal) => {
    const params: Params = request.params ?? {};
    // The headers first: a body and headers that disagree are refused as such, whatever the version.
    const version = checkEnvelope(params);
    checkHeaders(request, headers, version);
    checkVersion(version, handshakeVersions);
    switch (request.method) {
      case 'server/discover':
        return {
          supportedVersions: STATELESS_VERSIONS,
          capabilities: { tools: {} },
          resultType: 'complete',
          ttlMs: TOOL_LIST_TTL_MS,
          cacheScope: 'private',
          _meta: resultMeta,
        };
      case 'tools/list':
        // One page holds every tool. Private: what a token may call depends on who holds it.
        return { ...listing, resultType: 'complete', ttlMs: TOOL_LIST_TTL_MS, cacheScope: 'private', _meta: resultMeta };
      case 'tools/call': {
        const name = params.name;
        if (typeof name !== 'string') throw new StatelessError(INVALID_PARAMS, 'Invalid params: name is required and must be a string.', 400);
        const args = params.arguments;
        if (args !== undefined && !isObject(args)) {
          throw new StatelessError(
            INVALID_PARAMS,
            `Invalid params: arguments must be an object of the tool's arguments, not ${args === null ? 'null' : typeof args}.`,
            400,
          );
        }
        return { ...(await catalogue.call(name, args ?? {}, signal)), resultType: 'complete', _meta: resultMeta };
      }
      default:
        throw new StatelessError(
          METHOD_NOT_FOUND,
          `Method not found: ${request.method} (in MCP ${version} this server answers server/discover, tools/list and tools/call).`,
          404,
        );
    }
  };
}

/** The request's protocol version, once its `_meta` holds what the revision requires. */
function checkEnvelope(params: Params): string {
  const meta = params._meta;
  const version = isObject(meta) ? meta[META_PROTOCOL_VERSION] : undefined;
  const capabilities = isObject(meta) ? meta[META_CLIENT_CAPABILITIES] : undefined;
  if (typeof version !== 'string' || !isObject(capabilities)) {
    throw new StatelessError(
      INVALID_PARAMS,
      `Invalid params: a request of MCP ${PROTOCOL_2026} carries params._meta with "${META_PROTOCOL_VERSION}" (a string) and "${META_CLIENT_CAPABILITIES}" (an object).`,
      400,
    );
  }
  return version;
}

/**
 * A version of this lane, or -32022 with the versions it speaks (as server/discover lists them): a
 * client of both revisions that finds none it shares falls back to the handshake, which the error's
 * message names when the endpoint keeps it.
 */
function checkVersion(version: string, handshake: readonly string[]): void {
  if (STATELESS_VERSIONS.includes(version)) return;
  const also = handshake.length > 0 ? `; the initialize handshake takes ${handshake.join(', ')}` : '';
  throw new StatelessError(
    UNSUPPORTED_PROTOCOL_VERSION,
    `Unsupported protocol version: ${version.slice(0, 40)} (supported: ${STATELESS_VERSIONS.join(', ')}${also}).`,
    400,
    {
      supported: STATELESS_VERSIONS,
      requested: version.slice(0, 100),
    },
  );
}

/** The headers must say what the body says: the version, the method and, for a tool call, the tool. */
function checkHeaders(request: JsonRpcRequest, headers: StatelessHeaders, version: string): void {
  const mismatch = (what: string, header: string | undefined, body: string): StatelessError =>
    new StatelessError(
      HEADER_MISMATCH,
      header === undefined
        ? `Header mismatch: the ${what} header is required (${JSON.stringify(body.slice(0, 100))}).`
        : `Header mismatch: the ${what} header (${JSON.stringify(header.slice(0, 100))}) differs from the body (${JSON.stringify(body.slice(0, 100))}).`,
      400,
    );
  if (headers.protocolVersion !== version) throw mismatch('MCP-Protocol-Version', headers.protocolVersion, version);
  if (headers.method !== request.method) throw mismatch('Mcp-Method', headers.method, request.method);
  if (request.method === 'tools/call') {
    const name = request.params?.name;
    if (typeof name === 'string' && decodeHeaderValue(headers.name) !== name) throw mismatch('Mcp-Name', headers.name, name);
  }
}

/** A header value as sent: plain, or `=?base64?<base64 of UTF-8>?=` for values a header cannot hold. */
export function decodeHeaderValue(value: string | undefined): string | undefined {
  const encoded = value === undefined ? undefined : /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/.exec(value.trim());
  if (!encoded) return value?.trim();
  return Buffer.from(encoded[1] ?? '', 'base64').toString('utf8');
}
