/**
 * One connection to an MCP endpoint over Streamable HTTP, for what the tool client does with it:
 * connect, list the tools, call them, close. It speaks the 2026-07-28 revision where the server
 * does (no handshake, no session: each request carries its version, the client's description and
 * its method in `params._meta` and in headers), asking with `server/discover`; else the 2025
 * `initialize` handshake (a session id the server may issue, the negotiated version in a header).
 * What was found can be given to the next connection to skip the question. Replies come as JSON
 * or as server-sent events; on an event stream, a server's `ping` is answered, other requests are
 * refused as unknown, and notifications are read past. Every request has a time limit, may be
 * cancelled, and reads at most a bounded number of bytes.
 *
 * HTTP itself is given (`McpHttp`): the tool client's, with its dispatcher, token and errors, which
 * pass through this module unchanged. It is a bundle of its own (dist/mcp.js), loaded by the first
 * tool call; so it imports nothing of the extension's other code.
 */
import * as l10n from '@vscode/l10n';
import {
  HANDSHAKE_VERSIONS,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROTOCOL_VERSION,
  METHOD_NOT_FOUND,
  STATELESS_VERSION as MODERN_VERSION,
  UNSUPPORTED_PROTOCOL_VERSION,
} from '../../contract/mcpProtocol';
import { sseEvents, SseTooLargeError, type SseEvent } from './sseEvents';

/** Its bundle (dist/mcp.js) has its own copy of @vscode/l10n: the tool client configures it through this. */
export { useTranslations } from '../translations';

/** The revisions it speaks: the handshake's newest is offered, any of them accepted. */
export { HANDSHAKE_VERSIONS, STATELESS_VERSION as MODERN_VERSION } from '../../contract/mcpProtocol';
/** A resumable event stream that ends before its answer is taken up again this many times at most. */
const MAX_RESUMPTIONS = 2;
/** A closed session is ended on the server within this time, or left to expire there. */
const END_SESSION_TIMEOUT_MS = 5_000;

export interface McpHttpRequest {
  method: 'GET' | 'POST' | 'DELETE';
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
  /**
   * The revision probe: a server of the handshake only may refuse it with a 4xx, which comes back
   * as a response to read, not an error (401 and 403 excepted: those are errors of access).
   */
  probe?: boolean;
}

export interface McpHttpResponse {
  status: number;
  /** Names in lower case. */
  headers: Readonly<Record<string, string | undefined>>;
  /** Read once; leaving the loop early releases the connection. */
  body: AsyncIterable<Uint8Array | string>;
}

/** Sends one request: a 2xx (or a probe's readable refusal) comes back; anything else throws. */
export type McpHttp = (request: McpHttpRequest) => Promise<McpHttpResponse>;

/** What an endpoint speaks, as a connection found it: given to the next one, it skips the question. */
export type KnownRevision = { kind: 'modern'; discover: DiscoverResult } | { kind: 'legacy' };

export interface DiscoverResult {
  supportedVersions: string[];
  capabilities: Record<string, unknown>;
  [field: string]: unknown;
}

export interface McpTool {
  name: string;
  inputSchema: Record<string, unknown>;
}

export interface McpToolResult {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: unknown;
  isError?: boolean;
}

/**
 * A failure of the protocol, not of HTTP: `timeout` (no answer in time), `rpc` (the server answered
 * with a JSON-RPC error: `code` and `data` are its), `protocol` (an answer this client cannot use).
 */
export class McpError extends Error {
  constructor(
    readonly kind: 'timeout' | 'rpc' | 'protocol',
    message: string,
    readonly code?: number,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'McpError';
  }
}

export interface McpSessionOptions {
  http: McpHttp;
  clientInfo: { name: string; version: string };
  /** Per request, its reply included. */
  timeoutMs: number;
  /** Largest reply read. Default 32 MiB. */
  maxReplyBytes?: number;
}

interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

type Reply = { result: unknown } | { error: RpcError };

type Era = { kind: 'modern'; discover: DiscoverResult } | { kind: 'legacy'; version: string };

interface SendOptions {
  signal?: AbortSignal;
  /** Sent with the 2026 envelope, whatever the era (the probe, before there is one). */
  modern?: boolean;
  probe?: boolean;
  headers?: Record<string, string>;
}

export class McpSession {
  private era: Era | undefined;
  private sessionId: string | undefined;
  private capabilities: Record<string, unknown> = {};
  private nextId = 0;
  private closed = false;
  /** Every request under way, stopped when the session closes (one controller each: no listener piles up on a shared signal). */
  private readonly underWay = new Set<AbortController>();
  /** The input schemas of the tools listed, for the headers a 2026 tool call mirrors from its arguments. */
  private readonly schemas = new Map<string, Record<string, unknown>>();
  private readonly maxReplyBytes: number;

  constructor(private readonly options: McpSessionOptions) {
    this.maxReplyBytes = options.maxReplyBytes ?? 32 * 1024 * 1024;
  }

  /** What the endpoint speaks (after `connect`). */
  get revision(): KnownRevision {
    if (this.era?.kind === 'modern') return { kind: 'modern', discover: this.era.discover };
    return { kind: 'legacy' };
  }

  /** Asks which revision the server speaks (unless `prior` says), then sets up the connection. */
  async connect(options: { signal?: AbortSignal; prior?: KnownRevision } = {}): Promise<void> {
    const prior = options.prior;
    if (prior?.kind === 'modern') {
      if (!prior.discover.supportedVersions.includes(MODERN_VERSION))
        throw new McpError('protocol', l10n.t("The server's known revisions hold none this client speaks ({0}).", MODERN_VERSION));
      this.adopt(prior.discover);
      return;
    }
    if (prior?.kind !== 'legacy') {
      const discover = await this.probe(options.signal);
      if (discover) {
        this.adopt(discover);
        return;
      }
    }
    await this.handshake(options.signal);
  }

  /** One page of tools; none when the server does not offer tools. */
  async listTools(cursor: string | undefined, signal?: AbortSignal): Promise<{ tools: McpTool[]; nextCursor?: string }> {
    if (!isObject(this.capabilities.tools)) return { tools: [] };
    const result = completeResult('tools/list', await this.request('tools/list', cursor === undefined ? undefined : { cursor }, { signal }));
    if (!Array.isArray(result.tools)) throw new McpError('protocol', l10n.t('Invalid result for tools/list: no list of tools.'));
    const tools = result.tools.map((tool: unknown) => {
      if (!isObject(tool) || typeof tool.name !== 'string' || !isObject(tool.inputSchema))
        throw new McpError('protocol', l10n.t('Invalid result for tools/list: a tool without a name or an input schema.'));
      return { name: tool.name, inputSchema: tool.inputSchema };
    });
    for (const tool of tools) this.schemas.set(tool.name, tool.inputSchema);
    return { tools, ...(typeof result.nextCursor === 'string' ? { nextCursor: result.nextCursor } : {}) };
  }

  async callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<McpToolResult> {
    const headers = this.era?.kind === 'modern' ? { 'mcp-name': headerValue(name), ...mirroredHeaders(this.schemas.get(name), args) } : {};
    const result = completeResult('tools/call', await this.request('tools/call', { name, arguments: args }, { signal, headers }));
    const content = result.content ?? [];
    if (
      !Array.isArray(content) ||
      !content.every((part) => isObject(part) && typeof part.type === 'string' && (part.type !== 'text' || typeof part.text === 'string'))
    ) {
      throw new McpError('protocol', l10n.t('Invalid result for tools/call: its content is not a list of parts.'));
    }
    if (result.isError !== undefined && typeof result.isError !== 'boolean')
      throw new McpError('protocol', l10n.t('Invalid result for tools/call: isError is not a boolean.'));
    return {
      content: content as McpToolResult['content'],
      structuredContent: result.structuredContent,
      ...(result.isError === undefined ? {} : { isError: result.isError }),
    };
  }

  /** Stops every request under way and ends the server's session, if it opened one. Never throws. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const stop of this.underWay) stop.abort(new McpError('protocol', l10n.t('The connection to the tool server was closed.')));
    const sessionId = this.sessionId;
    if (sessionId === undefined) return;
    this.sessionId = undefined;
    const ending = AbortSignal.timeout(Math.min(this.options.timeoutMs, END_SESSION_TIMEOUT_MS));
    try {
      const response = await this.options.http({ method: 'DELETE', headers: { 'mcp-session-id': sessionId, ...this.versionHeader() }, signal: ending });
      await drain(response.body);
    } catch {
      // A server that keeps no sessions (405), or is gone: its session expires on its own.
    }
  }

  /** The 2026 probe: the server's description when it speaks the revision, undefined to fall back to the handshake. */
  private async probe(signal: AbortSignal | undefined): Promise<DiscoverResult | undefined> {
    for (let corrected = false; ; corrected = true) {
      let reply: Reply;
      try {
        reply = await this.send('server/discover', {}, { signal, modern: true, probe: true });
      } catch (error) {
        if (error instanceof McpError && error.kind === 'protocol') {
          throw new McpError('protocol', l10n.t('Version negotiation probe failed: the server answered with an unusable reply ({0})', error.message));
        }
        throw error;
      }
      if ('result' in reply) return isDiscoverResult(reply.result) && reply.result.supportedVersions.includes(MODERN_VERSION) ? reply.result : undefined;
      const { code, message, data } = reply.error;
      if (code !== UNSUPPORTED_PROTOCOL_VERSION) return undefined;
      // The server names the versions it speaks: ours among them is worth one more try; another of
      // the 2026 family is a refusal; only versions of the handshake mean falling back to it.
      const supported =
        isObject(data) && Array.isArray(data.supported) && data.supported.length > 0 && data.supported.every((version) => typeof version === 'string')
          ? data.supported
          : undefined;
      if (!supported) return undefined;
      const refusal = new McpError('rpc', message || l10n.t('Unsupported protocol version: {0}', MODERN_VERSION), code, data);
      if (supported.includes(MODERN_VERSION)) {
        if (corrected) throw refusal;
        continue;
      }
      if (supported.some((version) => version >= MODERN_VERSION)) throw refusal;
      return undefined;
    }
  }

  private adopt(discover: DiscoverResult): void {
    this.era = { kind: 'modern', discover };
    this.capabilities = discover.capabilities;
  }

  private async handshake(signal: AbortSignal | undefined): Promise<void> {
    const result = await this.request(
      'initialize',
      { protocolVersion: HANDSHAKE_VERSIONS[0], capabilities: {}, clientInfo: this.options.clientInfo },
      { signal },
    );
    if (!isObject(result)) throw new McpError('protocol', l10n.t('Server sent invalid initialize result: {0}', String(result)));
    const version = result.protocolVersion;
    if (typeof version !== 'string' || !HANDSHAKE_VERSIONS.includes(version))
      throw new McpError('protocol', l10n.t("Server's protocol version is not supported: {0}", String(version).slice(0, 40)));
    this.era = { kind: 'legacy', version };
    this.capabilities = isObject(result.capabilities) ? result.capabilities : {};
    await this.notify('notifications/initialized', undefined, signal);
  }

  /** A request's result; a JSON-RPC error becomes an McpError of kind `rpc`. */
  private async request(method: string, params: Record<string, unknown> | undefined, options: SendOptions): Promise<unknown> {
    const reply = await this.send(method, params, options);
    if ('error' in reply)
      throw new McpError(
        'rpc',
        reply.error.message || l10n.t('The server refused {0} (JSON-RPC error {1}).', method, reply.error.code),
        reply.error.code,
        reply.error.data,
      );
    return reply.result;
  }

  /**
   * Sends one request and reads its reply, within the time limit. On a timeout or a cancellation,
   * a session of the handshake is also told, as the 2025 revision asks (a 2026 server sees the
   * connection close).
   */
  private async send(method: string, params: Record<string, unknown> | undefined, options: SendOptions): Promise<Reply> {
    if (this.closed) throw new McpError('protocol', l10n.t('The connection to the tool server was closed.'));
    // Cancelled before it left: nothing to send, nothing for the server to forget.
    if (options.signal?.aborted) throw options.signal.reason;
    const id = this.nextId++;
    const modern = options.modern === true || this.era?.kind === 'modern';
    const stop = new AbortController();
    const timer = setTimeout(
      () => stop.abort(new McpError('timeout', l10n.t('{0} timed out after {1} ms', method, this.options.timeoutMs))),
      this.options.timeoutMs,
    );
    const onAbort = () => stop.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    this.underWay.add(stop);
    try {
      const message = { jsonrpc: '2.0', id, method, ...(modern ? { params: { ...params, _meta: this.envelope() } } : params === undefined ? {} : { params }) };
      const headers = { ...this.postHeaders(method, modern), ...options.headers };
      const response = await this.options.http({ method: 'POST', headers, body: JSON.stringify(message), signal: stop.signal, probe: options.probe });
      if (method === 'initialize') this.sessionId = sessionIdOf(response.headers['mcp-session-id']);
      if (response.status >= 400) return { error: rpcErrorOf(await readText(response.body, 64 * 1024)) ?? { code: 0, message: `HTTP ${response.status}` } };
      return await this.replyTo(id, method, response, stop.signal);
    } catch (error) {
      if (!stop.signal.aborted) throw error;
      const reason: unknown = stop.signal.reason;
      if (!this.closed && this.era?.kind === 'legacy' && method !== 'initialize') {
        void this.notify('notifications/cancelled', { requestId: id, reason: reason instanceof Error ? reason.message : String(reason) }).catch(
          () => undefined,
        );
      }
      if (reason instanceof McpError) throw reason;
      throw error;
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      this.underWay.delete(stop);
    }
  }

  /** The reply to request `id`: the one JSON message, or the event that answers it in a stream. */
  private async replyTo(id: number, method: string, response: McpHttpResponse, signal: AbortSignal): Promise<Reply> {
    const type = mediaType(response.headers['content-type']);
    if (response.status === 202) {
      await drain(response.body);
      throw new McpError('protocol', l10n.t('The server took {0} without answering it.', method));
    }
    if (type === 'application/json') {
      const text = await readText(response.body, this.maxReplyBytes, true);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new McpError('protocol', l10n.t('The reply to {0} is not JSON.', method));
      }
      for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
        const reply = replyOf(message, id);
        if (reply) return reply;
      }
      throw new McpError('protocol', l10n.t('The reply to {0} holds no answer to it.', method));
    }
    if (type !== 'text/event-stream') {
      await drain(response.body);
      throw new McpError('protocol', l10n.t('Unexpected content type: {0}', response.headers['content-type'] ?? 'none'));
    }
    let stream = response.body;
    for (let resumed = 0; ; resumed++) {
      const { reply, lastEventId, retryMs } = await this.readEvents(stream, id);
      if (reply) return reply;
      // A server may end the stream early and keep the answer for a GET that resumes it.
      if (lastEventId === undefined || resumed === MAX_RESUMPTIONS)
        throw new McpError('protocol', l10n.t('The server ended its event stream without answering {0}.', method));
      await delay(retryMs ?? Math.min(30_000, 1_000 * 1.5 ** resumed), signal);
      const headers = { accept: 'text/event-stream', 'last-event-id': lastEventId, ...this.sessionHeaders() };
      const again = await this.options.http({ method: 'GET', headers, signal });
      if (mediaType(again.headers['content-type']) !== 'text/event-stream') {
        await drain(again.body);
        throw new McpError('protocol', l10n.t('The server did not resume its event stream for {0}.', method));
      }
      stream = again.body;
    }
  }

  /** Reads events until the one that answers `id`, answering the server's requests on the way. */
  private async readEvents(body: AsyncIterable<Uint8Array | string>, id: number): Promise<{ reply?: Reply; lastEventId?: string; retryMs?: number }> {
    let last: SseEvent | undefined;
    try {
      for await (const event of sseEvents(body, this.maxReplyBytes)) {
        last = event;
        if (event.event !== 'message' || event.data === '') continue;
        let message: unknown;
        try {
          message = JSON.parse(event.data);
        } catch {
          continue;
        }
        const reply = replyOf(message, id);
        if (reply) return { reply };
        if (isObject(message) && typeof message.method === 'string' && (typeof message.id === 'string' || typeof message.id === 'number'))
          this.answer(message.id, message.method);
      }
    } catch (error) {
      if (error instanceof SseTooLargeError) throw new McpError('protocol', error.message);
      throw error;
    }
    return { lastEventId: last?.lastEventId, retryMs: last?.retryMs };
  }

  /** A server's request on an event stream: `ping` answered, anything else refused as unknown. */
  private answer(id: string | number, method: string): void {
    const message =
      method === 'ping' ? { jsonrpc: '2.0', id, result: {} } : { jsonrpc: '2.0', id, error: { code: METHOD_NOT_FOUND, message: 'Method not found' } };
    const stop = new AbortController();
    this.underWay.add(stop);
    void this.post(message, AbortSignal.any([stop.signal, AbortSignal.timeout(this.options.timeoutMs)]))
      .catch(() => undefined)
      .finally(() => this.underWay.delete(stop));
  }

  private async notify(method: string, params: Record<string, unknown> | undefined, signal?: AbortSignal): Promise<void> {
    const stop = AbortSignal.any([AbortSignal.timeout(this.options.timeoutMs), ...(signal ? [signal] : [])]);
    await this.post({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) }, stop);
  }

  /** A message that gets no reply (a notification, or an answer to the server): 202 and nothing to read. */
  private async post(message: object, signal: AbortSignal): Promise<void> {
    const response = await this.options.http({ method: 'POST', headers: this.postHeaders(undefined, false), body: JSON.stringify(message), signal });
    await drain(response.body);
  }

  private postHeaders(method: string | undefined, modern: boolean): Record<string, string> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    if (modern && method !== undefined) return { ...headers, 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': method };
    // initialize opens the session: it carries no id, and settles the version the later requests name.
    return method === 'initialize' ? headers : { ...headers, ...this.sessionHeaders() };
  }

  private sessionHeaders(): Record<string, string> {
    return { ...(this.sessionId === undefined ? {} : { 'mcp-session-id': this.sessionId }), ...this.versionHeader() };
  }

  private versionHeader(): Record<string, string> {
    if (this.era === undefined) return {};
    return { 'mcp-protocol-version': this.era.kind === 'modern' ? MODERN_VERSION : this.era.version };
  }

  /** What a 2026 request carries in `params._meta`. */
  private envelope(): Record<string, unknown> {
    return { [META_PROTOCOL_VERSION]: MODERN_VERSION, [META_CLIENT_INFO]: this.options.clientInfo, [META_CLIENT_CAPABILITIES]: {} };
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isDiscoverResult(value: unknown): value is DiscoverResult {
  return (
    isObject(value) &&
    Array.isArray(value.supportedVersions) &&
    value.supportedVersions.every((version) => typeof version === 'string') &&
    isObject(value.capabilities)
  );
}

/** A result of the 2026 revision says it is complete; one that asks for more input is not for this client. */
function completeResult(method: string, result: unknown): Record<string, unknown> {
  if (!isObject(result)) throw new McpError('protocol', l10n.t('Invalid result for {0}: not an object.', method));
  const type = result.resultType;
  if (type !== undefined && type !== 'complete')
    throw new McpError(
      'protocol',
      l10n.t(
        'Invalid result for {0}: the server asked for more ({1}), which this client does not give.',
        method,
        typeof type === 'string' ? type.slice(0, 40) : typeof type,
      ),
    );
  return result;
}

/** The answer to request `id` in a message, if it is that. */
function replyOf(message: unknown, id: number): Reply | undefined {
  if (!isObject(message) || message.jsonrpc !== '2.0' || message.id !== id || 'method' in message) return undefined;
  if ('result' in message) return { result: message.result };
  const error = rpcErrorFrom(message.error);
  return error ? { error } : undefined;
}

function rpcErrorFrom(value: unknown): RpcError | undefined {
  if (!isObject(value) || typeof value.code !== 'number') return undefined;
  return { code: value.code, message: typeof value.message === 'string' ? value.message : '', ...('data' in value ? { data: value.data } : {}) };
}

/** The JSON-RPC error in a refusal's body, whatever its id (a transport's refusals have none). */
function rpcErrorOf(text: string): RpcError | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) ? rpcErrorFrom(parsed.error) : undefined;
  } catch {
    return undefined;
  }
}

/** A session id as the transport allows it (visible ASCII), bounded; another is no id at all. */
function sessionIdOf(value: string | undefined): string | undefined {
  return value !== undefined && /^[\x21-\x7e]{1,1024}$/.test(value) ? value : undefined;
}

/** `application/json` from `Application/JSON; charset=utf-8`. */
function mediaType(header: string | undefined): string {
  return (header ?? '').split(';', 1)[0].trim().toLowerCase();
}

/** A header value as the revision sends it: as it is when a header can hold it, else `=?base64?…?=` of its UTF-8. */
function headerValue(value: string): string {
  const plain = value.length > 0 && value === value.trim() && /^[\x20-\x7e\t]*$/.test(value) && !(value.startsWith('=?base64?') && value.endsWith('?='));
  return plain ? value : `=?base64?${base64(new TextEncoder().encode(value))}?=`;
}

/**
 * The `Mcp-Param-*` headers a 2026 tool call carries: one per property its input schema marks with
 * `x-mcp-header` (along `properties` only), holding that argument when it is a plain value.
 */
function mirroredHeaders(schema: Record<string, unknown> | undefined, args: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = {};
  const visit = (node: Record<string, unknown>, value: unknown, depth: number): void => {
    if (!isObject(node.properties) || !isObject(value) || depth > 8) return;
    for (const [key, child] of Object.entries(node.properties)) {
      if (!isObject(child)) continue;
      const name = child['x-mcp-header'];
      const argument = value[key];
      if (typeof name === 'string' && /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/.test(name)) {
        const text =
          typeof argument === 'string'
            ? argument
            : typeof argument === 'boolean' || (typeof argument === 'number' && Number.isSafeInteger(argument))
              ? String(argument)
              : undefined;
        if (text !== undefined) headers[`mcp-param-${name.toLowerCase()}`] = headerValue(text);
      }
      visit(child, argument, depth + 1);
    }
  };
  if (schema) visit(schema, args, 0);
  return headers;
}

/** A body as text, up to `maxBytes`: past it, cut there (`strict`: an error). */
async function readText(body: AsyncIterable<Uint8Array | string>, maxBytes: number, strict = false): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    const bytes = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk;
    if (size + bytes.length > maxBytes) {
      if (strict) throw new McpError('protocol', l10n.t('The server sent more than {0} bytes in one reply.', maxBytes));
      chunks.push(bytes.subarray(0, maxBytes - size));
      break;
    }
    chunks.push(bytes);
    size += bytes.length;
  }
  const decoder = new TextDecoder('utf-8');
  return chunks.map((chunk) => decoder.decode(chunk, { stream: true })).join('') + decoder.decode();
}

/** Bytes as base64, with what both Node and browsers have (`btoa`). */
function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Reads a body to its end (a reply with nothing to say), so the connection is free again. */
async function drain(body: AsyncIterable<Uint8Array | string>): Promise<void> {
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    // Nothing was expected: a body that keeps coming is left, not read.
    if (size > 64 * 1024) break;
  }
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', stop, { once: true });
  });
}
