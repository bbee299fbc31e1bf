/**
 * The engine's MCP tool server at `/.api/mcp/v1`: Model Context Protocol over Streamable HTTP with
 * the official SDK, stateless (a fresh server and transport per POST), JSON replies. The caller is
 * already authenticated; each tool runs with that user, a cancellation signal and a time budget, and
 * every failure becomes a tool error whose text says what to change.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { AuthenticatedUser } from '../auth';
import { GitError } from '../git';
import type { ServedRepository } from '../repos';
import { TOOL_BUDGET_MS, ToolError, type DeepSearchBackend, type ToolContext } from './context';
import { TOOLS, type ToolDefinition } from './tools';

export const MCP_SERVER_NAME = 'deep-search-local-engine';
export const MCP_SERVER_VERSION = '0.1.0';
const MAX_REQUEST_BYTES = 1024 * 1024;
const DEFAULT_DEEP_SEARCH_WAIT_MS = 5 * 60_000;

export interface McpHandlerOptions {
  repositories: readonly ServedRepository[];
  deepSearch: DeepSearchBackend;
  instanceUrl: string;
  /** Aborts every tool call when the engine stops. */
  shuttingDown: AbortSignal;
  log: (line: string) => void;
  /** How long `sg_deepsearch` waits for an answer before it returns a link instead. Default 5 min. */
  deepSearchWaitMs?: number;
  /** `sg`: the tools as `/.api/mcp/v1` names them (`sg_read_file`); `plain`: as `/.api/mcp` does (`read_file`). Default `sg`. */
  toolNames?: 'sg' | 'plain';
}

export type McpHandler = (request: IncomingMessage, response: ServerResponse, user: AuthenticatedUser) => Promise<void>;

export function createMcpHandler(options: McpHandlerOptions): McpHandler {
  const pcre = { available: undefined as boolean | undefined };
  return async (request, response, user) => {
    if (request.method !== 'POST') {
      rejectMethod(response, request.method ?? 'GET');
      return;
    }
    const gone = new AbortController();
    const onClose = (): void => {
      if (!response.writableFinished) gone.abort();
    };
    response.on('close', onClose);
    const signal = AbortSignal.any([gone.signal, options.shuttingDown]);
    const server = new McpServer({ name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION }, { capabilities: { tools: {} } });
    const base = {
      repositories: options.repositories,
      user,
      instanceUrl: options.instanceUrl,
      deepSearch: options.deepSearch,
      deepSearchWaitMs: options.deepSearchWaitMs ?? DEFAULT_DEEP_SEARCH_WAIT_MS,
      pcre,
    };
    const plain = options.toolNames === 'plain';
    for (const entry of TOOLS) {
      entry.use((definition) => register(server, plain ? { ...definition, name: definition.name.replace(/^sg_/, '') } : definition, base, signal, options.log));
    }
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: MAX_REQUEST_BYTES });
    try {
      await server.connect(transport);
      await transport.handleRequest(request, response);
    } finally {
      response.off('close', onClose);
      await transport.close().catch(() => undefined);
      await server.close().catch(() => undefined);
    }
  };
}

function register<I extends z.ZodObject, O extends z.ZodObject>(
  server: McpServer,
  definition: ToolDefinition<I, O>,
  base: Omit<ToolContext, 'signal'>,
  requestSignal: AbortSignal,
  log: (line: string) => void,
): void {
  // Registered under the plain object type; the arguments are re-parsed with the tool's own schema.
  const inputSchema: z.ZodObject = definition.input;
  const outputSchema: z.ZodObject = definition.output;
  server.registerTool(
    definition.name,
    {
      title: definition.title,
      description: definition.description,
      inputSchema,
      outputSchema,
      annotations: { title: definition.title, readOnlyHint: definition.readOnly, openWorldHint: false },
    },
    async (args, extra): Promise<CallToolResult> => {
      const budget = definition.budgeted ? AbortSignal.timeout(TOOL_BUDGET_MS) : undefined;
      const signal = AbortSignal.any([requestSignal, extra.signal, ...(budget ? [budget] : [])]);
      try {
        const output = await definition.run({ ...base, signal }, definition.input.parse(args));
        const content: CallToolResult['content'] = [{ type: 'text', text: output.text }];
        for (const note of output.notes ?? []) content.push({ type: 'text', text: note });
        return { content, structuredContent: output.structured as Record<string, unknown> };
      } catch (error) {
        if (budget?.aborted) {
          return toolError(`${definition.name} took longer than ${TOOL_BUDGET_MS / 1000} s and was stopped: narrow the request (a repo: or file: filter, fewer repositories, a shorter date range, a smaller range).`);
        }
        if (error instanceof ToolError) return toolError(error.message);
        const message = error instanceof Error ? error.message : String(error);
        if (error instanceof GitError) {
          log(`mcp ${definition.name}: git failed: ${message}`);
          return toolError(`${definition.name} failed in git: ${message}. Check the arguments; the engine log has details.`);
        }
        log(`mcp ${definition.name}: internal error: ${error instanceof Error && error.stack ? error.stack : message}`);
        return toolError(`${definition.name} hit an internal engine error: ${message}. The engine log has details.`);
      }
    },
  );
}

function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** Stateless server: no SSE stream to open (GET) and no session to end (DELETE). */
function rejectMethod(response: ServerResponse, method: string): void {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    error: { code: -32000, message: `${method} is not supported: this stateless MCP endpoint takes JSON-RPC messages by POST.` },
    id: null,
  });
  response.writeHead(405, { Allow: 'POST', 'Content-Type': 'application/json', 'Cache-Control': 'no-store', 'Content-Length': Buffer.byteLength(body) });
  response.end(body);
}
