/**
 * The parts of the official MCP SDK the tool client uses, bundled on their own as `dist/mcp.js` and
 * loaded on the first tool call: most sessions never need them.
 */
import type { JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';

export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
export { CallToolResultSchema, ErrorCode, ListToolsResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';

/**
 * Tool results are read field by field (toolResults.ts), so that a result missing a field degrades
 * instead of failing, and real servers publish JSON Schema 2020-12, which the SDK's default
 * validator (ajv) rejects. So the client validates nothing with schemas, and the bundle leaves ajv
 * out (esbuild.mjs).
 */
export const noOutputValidation: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input: unknown) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};
