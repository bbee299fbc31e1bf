/**
 * The client for a Node extension host, bundled on its own as `dist/network.js` and loaded on the
 * first connection, not at activation: the platform-neutral connections (connections.ts) with
 * undici's transport (proxies, CA certificates) and the loopback listener of OAuth redirects. The
 * MCP session the tool client drives (src/api/tools/mcpSession.ts) is `dist/mcp.js`, loaded on the
 * first tool call. The code that activates may import only this module for its values (with
 * `import()`); elsewhere it imports types. The web bundle uses connections.ts with fetch instead.
 */
export * from './connections';
export { createUndiciTransport, type DispatcherOptions } from './undiciTransport';
export { LoopbackRedirect } from './oauth/loopbackRedirect';
