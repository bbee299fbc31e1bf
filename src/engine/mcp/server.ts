/**
 * The engine's MCP tool server, one handler per endpoint (`/.api/mcp/v1`, and 2026's
 * `/.api/mcp/all`, `/.api/mcp`, `/.api/mcp/deepsearch`): Model Context Protocol over Streamable HTTP,
 * stateless, JSON replies (streamableHttp.ts, protocol.ts). The caller is already authenticated;
 * each tool call has its arguments checked against the tool's schema, runs with that user, a
 * cancellation signal and a time budget, and every failure becomes a tool error whose text says
 * what to change.
 */
import { setMaxListeners } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ToolServerEndpoint } from '../../contract/toolServers';
import type { AuthenticatedUser } from '../auth';
import { GitError } from '../git';
import type { ServedRepository } from '../repos';
import { TOOL_BUDGET_MS, ToolError, type DeepSearchBackend, type ToolContext } from '../tools/context';
import type { Params } from './jsonRpc';
import { problems } from '../tools/jsonSchema';
import { mcpMethods, type CallToolResult, type ListedTool, type ToolCatalogue } from './protocol';
import type { SymbolTables } from '../code/symbolTable';
import { searchIndexesFor, type SearchIndexes } from '../search/searchIndex';
import { MAX_BATCH_MESSAGES, serveStreamableHttp } from './streamableHttp';
import { endpointTools, plainToolNames, type ToolDefinition } from '../tools/tools';
import type { Slots } from '../slots';
import { errorMessage } from '../errorMessage';

export const MCP_SERVER_NAME = 'deep-search-local-engine';
export const MCP_SERVER_VERSION = '0.1.0';
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
  /** Tool calls run at once across the engine; the rest wait in order. */
  toolSlots: Slots;
  /** Which endpoint this is: its tools, their names and arguments (contract/toolServers.ts). Default `v1`. */
  endpoint?: ToolServerEndpoint;
  /** Tools (2026 names) an admin disabled: absent from tools/list, and "not found" when called. */
  disabledTools?: readonly string[];
  /** The engine's search indexes; default: a set of this handler's own (ripgrep.ts: none). */
  searchIndexes?: SearchIndexes;
  /** The engine's symbol tables (natural-language search ranks by definitions); none: by its text only. */
  symbolTables?: SymbolTables;
}

export type McpHandler = (request: IncomingMessage, response: ServerResponse, user: AuthenticatedUser) => Promise<void>;

/** Tool calls at once, engine-wide: enough for an agent's parallel calls, few enough to keep GETs quick. */
export const DEFAULT_TOOL_SLOTS = 4;

export function createMcpHandler(options: McpHandlerOptions): McpHandler {
  const pcre = { available: undefined as boolean | undefined };
  const shared = {
    repositories: options.repositories,
    instanceUrl: options.instanceUrl,
    deepSearch: options.deepSearch,
    deepSearchWaitMs: options.deepSearchWaitMs ?? DEFAULT_DEEP_SEARCH_WAIT_MS,
    pcre,
    // One set of search indexes per engine, shared by its endpoints (keyed by its repository list).
    searchIndexes: options.searchIndexes ?? searchIndexesFor(options.repositories, options.shuttingDown, { log: options.log }),
    ...(options.symbolTables ? { symbolTables: options.symbolTables } : {}),
  };
  const endpoint = options.endpoint ?? 'v1';
  const tools = toolTable(endpoint, new Set(options.disabledTools), options.log);
  const listed = [...tools.values()].map((tool) => tool.listed);
  const server = { name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION };
  return async (request, response, user) => {
    // Tool calls stop when the client goes away before its answer, or when the engine stops.
    const gone = new AbortController();
    const onClose = (): void => {
      if (!response.writableFinished) gone.abort();
    };
    response.on('close', onClose);
    const signal = AbortSignal.any([gone.signal, options.shuttingDown]);
    // Each call of a batch listens for the request's end once (its own signal, below).
    setMaxListeners(MAX_BATCH_MESSAGES + 16, signal);
    const catalogue: ToolCatalogue = {
      tools: listed,
      call: async (name, args, requestSignal) => {
        const tool = tools.get(name);
        // A tool error rather than a protocol error, as the SDK's server reported it, so that an agent reads it.
        if (!tool) return toolError(`MCP error -32602: Tool ${name} not found`);
        // A search of many repositories waits on several git processes and index workers at once,
        // each listening for the call's end (and letting go when done): a few per repository.
        const callSignal = AbortSignal.any([requestSignal]);
        setMaxListeners(16 + 8 * options.repositories.length, callSignal);
        try {
          return await options.toolSlots.run(() => tool.call(args, { ...shared, user, signal: callSignal }), callSignal);
        } catch (error) {
          // Cancelled while waiting for its turn.
          if (callSignal.aborted) return toolError('The request was cancelled.');
          throw error;
        } finally {
          // The indexes its searches asked for start now that it is answered.
          shared.searchIndexes.buildWanted();
        }
      },
    };
    const answer = mcpMethods(server, catalogue);
    try {
      await serveStreamableHttp(request, response, { answer: (message) => answer(message, signal), log: options.log });
    } finally {
      response.off('close', onClose);
    }
  };
}

interface ServedTool {
  listed: ListedTool;
  call(args: Params, context: ToolContext): Promise<CallToolResult>;
}

/** The tools of an endpoint by the names it gives them. */
function toolTable(endpoint: ToolServerEndpoint, disabled: ReadonlySet<string>, log: (line: string) => void): Map<string, ServedTool> {
  const table = new Map<string, ServedTool>();
  // The 2026 endpoints' messages name the tools as those endpoints do.
  const speak = endpoint === 'v1' ? (text: string): string => text : plainToolNames;
  for (const entry of endpointTools(endpoint, disabled)) {
    entry.use((definition) => {
      const name = definition.name;
      table.set(name, {
        listed: {
          name,
          title: definition.title,
          description: definition.description,
          inputSchema: definition.input,
          outputSchema: definition.output,
          annotations: { title: definition.title, readOnlyHint: definition.readOnly, openWorldHint: false },
        },
        call: async (args, context) => {
          const result = await callTool(definition, name, args, context, log);
          // The first text block is the result itself (it may quote code); errors and notes are the engine's words.
          return { ...result, content: result.content.map((part, index) => (result.isError || index > 0 ? { ...part, text: speak(part.text) } : part)) };
        },
      });
    });
  }
  return table;
}

async function callTool<I, O>(definition: ToolDefinition<I, O>, name: string, args: Params, context: ToolContext, log: (line: string) => void): Promise<CallToolResult> {
  const wrong = problems(definition.input, args);
  if (wrong.length > 0) {
    return toolError(`MCP error -32602: Input validation error: Invalid arguments for tool ${name}: ${wrong.join('; ')}.`);
  }
  const budget = definition.budgeted ? AbortSignal.timeout(TOOL_BUDGET_MS) : undefined;
  const signal = budget ? AbortSignal.any([context.signal, budget]) : context.signal;
  try {
    // The check above is what makes the arguments an I.
    const output = await definition.run({ ...context, signal }, args as I);
    // The result is checked too, so that a client never gets one its output schema rejects.
    const unfit = problems(definition.output, output.structured);
    if (unfit.length > 0) {
      log(`mcp ${name}: result does not fit the output schema: ${unfit.join('; ')}`);
      return toolError(`MCP error -32602: Output validation error: Invalid structured content for tool ${name}: ${unfit.join('; ')}.`);
    }
    const content: CallToolResult['content'] = [{ type: 'text', text: output.text }];
    for (const note of output.notes ?? []) content.push({ type: 'text', text: note });
    return { content, structuredContent: output.structured as Record<string, unknown> };
  } catch (error) {
    if (budget?.aborted) {
      return toolError(`${name} took longer than ${TOOL_BUDGET_MS / 1000} s and was stopped: narrow the request (a repo: or file: filter, fewer repositories, a shorter date range, a smaller range).`);
    }
    if (error instanceof ToolError) return toolError(error.message);
    const message = errorMessage(error);
    if (error instanceof GitError) {
      log(`mcp ${name}: git failed: ${message}`);
      return toolError(`${name} failed in git: ${message}. Check the arguments; the engine log has details.`);
    }
    log(`mcp ${name}: internal error: ${error instanceof Error && error.stack ? error.stack : message}`);
    return toolError(`${name} hit an internal engine error: ${message}. The engine log has details.`);
  }
}

function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
