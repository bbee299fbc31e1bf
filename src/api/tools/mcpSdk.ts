/**
 * The parts of the official MCP SDK (2.x) the tool client uses, bundled on their own as
 * `dist/mcp.js` and loaded on the first tool call: most sessions never need them. The 2.x client
 * speaks both revisions: the 2026-07-28 stateless one where the server does, else the 2025 handshake.
 */
import type { JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/client';

export { Client, SdkError, SdkErrorCode, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

/**
 * Tool results are read field by field (toolResults.ts), so that a result missing a field degrades
 * instead of failing, and real servers publish JSON Schema 2020-12 in forms a strict validator
 * rejects. So the client validates nothing with schemas, and the bundle leaves ajv out (esbuild.mjs).
 */
export const noOutputValidation: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input: unknown) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};
