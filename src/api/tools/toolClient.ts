/**
 * The one client of an instance's tool server: the Model Context Protocol over Streamable HTTP
 * (mcpSession.ts), every request through the connection's transport (undici on Node, fetch on the
 * web) with the token in the Authorization header. It speaks the 2026-07-28 stateless revision where the server does and the
 * 2025 handshake where it does not: the session asks (`server/discover`) and falls back, and the
 * answer is remembered per endpoint (in the connection's ServerMemory), as the conversation API's generation is per instance. The
 * endpoint is found once per connection, as the one of every generation's (`/.api/mcp/all`,
 * `/.api/mcp`, `/.api/mcp/v1`) that serves the most of the tools the extension uses; names and
 * arguments are then spoken as that server declares them. An instance that has none (older
 * than 6.8) is remembered as such, so features can say so once and stay out of the way.
 */
import * as l10n from '@vscode/l10n';
import { name as packageName, version as packageVersion } from '../../../package.json';
import { canceledError, DeepSearchError, errorFromStatus, errorMessage, isDeepSearchError, networkError, redact, timeoutError } from '../errors';
import { utf8Bytes, utf8Text, type Transport, type TransportResponse } from '../transport';
import { createFetchTransport } from '../fetchTransport';
import { parseInstanceUrl, type InstanceUrl } from '../instance';
import { translationsInUse } from '../translations';
import { sendAuthorized, tokenOf, type Credential } from '../credential';
import { credentialOf, type ConnectionOptions } from '../connectionOptions';
import { ServerMemory } from '../serverMemory';
import { MCP_ACCESS_PERMISSION, MCP_TOKEN_SCOPE } from '../../contract/toolServers';
import { argumentsFor, isToolServerMissing, TOOL_FEATURES, TOOL_NAMES, TOOL_SERVER_PATHS, type ToolName, type ToolServer } from './toolServer';
import type { McpHttp, McpHttpResponse, McpSession } from './mcpSession';

export { isToolServerMissing, TOOL_SERVER_PATHS, type ToolName, type ToolServer } from './toolServer';

export interface ToolResult {
  /** The readable text of the result (all text parts, joined). */
  text: string;
  /** `structuredContent`, when the server sent it. */
  structured?: unknown;
}

/** The connection's options; `timeoutMs` is per call, 60 s by default. */
export type ToolClientOptions = ConnectionOptions;

type McpModule = typeof import('./mcpSession');

/** Redirects followed within the instance, at most. */
const MAX_REDIRECTS = 5;
/** The part of a refusal's body read, for its message. */
const MAX_REFUSAL_BYTES = 64 * 1024;

interface Connected {
  server: ToolServer;
  session: McpSession;
  mcp: McpModule;
}

export class ToolClient {
  readonly instanceUrl: InstanceUrl;
  private readonly credential: Credential;
  /** Every token sent, never to appear in an error. */
  private readonly secrets: string[] = [];
  private readonly timeoutMs: number;
  private readonly transport: Transport;
  private connecting: Promise<Connected> | undefined;
  private found: ToolServer | 'missing' | undefined;
  private closed = false;
  private mcp: McpModule | undefined;
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly discoveryListeners = new Set<(found: ToolServer | 'missing') => void>();
  /** Which revision each endpoint spoke (by its URL), so that later connections skip the question. */
  private readonly memory: ServerMemory;

  constructor(options: ToolClientOptions) {
    this.instanceUrl = parseInstanceUrl(options.instanceUrl);
    this.credential = credentialOf(options);
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.transport = options.transport ?? createFetchTransport();
    this.memory = options.memory ?? new ServerMemory();
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
    const { server, session, mcp } = await this.connect(signal);
    const name = server.names.get(tool);
    if (!name) {
      throw new DeepSearchError(
        'unsupported',
        l10n.t(
          '{0} does not offer {1}: its tool server is older, or an administrator turned that tool off. The other features work as before.',
          new URL(this.instanceUrl).host,
          TOOL_FEATURES[tool],
        ),
      );
    }
    const result = await this.guard(signal, () => session.callTool(name, argumentsFor(args, server.parameters.get(tool), TOOL_FEATURES[tool]), signal), mcp);
    const text = result.content.flatMap((part) => (part.type === 'text' && part.text !== undefined ? [part.text] : [])).join('\n');
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
    await connected?.session.close();
  }

  private connect(signal?: AbortSignal): Promise<Connected> {
    if (this.closed) return Promise.reject(new DeepSearchError('canceled', l10n.t('The connection to the instance was replaced.')));
    const connecting = (this.connecting ??= this.discover(signal));
    // A network failure or a cancelled first call must not stick: the next call tries again.
    connecting.catch((error: unknown) => {
      if (!isToolServerMissing(error) && this.connecting === connecting) this.connecting = undefined;
    });
    return connecting;
  }

  private async discover(signal?: AbortSignal): Promise<Connected> {
    // Its own bundle (dist/mcp.js): loaded by the first tool call.
    const mcp = (this.mcp ??= await loadMcp());
    let best: Connected | undefined;
    for (const path of TOOL_SERVER_PATHS) {
      const url = `${this.instanceUrl}${path}`;
      const session = new mcp.McpSession({ http: this.httpFor(url), clientInfo: { name: packageName, version: packageVersion }, timeoutMs: this.timeoutMs });
      const prior = this.memory.revision(url);
      try {
        await this.guard(signal, () => session.connect({ signal, prior }), mcp);
        this.memory.rememberRevision(url, session.revision);
      } catch (error) {
        await session.close();
        // What was remembered may no longer hold (the server changed): the next connection asks again.
        this.memory.rememberRevision(url, undefined);
        if (isDeepSearchError(error) && (error.status === 404 || error.status === 405)) continue;
        // An endpoint already works: a poorer one that fails (the deprecated v1 refused, say) does not matter.
        if (best && !signal?.aborted) continue;
        throw this.noAccess(error);
      }
      let server: ToolServer;
      try {
        server = servedTools(url, await this.guard(signal, () => listTools(session, signal), mcp));
      } catch (error) {
        await session.close();
        this.memory.rememberRevision(url, undefined);
        if (best && !signal?.aborted) continue;
        throw this.noAccess(error);
      }
      if (!best || server.names.size > best.server.names.size) {
        await best?.session.close();
        best = { session, server, mcp };
      } else {
        await session.close();
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
      l10n.t(
        '{0} has no tool server ({1} all answered 404; it needs Sourcegraph 6.8 or later). Remote files, navigation across ' +
          'repositories and code search are not available there; conversations work as before.',
        new URL(this.instanceUrl).host,
        TOOL_SERVER_PATHS.join(', '),
      ),
      { status: 404 },
    );
  }

  /**
   * A 403 from a tool server endpoint means the account or token may not use MCP at all (the same
   * for every endpoint): say so, and what grants it. Other errors pass through.
   */
  private noAccess(error: unknown): unknown {
    if (!isDeepSearchError(error) || error.status !== 403) return error;
    const refused = l10n.t(
      '{0} refused its tool server (MCP) to this account or token (HTTP 403): the account lacks the {1} permission, or the ' +
        'token lacks the "{2}" scope. Ask a site administrator for MCP access, or sign in with a token that has the scope. Remote ' +
        'files, code search and navigation need it.',
      new URL(this.instanceUrl).host,
      MCP_ACCESS_PERMISSION,
      MCP_TOKEN_SCOPE,
    );
    return new DeepSearchError('forbidden', error.detail ? l10n.t('{0} The server said: {1}', refused, error.detail) : refused, {
      status: 403,
      detail: error.detail,
    });
  }

  private recordDiscovery(found: ToolServer | 'missing'): void {
    this.found = found;
    for (const listener of this.discoveryListeners) listener(found);
  }

  /**
   * HTTP for one endpoint's session: the dispatcher, the token header (renewed once after a 401),
   * and every failure as a DeepSearchError. Only a 2xx comes back, or the probe's refusal where a
   * server of the handshake only refuses it so (the session then falls back to the handshake).
   */
  private httpFor(endpoint: string): McpHttp {
    const url = new URL(endpoint);
    return (sent) =>
      sendAuthorized(this.credential, async (authorization) => {
        this.keepSecret(authorization);
        const headers = { ...sent.headers, authorization, 'x-requested-with': `${packageName} ${packageVersion}` };
        const response = await this.exchange(url, { ...sent, headers });
        if (response.status >= 200 && response.status < 300) return response;
        const body = await readRefusal(response.body);
        const refusal = () =>
          errorFromStatus({ status: response.status, origin: url.origin, body, contentType: response.headers['content-type'] ?? '', secrets: this.secrets });
        // A refused token is ours to report, probe or not; a 404 or 405 that is no JSON-RPC answer is
        // no endpoint at all: said as any other, and the next is tried.
        const readable = sent.probe === true && response.status >= 400 && response.status < 500 && response.status !== 401 && response.status !== 403;
        if (!readable || ((response.status === 404 || response.status === 405) && !isJsonRpcReply(body))) throw refusal();
        return { status: response.status, headers: response.headers, body: bodyOf(body) };
      });
  }

  /**
   * One request, following redirects that stay within the instance (the token goes nowhere else)
   * and keep the method; a redirect elsewhere is not followed.
   */
  private async exchange(url: URL, sent: Parameters<McpHttp>[0]): Promise<McpHttpResponse> {
    let target = url;
    for (let followed = 0; ; followed++) {
      let response: TransportResponse;
      try {
        response = await this.transport.send({ method: sent.method, url: target, headers: sent.headers, body: sent.body, signal: sent.signal });
      } catch (error) {
        if (sent.signal.aborted) throw canceledError();
        if (isDeepSearchError(error)) throw error;
        throw networkError(error, url.origin, this.secrets);
      }
      const headers = response.headers;
      const location = [301, 302, 303, 307, 308].includes(response.status) ? headers.location : undefined;
      const next = location === undefined ? undefined : URL.canParse(location, target) ? new URL(location, target) : undefined;
      const keepsMethod = sent.method === 'GET' || response.status === 307 || response.status === 308;
      if (next && next.origin !== url.origin) {
        response.discard();
        throw new DeepSearchError('invalidResponse', l10n.t('The tool server pointed at another address ({0}); the request was not sent.', next.origin));
      }
      if (next && keepsMethod && followed < MAX_REDIRECTS) {
        response.discard();
        target = next;
        continue;
      }
      return { status: response.status, headers, body: this.readable(response.body, url.origin, sent.signal) };
    }
  }

  /** A response body whose failures (the connection lost halfway) are said as any other network failure. */
  private async *readable(body: AsyncIterable<Uint8Array>, origin: string, signal: AbortSignal): AsyncGenerator<Uint8Array> {
    try {
      for await (const chunk of body) yield chunk;
    } catch (error) {
      if (signal.aborted) throw canceledError();
      throw networkError(error, origin, this.secrets);
    }
  }

  private keepSecret(authorization: string): void {
    const token = tokenOf(authorization);
    if (this.secrets.includes(token)) return;
    this.secrets.push(token);
    // The latest few: an older token has long stopped mattering to this connection's errors.
    if (this.secrets.length > 8) this.secrets.shift();
  }

  /** Protocol failures (timeouts, aborts, answers not understood) as DeepSearchErrors; ours pass through. */
  private async guard<T>(signal: AbortSignal | undefined, run: () => Promise<T>, mcp: McpModule): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (signal?.aborted) throw canceledError();
      if (isDeepSearchError(error)) throw error;
      if (error instanceof mcp.McpError && error.kind === 'timeout') throw timeoutError(new URL(this.instanceUrl).origin, this.timeoutMs);
      const message = redact(errorMessage(error), this.secrets);
      throw new DeepSearchError('invalidResponse', l10n.t('The tool server answered in a way this extension does not understand ({0}).', message), {
        detail: message,
      });
    }
  }
}

/** The MCP client's bundle (dist/mcp.js), loaded by the first tool call and given this bundle's translations. */
async function loadMcp(): Promise<McpModule> {
  const mcp = await import('./mcpSession');
  mcp.useTranslations(translationsInUse());
  return mcp;
}

interface ListedTool {
  name: string;
  parameters: string[];
}

/** Every page of the endpoint's tools (a bounded number of pages), with the arguments each declares. */
async function listTools(session: McpSession, signal?: AbortSignal): Promise<ListedTool[]> {
  const tools: ListedTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 64; page++) {
    const result = await session.listTools(cursor, signal);
    tools.push(...result.tools.map((tool) => ({ name: tool.name, parameters: Object.keys((tool.inputSchema as { properties?: object }).properties ?? {}) })));
    if (!result.nextCursor || result.nextCursor === cursor) break;
    cursor = result.nextCursor;
  }
  return tools;
}

function isJsonRpcReply(body: string): boolean {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null && (value as { jsonrpc?: unknown }).jsonrpc === '2.0';
  } catch {
    return false;
  }
}

/** A body already read, to be read again. */
async function* bodyOf(text: string): AsyncGenerator<Uint8Array> {
  yield utf8Bytes(text);
}

/** The start of a refusal's body (for its message); the rest is left unread. */
async function readRefusal(body: AsyncIterable<Uint8Array | string>): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    const bytes = typeof chunk === 'string' ? utf8Bytes(chunk) : chunk;
    chunks.push(bytes.subarray(0, Math.max(0, MAX_REFUSAL_BYTES - size)));
    size += bytes.length;
    if (size >= MAX_REFUSAL_BYTES) break;
  }
  return utf8Text(chunks);
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
