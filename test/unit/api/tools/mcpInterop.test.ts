/**
 * The extension's tool client (its own MCP session, over undici as on Node and over fetch as in VS
 * Code for the Web: the same cases for both transports) against a server built with the
 * official MCP SDK (1.x, the low-level `Server` and `StreamableHTTPServerTransport`): stateful (a
 * session id, ended by DELETE) and stateless, answering in JSON and in server-sent events. A server
 * of another hand, which knows nothing of the 2026 revision: the client must fall back to the
 * handshake, page through the tools, answer the server's ping, read past its notifications, resume
 * a stream the server ended early, and tell it when it gives up on a call.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport, type EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, EmptyResultSchema, ListToolsRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Credential } from '../../../../src/api/credential';
import { ToolClient } from '../../../../src/api/tools/toolClient';
import { ServerMemory } from '../../../../src/api/serverMemory';
import { createFetchTransport } from '../../../../src/api/fetchTransport';
import type { Transport } from '../../../../src/api/transport';
import { createUndiciTransport } from '../../../../src/api/undiciTransport';
import { expectError } from '../expectError';

interface SdkServerOptions {
  stateful: boolean;
  json: boolean;
  /** Keeps every event so that a stream the server ends early can be resumed (stateful only). */
  resumable?: boolean;
  /** Answers 401 to every request that carries another Authorization header. */
  acceptOnly?: string;
}

interface SdkServer {
  url: string;
  /** `METHOD path [jsonrpc method]` of every request, in order. */
  requests: string[];
  /** JSON-RPC methods of every POST to the endpoint, in order. */
  methods(): string[];
  /** Authorization headers as sent. */
  authorizations: string[];
  /** Session ids the server saw ended (DELETE). */
  ended: string[];
  /** Tool calls whose handler saw its request cancelled. */
  cancelled: string[];
  /** Pings the client answered. */
  pings: number;
  close(): Promise<void>;
}

/** The tools, as the extension knows them by name; listed two to a page. */
const TOOLS = [
  {
    name: 'list_repos',
    description: 'Lists repositories.',
    inputSchema: { type: 'object' as const, properties: { query: { type: 'string' }, limit: { type: 'integer' } } },
  },
  { name: 'keyword_search', description: 'Searches, saying how it goes.', inputSchema: { type: 'object' as const, properties: { query: { type: 'string' } } } },
  {
    name: 'read_file',
    description: 'Takes its time.',
    inputSchema: { type: 'object' as const, properties: { repo: { type: 'string' }, path: { type: 'string' } } },
  },
  { name: 'nls_search', description: 'Always fails.', inputSchema: { type: 'object' as const, properties: { query: { type: 'string' } } } },
  {
    name: 'commit_search',
    description: 'Ends its stream early, and answers later.',
    inputSchema: { type: 'object' as const, properties: { query: { type: 'string' } } },
  },
];
const PAGE = 2;

/** Every event of every stream, so that a resumed stream gets what it missed. */
function memoryEventStore(): EventStore {
  const events: Array<{ id: string; streamId: string; message: JSONRPCMessage }> = [];
  return {
    storeEvent: async (streamId, message) => {
      const id = `${streamId}:${events.length}`;
      events.push({ id, streamId, message });
      return id;
    },
    getStreamIdForEventId: async (eventId) => events.find((event) => event.id === eventId)?.streamId,
    replayEventsAfter: async (lastEventId, { send }) => {
      const at = events.findIndex((event) => event.id === lastEventId);
      const streamId = events[at]?.streamId ?? '';
      for (const event of events.slice(at + 1)) if (event.streamId === streamId) await send(event.id, event.message);
      return streamId;
    },
  };
}

async function startSdkServer(options: SdkServerOptions): Promise<SdkServer> {
  const state: Omit<SdkServer, 'url' | 'close' | 'methods'> = { requests: [], authorizations: [], ended: [], cancelled: [], pings: 0 };
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const eventStore = options.resumable ? memoryEventStore() : undefined;

  const mcpServer = (): Server => {
    const server = new Server({ name: 'sdk-interop', version: '1.0.0' }, { capabilities: { tools: {}, logging: {} } });
    server.setRequestHandler(ListToolsRequestSchema, (request) => {
      const from = Number(request.params?.cursor ?? 0);
      const next = from + PAGE;
      return { tools: TOOLS.slice(from, next), ...(next < TOOLS.length ? { nextCursor: String(next) } : {}) };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const args = request.params.arguments ?? {};
      switch (request.params.name) {
        case 'list_repos':
          return {
            content: [{ type: 'text', text: `github.com/acme/${String(args.query)}` }],
            structuredContent: { repositories: [{ name: `github.com/acme/${String(args.query)}` }] },
          };
        case 'keyword_search': {
          await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: 'searching' } });
          // Only a session can carry the server's own request and the client's answer to it.
          if (options.stateful && !options.json) {
            await extra.sendRequest({ method: 'ping' }, EmptyResultSchema);
            state.pings++;
          }
          await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: 'done' } });
          return { content: [{ type: 'text', text: `found ${String(args.query)}` }] };
        }
        case 'read_file':
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, 10_000);
            extra.signal.addEventListener('abort', () => {
              clearTimeout(timer);
              state.cancelled.push(request.params.name);
              resolve();
            });
          });
          return { content: [{ type: 'text', text: 'too late' }] };
        case 'commit_search':
          extra.closeSSEStream?.();
          await new Promise((resolve) => setTimeout(resolve, 100));
          return { content: [{ type: 'text', text: 'answered after the stream ended' }] };
        default:
          return { content: [{ type: 'text', text: `no ${request.params.name} here: ask for something else` }], isError: true };
      }
    });
    return server;
  };

  const reply = (res: http.ServerResponse, status: number, message: string) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const body: unknown = text ? JSON.parse(text) : undefined;
    const method = (body as { method?: string } | undefined)?.method;
    state.requests.push(`${req.method} ${req.url}${method ? ` ${method}` : ''}${req.headers['last-event-id'] ? ' (resuming)' : ''}`);
    state.authorizations.push(String(req.headers.authorization));
    if (options.acceptOnly && req.headers.authorization !== options.acceptOnly) return reply(res, 401, 'Unauthorized');
    if (req.url !== '/.api/mcp/all') return void res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found');
    if (!options.stateful) {
      if (req.method !== 'POST') return reply(res, 405, 'Method not allowed.');
      const server = mcpServer();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: options.json });
      res.on('close', () => void transport.close().then(() => server.close()));
      await server.connect(transport);
      return transport.handleRequest(req, res, body);
    }
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const transport = sessions.get(sessionId);
      if (!transport) return reply(res, 404, 'Session not found');
      return transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || method !== 'initialize') return reply(res, 400, 'Bad Request: No valid session ID provided');
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: options.json,
      eventStore,
      retryInterval: eventStore ? 20 : undefined,
      keepAliveMs: 20,
      onsessioninitialized: (id) => void sessions.set(id, transport),
      onsessionclosed: (id) => void state.ended.push(id),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await mcpServer().connect(transport);
    return transport.handleRequest(req, res, body);
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) reply(res, 500, String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(state, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    methods: () => state.requests.filter((line) => line.startsWith('POST /.api/mcp/all ')).map((line) => line.split(' ')[2] ?? '(none)'),
    close: async () => {
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

const TOKEN = 'sgp_interop_token_0123456789';

const TRANSPORTS: ReadonlyArray<[string, () => Transport]> = [
  ['undici', () => createUndiciTransport()],
  ['fetch', () => createFetchTransport()],
];

for (const [transportName, createTransport] of TRANSPORTS)
  describe(`Tool client against a server of the official MCP SDK (${transportName})`, function () {
    this.timeout(30_000);
    let server: SdkServer;
    const clients: ToolClient[] = [];
    const transports: Transport[] = [];
    /** What the clients of one test learn about the server, shared as a window's connections share it. */
    let memory = new ServerMemory();
    const client = (timeoutMs = 10_000, credential?: Credential): ToolClient => {
      const transport = createTransport();
      transports.push(transport);
      const made = new ToolClient({ instanceUrl: server.url, ...(credential ? { credential } : { token: TOKEN }), timeoutMs, transport, memory });
      clients.push(made);
      return made;
    };
    afterEach(async () => {
      await Promise.all(clients.splice(0).map((each) => each.close()));
      await Promise.all(transports.splice(0).map((each) => each.destroy()));
      await server?.close();
      memory = new ServerMemory();
    });

    for (const stateful of [true, false]) {
      for (const json of [false, true]) {
        describe(`${stateful ? 'stateful (a session)' : 'stateless'}, answering in ${json ? 'JSON' : 'server-sent events'}`, function () {
          beforeEach(async () => {
            server = await startSdkServer({ stateful, json });
          });

          it('falls back to the handshake after the 2026 probe, lists every page of tools, and calls one', async function () {
            const tools = client();
            const found = await tools.server();
            assert.equal(found.url, `${server.url}/.api/mcp/all`);
            assert.deepEqual([...found.names.keys()].sort(), TOOLS.map((tool) => tool.name).sort());
            assert.deepEqual([...(found.parameters.get('list_repos') ?? [])].sort(), ['limit', 'query']);
            const result = await tools.call('list_repos', { query: 'app' });
            assert.equal(result.text, 'github.com/acme/app');
            assert.deepEqual(result.structured, { repositories: [{ name: 'github.com/acme/app' }] });
            assert.deepEqual(server.methods(), [
              'server/discover',
              'initialize',
              'notifications/initialized',
              'tools/list',
              'tools/list',
              'tools/list',
              'tools/call',
            ]);
            assert.ok(
              server.authorizations.every((header) => header === `token ${TOKEN}`),
              server.authorizations.join('\n'),
            );
            // What was found is remembered: the next connection goes straight to the handshake.
            await tools.close();
            await client().call('list_repos', { query: 'lib' });
            assert.deepEqual(server.methods().slice(7, 9), ['initialize', 'notifications/initialized']);
          });

          it("reads past the notifications of a call (and, in a session with a stream, answers the server's ping)", async function () {
            const result = await client().call('keyword_search', { query: 'parseConfig' });
            assert.equal(result.text, 'found parseConfig');
            assert.equal(server.pings, stateful && !json ? 1 : 0);
          });

          it('says what the server said when a tool fails', async function () {
            const error = await expectError(client().call('nls_search', { query: 'x' }), 'badRequest');
            assert.equal(error.message, 'no nls_search here: ask for something else');
          });

          it('gives up on a call that takes too long, says so, and lets the server know', async function () {
            const tools = client(1_500);
            await tools.server();
            const error = await expectError(tools.call('read_file', { repo: 'r', path: 'p' }), 'timeout');
            assert.match(error.message, /did not answer within/);
            if (stateful) {
              // A session is told by notifications/cancelled; the POST it was on is closed besides.
              for (let waited = 0; server.cancelled.length === 0 && waited < 3_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
              assert.deepEqual(server.cancelled, ['read_file']);
              assert.ok(server.methods().includes('notifications/cancelled'), server.methods().join(', '));
            }
          });

          it('stops a call when its signal aborts', async function () {
            const tools = client();
            await tools.server();
            const controller = new AbortController();
            const pending = tools.call('read_file', { repo: 'r', path: 'p' }, controller.signal);
            setTimeout(() => controller.abort(), 100);
            await expectError(pending, 'canceled');
          });

          it(stateful ? 'ends its session on the server when closed' : 'has no session to end when closed', async function () {
            const tools = client();
            await tools.call('list_repos', { query: 'app' });
            await tools.close();
            const deletes = server.requests.filter((line) => line.startsWith('DELETE '));
            assert.equal(deletes.length, stateful ? 1 : 0, server.requests.join('\n'));
            assert.equal(server.ended.length, stateful ? 1 : 0);
          });
        });
      }
    }

    it('resumes an event stream the server ended before answering (GET with Last-Event-ID)', async function () {
      server = await startSdkServer({ stateful: true, json: false, resumable: true });
      const result = await client().call('commit_search', { query: 'fix' });
      assert.equal(result.text, 'answered after the stream ended');
      assert.ok(server.requests.includes('GET /.api/mcp/all (resuming)'), server.requests.join('\n'));
    });

    it('renews a refused token once and goes on (the same renewal as the conversation client)', async function () {
      server = await startSdkServer({ stateful: true, json: true, acceptOnly: 'Bearer renewed-token-1234' });
      let renewals = 0;
      const credential: Credential = {
        header: () => Promise.resolve(renewals === 0 ? 'Bearer expired-token-1234' : 'Bearer renewed-token-1234'),
        renewAfter: (sent) => {
          renewals++;
          return Promise.resolve(sent === 'Bearer expired-token-1234' ? 'Bearer renewed-token-1234' : undefined);
        },
      };
      assert.equal((await client(10_000, credential).call('list_repos', { query: 'app' })).text, 'github.com/acme/app');
      assert.equal(renewals, 1);
      assert.deepEqual(server.authorizations.slice(0, 2), ['Bearer expired-token-1234', 'Bearer renewed-token-1234']);
    });
  });
