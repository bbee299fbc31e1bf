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
import {
  isToolServerTool,
  MCP_ACCESS_PERMISSION,
  MCP_TOKEN_SCOPE,
  TOOL_SERVER_ENDPOINTS,
  TOOL_SERVER_TOOLS,
  type ToolServerEndpoint,
} from '../contract/toolServers';
import { Answerer } from './answers/answerer';
import { boundedLimits } from './models/chatModel';
import { searchIndexesFor } from './search/searchIndex';
import { SymbolTables } from './code/symbolTable';
import { connectCodeOfStatus, ConnectError, connectErrorReply, handleConnectRequest } from './conversations/connectRoutes';
import { lockDataDir } from './storage/dataDirLock';
import { requireScope, UserDirectory, type AuthenticatedUser } from './http/auth';
import { echo } from './http/echo';
import { CorsPolicy } from './http/cors';
import { ConversationService, type ResolvedVariant } from './conversations/service';
import { ClientGoneError, errorReply, HttpError, jsonReply, parseJsonObject, readBody, sendReply, type Reply } from './http/http';
import type { EngineFault, EngineOptions, EngineVariant, RunningEngine } from './options';
import { createMcpHandler, DEFAULT_TOOL_SLOTS, type McpHandler } from './mcp/server';
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
import { handleApiRequest } from './conversations/routes';
import { renderNewQuestionPage, renderSharePage, SHARE_PAGE_CSP } from './conversations/sharePage';
import { Slots } from './runtime/slots';
import { AuthorizationServer } from './oauth/authorizationServer';
import { OAUTH_BASE_PATH, OAUTH_PATHS, PROTECTED_RESOURCE_METADATA_PATH } from '../contract/oauthWire';
import { ConversationStorage } from './conversations/storage';
import { errorMessage } from '../contract/errorMessage';

export const DEFAULT_PACE_MS = 150;
const SHARE_PATH = '/deepsearch/';
/** A path segment decoded, or as it is when it is not valid percent-encoding. */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** A file an answer generated: `/deepsearch/files/<conversation id>/<name>`, for its owner. */
const GENERATED_FILE_PATH = /^\/deepsearch\/files\/(\d{1,15})\/([^/]{1,400})$/;
const GENERATED_TYPES = new Set(['text/csv', 'application/json', 'image/svg+xml', 'text/plain']);
/** Where an instance's page starts a new question, its text in `?q=`. */
const NEW_QUESTION_PATH = '/deepsearch';

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

  const route = async (request: IncomingMessage, path: string, query: URLSearchParams): Promise<Reply> => {
    const method = request.method ?? 'GET';
    if (authorizationServer?.serves(path)) return authorizationServer.handle(request, path, query);
    // RFC 9728: what protects the tool server, for MCP clients that sign in by themselves.
    const resource = protectedResource(path);
    if (authorizationServer && resource !== undefined && toolServers.has(resource)) {
      if (method !== 'GET') throw new HttpError(405, `${method} is not supported here: use GET.`, { Allow: 'GET' });
      return jsonReply(200, {
        resource: `${url}${resource}`,
        authorization_servers: [url],
        scopes_supported: [MCP_TOKEN_SCOPE],
        bearer_methods_supported: ['header'],
      });
    }
    // The 7.x API; a 6.x server (`legacy`) has none, and answers its paths with a plain 404 below.
    if (variant.conversationApis !== 'legacy' && isConnectPath(path)) {
      return handleConnectRequest({ service, variant, users, shuttingDown: shuttingDown.signal, log }, request, path);
    }
    if (variant.conversationApis !== 'connect' && (path === API_PATH || path.startsWith(`${API_PATH}/`))) {
      const user = users.authenticate(request.headers.authorization);
      requireScope(user, method === 'GET' ? 'read' : 'write');
      if (!headerValue(request, 'x-requested-with')) {
        throw new HttpError(400, 'Missing X-Requested-With header: send "X-Requested-With: <client name> <client version>" on every call.');
      }
      return handleApiRequest(
        { service, variant },
        {
          method,
          path: path.slice(API_PATH.length) || '/',
          query,
          user,
          readJson: async (example) => parseJsonObject(await readBody(request), example),
        },
      );
    }
    // The share page: with sharing on, the read token in the link is the credential (browsers send
    // no token header); with sharing off, only the owner's Authorization header opens it.
    const generated = GENERATED_FILE_PATH.exec(path);
    if (generated) {
      if (method !== 'GET') throw new HttpError(405, `${method} is not supported here: use GET.`, { Allow: 'GET' });
      const user = users.authenticate(request.headers.authorization);
      requireScope(user, 'read');
      const file = service.generatedFile(user, Number(generated[1]), safeDecode(generated[2]));
      return {
        status: 200,
        body: file.text,
        contentType: GENERATED_TYPES.has(file.content_type) ? `${file.content_type}; charset=utf-8` : 'application/octet-stream',
        // Never shown as a page of the engine: downloaded, its type as said, nothing in it run.
        headers: {
          'Content-Disposition': `attachment; filename="${file.name}"`,
          'X-Content-Type-Options': 'nosniff',
          'Content-Security-Policy': "default-src 'none'; sandbox",
        },
      };
    }
    if (path === NEW_QUESTION_PATH) {
      if (method !== 'GET') throw new HttpError(405, `${method} is not supported here: use GET.`, { Allow: 'GET' });
      return {
        status: 200,
        body: renderNewQuestionPage(query.get('q') ?? ''),
        contentType: 'text/html; charset=utf-8',
        headers: { 'Content-Security-Policy': SHARE_PAGE_CSP, 'Referrer-Policy': 'no-referrer' },
      };
    }
    if (path.startsWith(SHARE_PATH)) {
      if (method !== 'GET') throw new HttpError(405, `${method} is not supported here: use GET.`, { Allow: 'GET' });
      const authorization = request.headers.authorization;
      const viewer = authorization ? users.authenticate(authorization) : undefined;
      const conversation = service.findShared(decodeURIComponent(path.slice(SHARE_PATH.length)), viewer?.id);
      if (!conversation) {
        throw new HttpError(404, 'No shared conversation at this link: it was deleted, its link was replaced, or sharing is off.');
      }
      return {
        status: 200,
        body: renderSharePage(conversation),
        contentType: 'text/html; charset=utf-8',
        headers: { 'Content-Security-Policy': SHARE_PAGE_CSP, 'Referrer-Policy': 'no-referrer' },
      };
    }
    const apis =
      variant.conversationApis === 'connect'
        ? CONNECT_SERVICE_PATH
        : variant.conversationApis === 'legacy'
          ? API_PATH
          : `${API_PATH} and ${CONNECT_SERVICE_PATH}`;
    throw new HttpError(404, `Nothing is served at ${path}: the conversation API is at ${apis}.`);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
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
          log(`${method} ${redact(path)} ${response.statusCode} (preflight) ${Date.now() - started}ms`);
          return;
        }
      }
      const fault = options.faults?.request?.({ method, path });
      if (fault?.kind === 'reset') {
        request.socket.destroy();
        log(`${method} ${redact(path)} reset (injected fault)`);
        return;
      }
      if (fault?.kind === 'status') {
        sendReply(response, faultReply(fault, variant.conversationApis !== 'legacy' && isConnectPath(path)));
        log(`${method} ${redact(path)} ${fault.status} (injected fault)`);
        return;
      }
      if (fault?.kind === 'delay') await sleep(fault.ms, undefined, { signal: shuttingDown.signal });
      truncate = fault?.kind === 'malformed';
      const mcp = toolServers.get(path);
      if (mcp) {
        // The tool server: same token as the conversation API; no X-Requested-With needed.
        if (!cors.allows(request.headers.origin)) checkToolServerOrigin(request.headers.origin, url);
        const user = toolServerUser(users, request.headers.authorization, authorizationServer ? `${url}${PROTECTED_RESOURCE_METADATA_PATH}${path}` : undefined);
        requireScope(user, 'mcp');
        if (variant.mcpAccess === 'denied') {
          throw new HttpError(
            403,
            `This account lacks the ${MCP_ACCESS_PERMISSION} permission, so the tool server (MCP) refuses it: ask a site administrator to grant it, ` +
              `and use a token with the ${MCP_TOKEN_SCOPE} scope.`,
          );
        }
        await mcp(request, response, user);
        log(`${method} ${path} ${response.statusCode} ${Date.now() - started}ms`);
        return;
      }
      sendReply(response, await route(request, path, target.searchParams), truncate);
    } catch (error) {
      if (error instanceof ClientGoneError) {
        log(`${method} ${redact(path)} client closed the connection mid-request ${Date.now() - started}ms`);
        return;
      }
      sendReply(response, errorReply(asHttpError(error, shuttingDown.signal, log)), truncate);
    }
    log(`${method} ${redact(path)} ${response.statusCode}${truncate ? ' truncated (injected fault)' : ''} ${Date.now() - started}ms`);
  };

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const done = handle(request, response).catch((error: unknown) => {
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

function isConnectPath(path: string): boolean {
  return path === CONNECT_SERVICE_PATH || path.startsWith(`${CONNECT_SERVICE_PATH}/`);
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

function headerValue(request: IncomingMessage, name: string): string {
  const value = request.headers[name];
  return (Array.isArray(value) ? value.join(', ') : (value ?? '')).trim();
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

/** Share links carry a read token: keep it out of logs. */
function redact(path: string): string {
  return path.startsWith(SHARE_PATH) && !GENERATED_FILE_PATH.test(path) ? `${SHARE_PATH}<read token>` : path;
}

/**
 * MCP's Streamable HTTP transport asks servers to check `Origin` (a web page must not reach a local
 * tool server through the user's browser): only the engine's own origin and loopback ones pass
 * (and those `--cors-origin` allows, checked before).
 */
function checkToolServerOrigin(origin: string | undefined, engineUrl: string): void {
  if (origin === undefined) return;
  let parsed: URL | undefined;
  try {
    parsed = new URL(origin);
  } catch {
    parsed = undefined;
  }
  const loopback = parsed !== undefined && /^https?:$/.test(parsed.protocol) && ['127.0.0.1', 'localhost', '[::1]'].includes(parsed.hostname);
  if (parsed?.origin === new URL(engineUrl).origin || loopback) return;
  throw new HttpError(
    403,
    `Requests from the web origin ${echo(origin)} are not accepted: the tool server answers clients on this machine, and the web origins --cors-origin names.`,
  );
}

/**
 * The tool server's user. Its 401 is a Bearer challenge that carries the engine's words; with OAuth
 * on, it also names the protected-resource metadata (RFC 9728), from which MCP clients that sign in
 * by themselves find the authorization server. Without it, they show the message instead of
 * starting a flow the engine does not offer.
 */
function toolServerUser(users: UserDirectory, authorization: string | undefined, resourceMetadata: string | undefined): AuthenticatedUser {
  try {
    return users.authenticate(authorization);
  } catch (error) {
    if (!(error instanceof HttpError) || error.status !== 401) throw error;
    const description = error.message.replace(/["\\]/g, "'");
    const metadata = resourceMetadata ? `, resource_metadata="${resourceMetadata}"` : '';
    throw new HttpError(401, error.message, {
      'WWW-Authenticate': `Bearer realm="Deep Search local engine", error="invalid_token", error_description="${description}"${metadata}`,
    });
  }
}

/** The tool-server path a protected-resource metadata path names (`/.well-known/oauth-protected-resource/.api/mcp`). */
function protectedResource(path: string): string | undefined {
  return path.startsWith(`${PROTECTED_RESOURCE_METADATA_PATH}/`) ? path.slice(PROTECTED_RESOURCE_METADATA_PATH.length) : undefined;
}
