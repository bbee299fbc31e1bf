/**
 * The engine's MCP tool server, one handler per endpoint (`/.api/mcp/v1`, and 2026's
 * `/.api/mcp/all`, `/.api/mcp`, `/.api/mcp/deepsearch`): Model Context Protocol over Streamable HTTP,
 * stateless, JSON replies (streamableHttp.ts), in both lanes of the protocol: the 2025 handshake's
 * (protocol.ts) and the 2026-07-28 revision's (stateless.ts). The caller is already authenticated;
 * each tool call has its arguments checked against the tool's schema, runs with that user, a
 * cancellation signal and a time budget, and every failure becomes a tool error whose text says
 * what to change.
 */
import { setMaxListeners } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ToolServerEndpoint } from '../../contract/toolServers';
import type { AuthenticatedUser } from '../http/auth';
import type { ServedRepository } from '../git/repos';
import type { DeepSearchBackend } from '../repo/context';
import { mcpMethods, PROTOCOL_VERSIONS, type CallToolResult, type ToolCatalogue } from './protocol';
import { statelessMethods } from './stateless';
import type { SymbolTables } from '../code/symbolTable';
import { RepoCaches } from '../repo/repoCaches';
import { RegexWorker } from '../search/regex';
import { ProcessLauncher } from '../git/processLauncher';
import { searchIndexesFor, type SearchIndexes } from '../search/searchIndex';
import { MAX_BATCH_MESSAGES, serveStreamableHttp, type ProtocolLanes } from './streamableHttp';
import { toolTable, type ToolResult } from '../tools/toolCalls';
import type { Slots } from '../runtime/slots';

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
  /** What reading repositories keeps, and the regular-expression worker: the engine's own, shared by its endpoints and answers. */
  caches?: RepoCaches;
  /** Without: a worker of this handler's own (an idle worker keeps nothing alive). */
  regex?: RegexWorker;
  /** The engine's process launcher; without: this handler's own (an idle one keeps nothing alive). */
  launcher?: ProcessLauncher;
  /** The protocol lanes served: the 2025 handshake, the 2026-07-28 stateless revision, or both (default). */
  lanes?: ProtocolLanes;
}

export type McpHandler = (request: IncomingMessage, response: ServerResponse, user: AuthenticatedUser) => Promise<void>;

/** Tool calls at once, engine-wide: enough for an agent's parallel calls, few enough to keep GETs quick. */
export const DEFAULT_TOOL_SLOTS = 4;

export function createMcpHandler(options: McpHandlerOptions): McpHandler {
  const pcre = { available: undefined as boolean | undefined };
  const launcher = options.launcher ?? new ProcessLauncher();
  const shared = {
    repositories: options.repositories,
    instanceUrl: options.instanceUrl,
    deepSearch: options.deepSearch,
    deepSearchWaitMs: options.deepSearchWaitMs ?? DEFAULT_DEEP_SEARCH_WAIT_MS,
    pcre,
    caches: options.caches ?? new RepoCaches(),
    regex: options.regex ?? new RegexWorker(),
    launcher,
    // One set of search indexes per engine, shared by its endpoints (keyed by its repository list).
    searchIndexes: options.searchIndexes ?? searchIndexesFor(options.repositories, options.shuttingDown, { log: options.log, launcher }),
    ...(options.symbolTables ? { symbolTables: options.symbolTables } : {}),
  };
  const endpoint = options.endpoint ?? 'v1';
  const tools = toolTable(endpoint, new Set(options.disabledTools), options.log);
  const listed = [...tools.values()].map((tool) => tool.listed);
  const lanes = options.lanes ?? 'both';
  // The handshake's versions the endpoint keeps beside the stateless lane (its errors name them).
  const handshakeVersions = lanes === '2026' ? [] : PROTOCOL_VERSIONS;
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
          return asCallToolResult(await options.toolSlots.run(() => tool.call(args, { ...shared, user, signal: callSignal }), callSignal));
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
    const stateless = statelessMethods(server, catalogue, handshakeVersions);
    try {
      await serveStreamableHttp(request, response, {
        answer: (message) => answer(message, signal),
        stateless: (message, headers) => stateless(message, headers, signal),
        lanes,
        log: options.log,
      });
    } finally {
      response.off('close', onClose);
    }
  };
}

/**
 * A tool's result as MCP carries it: its text, then its notes, as text parts, and its structured
 * content; a failure is a result with `isError`, worded as the SDK's server words schema failures.
 */
function asCallToolResult(result: ToolResult): CallToolResult {
  if (!result.ok) {
    const { kind, message } = result.failure;
    const prefix = kind === 'arguments' ? 'MCP error -32602: Input validation error: ' : kind === 'output' ? 'MCP error -32602: Output validation error: ' : '';
    return toolError(`${prefix}${message}`);
  }
  return {
    content: [result.text, ...result.notes].map((text) => ({ type: 'text' as const, text })),
    structuredContent: result.structured,
  };
}

function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
