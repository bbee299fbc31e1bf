/**
 * What the tool client (`api/tools/mcpSession.ts`) and the engine's tool server (`engine/mcp/`)
 * both speak of MCP: the protocol revisions, the `_meta` keys of the stateless revision and the
 * JSON-RPC error codes they read and write. One copy, so that client and server cannot drift apart.
 */

/** The stateless revision: no handshake, no session; each request carries its version. */
export const STATELESS_VERSION = '2026-07-28';
/** The handshake's versions, newest first (those the official SDK 1.x speaks, older clients included). */
export const HANDSHAKE_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];
export const LATEST_HANDSHAKE_VERSION = '2025-11-25';

/** The stateless revision's `params._meta` keys. */
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

/** JSON-RPC 2.0's error codes, and those MCP adds. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
/** Implementation-defined server error: what the Streamable HTTP transport reports with an HTTP error status. */
export const SERVER_ERROR = -32000;
/** The stateless revision: the request's headers and body disagree. */
export const HEADER_MISMATCH = -32020;
/** The stateless revision: the request's version is not one the server speaks (its data lists those). */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
