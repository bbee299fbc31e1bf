/**
 * The one client of an instance's tool server: the Model Context Protocol over Streamable HTTP with
 * the official SDK (2.x), every request through the extension's undici dispatcher with the token in
 * the Authorization header. It speaks the 2026-07-28 stateless revision where the server does and
 * the 2025 handshake where it does not: the SDK asks (`server/discover`) and falls back, and the
 * answer is remembered per endpoint, as the conversation API's generation is per instance. The
 * endpoint is found once per connection, as the one of every generation's (`/.api/mcp/all`,
 * `/.api/mcp`, `/.api/mcp/v1`) that serves the most of the tools the extension uses; names and
 * arguments are then spoken as that server declares them. An instance that has none (older
 * than 6.8) is remembered as such, so features can say so once and stay out of the way.
 */
import type { Client, PriorDiscovery } from '@modelcontextprotocol/client';
import { fetch as undiciFetch, type Dispatcher } from 'undici';
import { name as packageName, version as packageVersion } from '../../../package.json';
import { canceledError, DeepSearchError, errorFromStatus, errorMessage, isDeepSearchError, networkError, redact, timeoutError } from '../errors';
import { normalizeInstanceUrl } from '../instance';
import { accessTokenCredential, tokenOf, type Credential } from '../credential';
import { MCP_ACCESS_PERMISSION, MCP_TOKEN_SCOPE } from '../../contract/toolServers';
import { argumentsFor, isToolServerMissing, TOOL_FEATURES, TOOL_NAMES, TOOL_SERVER_PATHS, type ToolName, type ToolServer } from './toolServer';

export { isToolServerMissing, TOOL_SERVER_PATHS, type ToolName, type ToolServer } from './toolServer';

export interface ToolResult {
  /** The readable text of the result (all text parts, joined). */
  text: string;
  /** `structuredContent`, when the server sent it. */
  structured?: unknown;
}

export interface ToolClientOptions {
  instanceUrl: string;
  /** An access token; or give `credential`. */
  token?: string;
  tokenType?: 'token' | 'bearer';
  /** What requests are authorized with, when it is not a fixed token (an OAuth sign-in that renews). */
  credential?: Credential;
  /** From `createDispatcher`; undici's global dispatcher when absent. */
  dispatcher?: Dispatcher;
  /** Per call. Default 60 s. */
  timeoutMs?: number;
}

type McpSdk = typeof import('./mcpSdk');

/** Which revision each endpoint spoke (by its URL), so that later connections skip the question. */
const knownEras = new Map<string, PriorDiscovery>();

interface Connected {
  server: ToolServer;
  client: Client;
  sdk: McpSdk;
}

export class ToolClient {
  readonly instanceUrl: string;
  private readonly credential: Credential;
  /** Every token sent, never to appear in an error. */
  private readonly secrets: string[] = [];
  private readonly timeoutMs: number;
  private connecting: Promise<Connected> | undefined;
  private found: ToolServer | 'missing' | undefined;
  private closed = false;
  private sdk: McpSdk | undefined;
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly discoveryListeners = new Set<(found: ToolServer | 'missing') => void>();

  constructor(private readonly options: ToolClientOptions) {
    this.instanceUrl = normalizeInstanceUrl(options.instanceUrl);
    this.credential = options.credential ?? accessTokenCredential(options.token, options.tokenType);
    this.timeoutMs = options.timeoutMs ?? 60_000;
  }

  /** Forgets which revision every endpoint speaks (for tests that start another server at a used address). */
  static forgetEras(): void {
    knownEras.clear();
  }

  /** The endpoint and its tools; rejects with kind `unsupported` when the instance has no tool server. */
  async server(signal?: AbortSignal): Promise<ToolServer> {
    return (await this.connect(signal)).server;
  }

  /** What discovery found so far, without asking: the server, `missing`, or undefined (not asked yet). */
  get discovered(): ToolServer | 'missing' | undefined {
    return this.found;
  }

  /** Calls `listener` when discovery finds the endpoint or finds none; returns the unsubscribe. */
  onDidDiscover(listener: (found: ToolServer | 'missing') => void): () => void {
    this.discoveryListeners.add(listener);
    return () => this.discoveryListeners.delete(listener);
  }

  /**
   * Calls a tool once (a POST: never repeated). A tool error (`isError`) becomes a `badRequest`
   * DeepSearchError whose message is what the server said, since that says what to change.
   */
  call(tool: ToolName, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolResult> {
    const call = this.callOnce(tool, args, signal);
    this.inFlight.add(call);
    return call.finally(() => this.inFlight.delete(call));
  }

  private async callOnce(tool: ToolName, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolResult> {
    const { server, client, sdk } = await this.connect(signal);
    const name = server.names.get(tool);
    if (!name) {
      throw new DeepSearchError(
        'unsupported',
        `${new URL(this.instanceUrl).host} does not offer ${TOOL_FEATURES[tool]}: its tool server is older, or an administrator turned that tool off. The other features work as before.`,
      );
    }
    const params = { name, arguments: argumentsFor(args, server.parameters.get(tool), TOOL_FEATURES[tool]) };
    const result = await this.guard(signal, () => client.callTool(params, { signal, timeout: this.timeoutMs }), sdk);
    const text = (result.content ?? [])
      .flatMap((part) => (part.type === 'text' ? [part.text] : []))
      .join('\n');
    if (result.isError) {
      const said = redact(text.trim(), this.secrets) || 'no reason given';
      throw new DeepSearchError('badRequest', said, { detail: said });
    }
    return { text, structured: result.structuredContent };
  }

  /** Takes no new calls; calls under way finish first (a rebuilt connection must not cut them off). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.inFlight]);
    const connecting = this.connecting;
    this.connecting = undefined;
    const connected = await connecting?.catch(() => undefined);
    await connected?.client.close().catch(() => undefined);
  }

  private connect(signal?: AbortSignal): Promise<Connected> {
    if (this.closed) return Promise.reject(new DeepSearchError('canceled', 'The connection to the instance was replaced.'));
    const connecting = (this.connecting ??= this.discover(signal));
    // A network failure or a cancelled first call must not stick: the next call tries again.
    connecting.catch((error: unknown) => {
      if (!isToolServerMissing(error) && this.connecting === connecting) this.connecting = undefined;
    });
    return connecting;
  }

  private async discover(signal?: AbortSignal): Promise<Connected> {
    // Its own bundle (dist/mcp.js): loaded by the first tool call.
    const sdk = (this.sdk ??= await import('./mcpSdk'));
    let best: Connected | undefined;
    for (const path of TOOL_SERVER_PATHS) {
      const url = `${this.instanceUrl}${path}`;
      const client = new sdk.Client(
        { name: packageName, version: packageVersion },
        { capabilities: {}, jsonSchemaValidator: sdk.noOutputValidation, versionNegotiation: { mode: 'auto' } },
      );
      const transport = new sdk.StreamableHTTPClientTransport(new URL(url), { fetch: this.fetchFor(url) });
      const prior = knownEras.get(url);
      try {
        await this.guard(signal, () => client.connect(transport, { signal, timeout: this.timeoutMs, ...(prior ? { prior } : {}) }), sdk);
        rememberEra(url, client);
      } catch (error) {
        await client.close().catch(() => undefined);
        // What was remembered may no longer hold (the server changed): the next connection asks again.
        knownEras.delete(url);
        if (isDeepSearchError(error) && (error.status === 404 || error.status === 405)) continue;
        // An endpoint already works: a poorer one that fails (the deprecated v1 refused, say) does not matter.
        if (best && !signal?.aborted) continue;
        throw this.noAccess(error);
      }
      let server: ToolServer;
      try {
        server = servedTools(url, await this.guard(signal, () => this.listTools(client, signal), sdk));
      } catch (error) {
        await client.close().catch(() => undefined);
        knownEras.delete(url);
        if (best && !signal?.aborted) continue;
        throw this.noAccess(error);
      }
      if (!best || server.names.size > best.server.names.size) {
        await best?.client.close().catch(() => undefined);
        best = { client, server, sdk };
      } else {
        await client.close().catch(() => undefined);
      }
      // Every tool there: no other endpoint can do better.
      if (best.server.names.size === TOOL_NAMES.length) break;
    }
    if (best) {
      this.recordDiscovery(best.server);
      return best;
    }
    this.recordDiscovery('missing');
    throw new DeepSearchError(
      'unsupported',
      `${new URL(this.instanceUrl).host} has no tool server (${TOOL_SERVER_PATHS.join(', ')} all answered 404; it needs Sourcegraph 6.8 or later). Remote files, navigation across repositories and code search are not available there; conversations work as before.`,
      { status: 404 },
    );
  }

  /**
   * A 403 from a tool server endpoint means the account or token may not use MCP at all (the same
   * for every endpoint): say so, and what grants it. Other errors pass through.
   */
  private noAccess(error: unknown): unknown {
    if (!isDeepSearchError(error) || error.status !== 403) return error;
    return new DeepSearchError(
      'forbidden',
      `${new URL(this.instanceUrl).host} refused its tool server (MCP) to this account or token (HTTP 403): the account lacks the ${MCP_ACCESS_PERMISSION} permission, ` +
        `or the token lacks the "${MCP_TOKEN_SCOPE}" scope. Ask a site administrator for MCP access, or sign in with a token that has the scope. ` +
        `Remote files, code search and navigation need it.${error.detail ? ` The server said: ${error.detail}` : ''}`,
      { status: 403, detail: error.detail },
    );
  }

  private recordDiscovery(found: ToolServer | 'missing'): void {
    this.found = found;
    for (const listener of this.discoveryListeners) listener(found);
  }

  private async listTools(client: Client, signal?: AbortSignal): Promise<ListedTool[]> {
    const tools: ListedTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 20; page++) {
      const result = await client.listTools(cursor ? { cursor } : undefined, { signal, timeout: this.timeoutMs });
      tools.push(...result.tools.map((tool) => ({ name: tool.name, parameters: Object.keys((tool.inputSchema as { properties?: object }).properties ?? {}) })));
      if (!result.nextCursor || result.nextCursor === cursor) break;
      cursor = result.nextCursor;
    }
    return tools;
  }

  /** Every request: the dispatcher, the token header, and HTTP failures as DeepSearchErrors. */
  private fetchFor(endpoint: string): (url: string | URL, init?: RequestInit) => Promise<Response> {
    const origin = new URL(endpoint).origin;
    return async (url, init) => {
      const target = new URL(url);
      // The token goes to the instance only, whatever URL a server might send the SDK to.
      if (target.origin !== origin) throw new DeepSearchError('invalidResponse', `The tool server pointed at another address (${target.origin}); the request was not sent.`);
      const send = async (authorization: string) => {
        this.keepSecret(authorization);
        const headers = new Headers(init?.headers);
        headers.set('authorization', authorization);
        headers.set('x-requested-with', `${packageName} ${packageVersion}`);
        try {
          return await undiciFetch(target, { ...(init as object), headers, dispatcher: this.options.dispatcher } as Parameters<typeof undiciFetch>[1]);
        } catch (error) {
          if (init?.signal?.aborted) throw canceledError();
          throw networkError(error, origin, this.secrets);
        }
      };
      const authorization = await this.credential.header();
      let response = await send(authorization);
      if (response.status === 401) {
        // Refused before it was acted on (the SDK's bodies are strings): once more with a renewed token.
        const renewed = await this.credential.renewAfter(authorization);
        if (renewed !== undefined) {
          await response.body?.cancel().catch(() => undefined);
          response = await send(renewed);
        }
      }
      // The SDK handles a refused GET (no server-sent event stream) itself, and a refused probe for the
      // 2026 revision (a server of the handshake only answers it 4xx: the SDK then falls back to the
      // handshake); other POSTs must succeed. A refused token is ours to report, probe or not.
      const probe = new Headers(init?.headers).get('mcp-method') === 'server/discover';
      if (probe && response.status >= 400 && response.status < 500 && response.status !== 401 && response.status !== 403) {
        const body = await response.text().catch(() => '');
        // A 404 or 405 that is no JSON-RPC answer is no endpoint at all: said as any other, and the next is tried.
        if ((response.status !== 404 && response.status !== 405) || isJsonRpcReply(body)) return new Response(body, { status: response.status, headers: response.headers as unknown as Headers });
        throw errorFromStatus({ status: response.status, origin, body, contentType: response.headers.get('content-type') ?? '', secrets: this.secrets });
      }
      if (!response.ok && (init?.method ?? 'GET') !== 'GET') {
        const body = await response.text().catch(() => '');
        throw errorFromStatus({ status: response.status, origin, body, contentType: response.headers.get('content-type') ?? '', secrets: this.secrets });
      }
      return response as unknown as Response;
    };
  }

  private keepSecret(authorization: string): void {
    const token = tokenOf(authorization);
    if (this.secrets.includes(token)) return;
    this.secrets.push(token);
    // The latest few: an older token has long stopped mattering to this connection's errors.
    if (this.secrets.length > 8) this.secrets.shift();
  }

  /** SDK failures (timeouts, aborts, protocol errors) as DeepSearchErrors; ours pass through. */
  private async guard<T>(signal: AbortSignal | undefined, run: () => Promise<T>, sdk: McpSdk): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (signal?.aborted) throw canceledError();
      if (isDeepSearchError(error)) throw error;
      // The SDK wraps what our fetch threw (an HTTP failure said in our words) in errors of its own.
      const cause = error instanceof Error ? error.cause : undefined;
      if (isDeepSearchError(cause)) throw cause;
      if (error instanceof sdk.SdkError && error.code === sdk.SdkErrorCode.RequestTimeout) throw timeoutError(new URL(this.instanceUrl).origin, this.timeoutMs);
      const message = redact(errorMessage(error), this.secrets);
      throw new DeepSearchError('invalidResponse', `The tool server answered in a way this extension does not understand (${message}).`, { detail: message });
    }
  }
}

interface ListedTool {
  name: string;
  parameters: string[];
}

function isJsonRpcReply(body: string): boolean {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null && (value as { jsonrpc?: unknown }).jsonrpc === '2.0';
  } catch {
    return false;
  }
}

/** What the endpoint spoke: its discovery (2026-07-28), or the handshake. */
function rememberEra(url: string, client: Client): void {
  const discover = client.getDiscoverResult();
  knownEras.set(url, client.getProtocolEra() === 'modern' && discover ? { kind: 'modern', discover } : { kind: 'legacy' });
}

/** Each tool under `sg_<name>` (the v1 set) or `<name>` (2026's endpoints), with its declared arguments. */
function servedTools(url: string, listed: readonly ListedTool[]): ToolServer {
  const byName = new Map(listed.map((tool) => [tool.name, tool]));
  const names = new Map<ToolName, string>();
  const parameters = new Map<ToolName, ReadonlySet<string>>();
  for (const tool of TOOL_NAMES) {
    const served = byName.get(`sg_${tool}`) ?? byName.get(tool);
    if (!served) continue;
    names.set(tool, served.name);
    if (served.parameters.length > 0) parameters.set(tool, new Set(served.parameters));
  }
  return { url, names, parameters };
}
