/**
 * Starts the local engine: an HTTP server on 127.0.0.1 that serves the conversation API from the
 * given git repositories, authenticates every call, applies injected faults, and shuts down
 * without losing an acknowledged write.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { API_PATH } from '../contract/legacyWire';
import { CONNECT_SERVICE_PATH } from '../contract/connectWire';
import { isToolServerTool, TOOL_SERVER_ENDPOINTS, TOOL_SERVER_TOOLS, type ToolServerEndpoint } from '../contract/toolServers';
import { Answerer } from './answers/answerer';
import { boundedLimits } from './models/chatModel';
import { searchIndexesFor } from './search/searchIndex';
import { SymbolTables } from './code/symbolTable';
import { connectApiRoute, connectCodeOfStatus, ConnectError, connectErrorReply, isConnectPath } from './conversations/connectRoutes';
import { lockDataDir } from './storage/dataDirLock';
import { UserDirectory } from './http/auth';
import { CorsPolicy } from './http/cors';
import { ConversationService, type ResolvedVariant } from './conversations/service';
import { ClientGoneError, errorReply, HttpError, sendReply, type Reply } from './http/http';
import { routeFor, type Route } from './http/routeTable';
import type { EngineFault, EngineFaults, EngineOptions, EngineVariant, RunningEngine } from './options';
import { createMcpHandler, DEFAULT_TOOL_SLOTS, type McpHandler } from './mcp/server';
import { protectedResourceRoute, toolServerRoute } from './mcp/toolServerRoutes';
import { discoverRepositories, type ServedRepository } from './git/repos';
import { ProcessLauncher } from './git/processLauncher';
import { RepoCaches } from './repo/repoCaches';
import { RegexWorker } from './search/regex';
// For the scripts that run the engine in their own process (npm start): the environment it wants.
export { ENGINE_ENVIRONMENT } from '../contract/engineProcess';
// For the engine the extension runs (hosted.ts): the model the extension host runs for it.
export { ModelBroker } from './models/brokeredModel';
// For `npm start`: the engine's options as the CLI reads them, and the model they name.
export { parseArgs as parseEngineArgs } from './cliArgs';
export { configuredModel } from './models/configuredModel';
import { legacyApiRoute } from './conversations/routes';
import { GENERATED_FILE_PATH, generatedFileRoute, newQuestionPageRoute, redactSharePath, sharePageRoute } from './conversations/pageRoutes';
import { Slots } from './runtime/slots';
import { AuthorizationServer } from './oauth/authorizationServer';
import { OAUTH_BASE_PATH, OAUTH_PATHS } from '../contract/oauthWire';
import { ConversationStorage } from './conversations/storage';
import { errorMessage } from '../contract/errorMessage';

export const DEFAULT_PACE_MS = 150;

export function resolveVariant(variant: EngineVariant = {}): ResolvedVariant {
  return {
    createStatus: variant.createStatus ?? 200,
    listShape: variant.listShape ?? 'array',
    followupReturns: variant.followupReturns ?? 'question',
    cancelStyle: variant.cancelStyle ?? 'error',
    failureStyle: variant.failureStyle ?? 'error',
    deleteStatus: variant.deleteStatus ?? 204,
    toolServer: variant.toolServer ?? 'both',
    toolProtocol: variant.toolProtocol ?? 'both',
    disabledTools: variant.disabledTools ?? [],
    mcpAccess: variant.mcpAccess ?? 'allowed',
    conversationApis: variant.conversationApis ?? 'both',
    connectQuestions: variant.connectQuestions ?? 'rich',
  };
}

/** Validates the options, loads the store, listens, and resumes unfinished questions. */
export async function startEngine(options: EngineOptions): Promise<RunningEngine> {
  const log = options.log ?? ((): void => undefined);
  const paceMs = options.paceMs ?? DEFAULT_PACE_MS;
  if (!Number.isFinite(paceMs) || paceMs < 0) throw new Error(`paceMs must be a number of milliseconds ≥ 0, not ${paceMs}.`);
  const unknownTool = options.variant?.disabledTools?.find((name) => !isToolServerTool(name));
  if (unknownTool !== undefined) {
    throw new Error(
      `disabledTools: ${JSON.stringify(unknownTool.slice(0, 60))} is not a tool; name tools as 2026 servers do: ${TOOL_SERVER_TOOLS.join(', ')}.`,
    );
  }
  const users = new UserDirectory(options.users);
  const cors = new CorsPolicy(options.corsOrigins);
  // The engine's process launcher starts while the engine is small (processLauncher.ts); it stops with the engine.
  const launcher = new ProcessLauncher();
  launcher.start();
  let repositories: ServedRepository[];
  let lock: Awaited<ReturnType<typeof lockDataDir>>;
  try {
    repositories = await discoverRepositories(options.repos, launcher);
    await mkdir(options.dataDir, { recursive: true });
    lock = await lockDataDir(options.dataDir);
  } catch (error) {
    await launcher.close();
    throw error;
  }
  let server: ReturnType<typeof createServer>;
  let port: number;
  let loaded: Awaited<ReturnType<typeof ConversationStorage.open>>;
  try {
    loaded = await ConversationStorage.open(options.dataDir, log);
    server = createServer({ keepAliveTimeout: 5_000 });
    port = await listenOnRememberedPort(server, options.dataDir, options.port);
  } catch (error) {
    await lock.release();
    await launcher.close();
    throw error;
  }
  const { storage, records, counters } = loaded;
  const url = `http://127.0.0.1:${port}`;
  const variant = resolveVariant(options.variant);
  const shuttingDown = new AbortController();
  // One search stack: the answerer searches with the tools' indexes (the same set, keyed by the repositories).
  const searchIndexes = searchIndexesFor(repositories, shuttingDown.signal, {
    log,
    ...(options.ripgrepPath ? { ripgrepPath: options.ripgrepPath } : {}),
    ...(options.indexBudgetBytes !== undefined ? { budgetBytes: options.indexBudgetBytes } : {}),
    filterDir: path.join(options.dataDir, 'search-filters'),
    launcher,
  });
  // What reading repositories keeps, and the worker for callers' regular expressions: this engine's own.
  const caches = new RepoCaches();
  const regex = new RegexWorker();
  const symbolTables = new SymbolTables({ dir: path.join(options.dataDir, 'symbols'), log, signal: shuttingDown.signal });
  const answerer = new Answerer({
    repositories,
    instanceUrl: url,
    paceMs,
    searchIndexes,
    symbolTables,
    caches,
    regex,
    launcher,
    maxConcurrentAnswers: options.limits?.answers,
    ...(options.model ? { model: options.model } : {}),
    investigationLimits: () => {
      const limits = options.investigationLimits;
      return boundedLimits(typeof limits === 'function' ? limits() : limits);
    },
    disabledTools: variant.disabledTools,
    log,
  });
  // Each commit's symbol table is built when an answer or a natural-language search first needs it:
  // the start-up work is the filters' (a first search needs them), and takes no time from it.
  void searchIndexes.prepare(repositories, { filters: options.filtersAtStart ?? true });
  const service = new ConversationService({
    storage,
    records,
    counters,
    answer: (request) => answerer.answer(request),
    instanceUrl: url,
    sharing: options.sharing ?? true,
    paceMs,
    variant,
    faults: options.faults ?? {},
    log,
  });
  const inFlight = new Set<Promise<void>>();
  // One bound for both endpoints: a batch of calls on one must not starve the engine either.
  const toolSlots = new Slots(options.limits?.toolCalls ?? DEFAULT_TOOL_SLOTS);
  const mcpOptions = {
    repositories,
    deepSearch: service,
    instanceUrl: url,
    shuttingDown: shuttingDown.signal,
    log,
    toolSlots,
    searchIndexes,
    symbolTables,
    caches,
    regex,
    launcher,
    disabledTools: variant.disabledTools,
    lanes: variant.toolProtocol,
  };
  const toolServers = new Map<string, McpHandler>(
    servedToolEndpoints(variant.toolServer).map((endpoint) => [TOOL_SERVER_ENDPOINTS[endpoint], createMcpHandler({ ...mcpOptions, endpoint })] as const),
  );

  const authorizationServer =
    options.oauth === false
      ? undefined
      : await AuthorizationServer.open(url, users.accounts(), options.oauth, { file: path.join(options.dataDir, 'oauth-tokens.json'), log });
  if (authorizationServer) users.trustIssuer(authorizationServer);

  // The engine's one route table: the first route whose path matches answers (http/routeTable.ts).
  const routes: Route[] = [
    ...[...toolServers].map(([toolPath, serve]) =>
      toolServerRoute(toolPath, serve, { url, users, cors, mcpAccess: variant.mcpAccess, oauth: authorizationServer !== undefined }),
    ),
    ...(authorizationServer ? [authorizationServer.route(), protectedResourceRoute(url, new Set(toolServers.keys()))] : []),
    // A 6.x server (`legacy`) has no Connect API, a 7.x one without the old API (`connect`) none of the other: their paths are a plain 404.
    ...(variant.conversationApis !== 'legacy' ? [connectApiRoute({ service, variant, users, shuttingDown: shuttingDown.signal, log })] : []),
    ...(variant.conversationApis !== 'connect' ? [legacyApiRoute({ service, variant, users })] : []),
    generatedFileRoute({ service, users }),
    newQuestionPageRoute(),
    sharePageRoute({ service, users }),
  ];
  const apis =
    variant.conversationApis === 'connect'
      ? CONNECT_SERVICE_PATH
      : variant.conversationApis === 'legacy'
        ? API_PATH
        : `${API_PATH} and ${CONNECT_SERVICE_PATH}`;

  const doors: Doors = {
    url,
    routes,
    notFound: `the conversation API is at ${apis}`,
    cors,
    faults: options.faults,
    variant,
    shuttingDown: shuttingDown.signal,
    log,
  };
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const done = serveRequest(doors, request, response).catch((error: unknown) => {
      log(`request failed after its reply started: ${errorMessage(error)}`);
      response.destroy();
    });
    inFlight.add(done);
    void done.finally(() => inFlight.delete(done));
  });
  service.resumeProcessing();
  log(`engine listening on ${url}, serving ${repositories.map((repo) => repo.name).join(', ')}`);

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      shuttingDown.abort();
      const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await service.shutdown();
      await Promise.allSettled([...inFlight]);
      server.closeAllConnections();
      await serverClosed;
      await storage.idle();
      await authorizationServer?.idle();
      // No filter is written into the folder once another engine may hold it.
      await searchIndexes.idle();
      await symbolTables.idle();
      await regex.close();
      await launcher.close();
      await lock.release();
    })();
    return closed;
  };
  return { url, port, repoNames: repositories.map((repo) => repo.name), owned: { caches, regex, launcher }, close };
}

/** What answers a request: the route table, and what the engine does before and around it. */
interface Doors {
  url: string;
  routes: readonly Route[];
  /** What the 404 of a path no route serves adds (where the API is). */
  notFound: string;
  cors: CorsPolicy;
  faults: EngineFaults | undefined;
  variant: ResolvedVariant;
  shuttingDown: AbortSignal;
  log: (line: string) => void;
}

/**
 * Answers one request: CORS for the paths a web page may call, injected faults, then the first
 * route that serves the path; every failure becomes an error reply, and each request one log line
 * (with share links' read tokens left out).
 */
async function serveRequest(doors: Doors, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const { url, routes, cors, variant, shuttingDown, log } = doors;
  const started = Date.now();
  const method = request.method ?? 'GET';
  let path = '/';
  let truncate = false;
  try {
    const target = new URL(request.url ?? '/', url);
    path = target.pathname;
    // Before faults: an instance's own errors reach an allowed page as readable as its answers.
    if (corsCovers(path)) {
      cors.decorate(request, response);
      if (cors.answerPreflight(request, response)) {
        log(`${method} ${redactSharePath(path)} ${response.statusCode} (preflight) ${Date.now() - started}ms`);
        return;
      }
    }
    const fault = doors.faults?.request?.({ method, path });
    if (fault?.kind === 'reset') {
      request.socket.destroy();
      log(`${method} ${redactSharePath(path)} reset (injected fault)`);
      return;
    }
    if (fault?.kind === 'status') {
      sendReply(response, faultReply(fault, variant.conversationApis !== 'legacy' && isConnectPath(path)));
      log(`${method} ${redactSharePath(path)} ${fault.status} (injected fault)`);
      return;
    }
    if (fault?.kind === 'delay') await sleep(fault.ms, undefined, { signal: shuttingDown });
    truncate = fault?.kind === 'malformed';
    const call = { request, response, method, path, query: target.searchParams };
    const route = routeFor(routes, call);
    if (!route) throw new HttpError(404, `Nothing is served at ${path}: ${doors.notFound}.`);
    const outcome = await route.handle(call);
    if (outcome !== 'sent') sendReply(response, outcome, truncate);
    // The route wrote its reply itself (the MCP transport): no injected fault cut it short.
    else truncate = false;
  } catch (error) {
    if (error instanceof ClientGoneError) {
      log(`${method} ${redactSharePath(path)} client closed the connection mid-request ${Date.now() - started}ms`);
      return;
    }
    sendReply(response, errorReply(asHttpError(error, shuttingDown, log)), truncate);
  }
  log(`${method} ${redactSharePath(path)} ${response.statusCode}${truncate ? ' truncated (injected fault)' : ''} ${Date.now() - started}ms`);
}

/**
 * Without an explicit port, the engine listens where it did last time for this data folder, so
 * the absolute links in stored answers keep working after a restart; any free port otherwise.
 */
async function listenOnRememberedPort(server: ReturnType<typeof createServer>, dataDir: string, port: number | undefined): Promise<number> {
  const file = path.join(dataDir, 'last-port');
  if (port === undefined) {
    const remembered = Number.parseInt(await readFile(file, 'utf8').catch(() => ''), 10);
    const tried =
      remembered > 0 && remembered < 65536
        ? await listen(server, remembered).then(
            () => true,
            () => false,
          )
        : false;
    if (!tried) await listen(server, 0);
  } else {
    await listen(server, port);
  }
  const actual = (server.address() as AddressInfo).port;
  await writeFile(file, `${actual}\n`);
  return actual;
}

function listen(server: ReturnType<typeof createServer>, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** The endpoints of each `toolServer` variant: 2026's family, v1, both, or none. */
export function servedToolEndpoints(toolServer: ResolvedVariant['toolServer']): ToolServerEndpoint[] {
  const current: ToolServerEndpoint[] = ['all', 'curated', 'deepsearch'];
  switch (toolServer) {
    case 'both':
      return [...current, 'v1'];
    case 'current':
      return current;
    case 'v1':
      return ['v1'];
    case 'none':
      return [];
  }
}

/**
 * The paths a web page may call with `--cors-origin`: both conversation APIs, the tool servers,
 * OAuth's endpoints and metadata, an answer's generated files. Not the pages a person opens (the
 * consent and device pages, share pages): another site never reads those.
 */
function corsCovers(path: string): boolean {
  if (path.startsWith('/.api/') || isConnectPath(path) || path.startsWith('/.well-known/') || GENERATED_FILE_PATH.test(path)) return true;
  return path.startsWith(`${OAUTH_BASE_PATH}/`) && path !== OAUTH_PATHS.authorize && path !== OAUTH_PATHS.device;
}

function faultReply(fault: Extract<EngineFault, { kind: 'status' }>, connect: boolean): Reply {
  if (fault.body === undefined) {
    const message = `Injected fault: the engine answered ${fault.status} on purpose.`;
    // The Connect API's errors are Connect errors, with the status asked for.
    if (connect) return connectErrorReply(new ConnectError(connectCodeOfStatus(fault.status), message, fault.status));
    return errorReply(new HttpError(fault.status, message));
  }
  return { status: fault.status, body: fault.body, contentType: fault.contentType ?? 'text/plain; charset=utf-8' };
}

function asHttpError(error: unknown, shuttingDown: AbortSignal, log: (line: string) => void): HttpError {
  if (error instanceof HttpError) return error;
  if (shuttingDown.aborted) return new HttpError(503, 'The engine is shutting down: try again once it is running.');
  if (error instanceof URIError) return new HttpError(400, 'The request path is not valid percent-encoding.');
  const message = errorMessage(error);
  log(`internal error: ${error instanceof Error && error.stack ? error.stack : message}`);
  return new HttpError(500, `Internal engine error: ${message}. The engine log has details.`);
}
