/**
 * The MCP session on its own, over a scripted HTTP exchange: what it sends in each revision (the
 * 2026 envelope and headers, the handshake's session id and version), how it reads the revision
 * probe's answers, and the replies it refuses. The tool client against real servers (the engine,
 * the official SDK's) is tested in codeTools.engine.test.ts and mcpInterop.test.ts.
 */
import assert from 'node:assert/strict';
import { McpError, McpSession, type McpHttpRequest, type McpHttpResponse } from '../../../../src/api/tools/mcpSession';

interface Sent {
  method: string;
  headers: Record<string, string>;
  body: { id?: number; method?: string; params?: Record<string, unknown> } | undefined;
  probe: boolean;
}

type Answer = { status?: number; type?: string; headers?: Record<string, string>; body?: unknown; chunks?: string[] };

/** A session whose HTTP answers as `script` says, noting every request. */
function scripted(script: (sent: Sent, index: number) => Answer, maxReplyBytes?: number): { session: McpSession; sent: Sent[] } {
  const sent: Sent[] = [];
  const http = async (request: McpHttpRequest): Promise<McpHttpResponse> => {
    const entry: Sent = {
      method: request.method,
      headers: request.headers,
      body: request.body ? (JSON.parse(request.body) as Sent['body']) : undefined,
      probe: request.probe === true,
    };
    sent.push(entry);
    const answer = script(entry, sent.length - 1);
    const text = answer.chunks ?? [answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body)];
    return {
      status: answer.status ?? 200,
      headers: { 'content-type': answer.type ?? 'application/json', ...answer.headers },
      body: (async function* () {
        for (const part of text) yield Buffer.from(part);
      })(),
    };
  };
  return { session: new McpSession({ http, clientInfo: { name: 'test', version: '1.0.0' }, timeoutMs: 5_000, maxReplyBytes }), sent };
}

const result = (sent: Sent, value: unknown): Answer => ({ body: { jsonrpc: '2.0', id: sent.body?.id, result: value } });
const rpcError = (sent: Sent, code: number, message: string, data?: unknown): Answer => ({
  body: { jsonrpc: '2.0', id: sent.body?.id, error: { code, message, data } },
});
const DISCOVER = { supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, resultType: 'complete', ttlMs: 0, cacheScope: 'private' };
const TOOL = {
  name: 'read_file',
  inputSchema: {
    type: 'object',
    properties: {
      repo: { type: 'string', 'x-mcp-header': 'Repo' },
      range: { type: 'object', properties: { start: { type: 'integer', 'x-mcp-header': 'Start' } } },
    },
  },
};

/** A server of the handshake only (2025-06-18), with one tool. */
function handshakeServer(sent: Sent): Answer {
  switch (sent.body?.method) {
    case 'server/discover':
      return { status: 400, body: { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: Server not initialized' } } };
    case 'initialize':
      return {
        ...result(sent, { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } }),
        headers: { 'mcp-session-id': 'session-1' },
      };
    case 'tools/list':
      return result(sent, { tools: [TOOL] });
    case 'tools/call':
      return result(sent, { content: [{ type: 'text', text: 'ok' }] });
    default:
      return { status: 202 };
  }
}

async function rejectsWith(promise: Promise<unknown>, kind: McpError['kind'], message: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof McpError, String(error));
    assert.equal(error.kind, kind);
    assert.match(error.message, message);
    return true;
  });
}

describe('MCP session', function () {
  describe('in the 2026-07-28 revision', function () {
    it('asks with server/discover, then sends each request with its envelope and headers, and no handshake', async function () {
      const { session, sent } = scripted((request) => {
        if (request.body?.method === 'server/discover') return result(request, DISCOVER);
        if (request.body?.method === 'tools/list') return result(request, { tools: [TOOL], resultType: 'complete' });
        return result(request, { content: [{ type: 'text', text: 'file' }], resultType: 'complete' });
      });
      await session.connect();
      assert.deepEqual(session.revision, { kind: 'modern', discover: DISCOVER });
      await session.listTools(undefined);
      const called = await session.callTool('read_file', { repo: 'github.com/a/b', range: { start: 3 } });
      assert.deepEqual(called.content, [{ type: 'text', text: 'file' }]);
      assert.deepEqual(
        sent.map((request) => request.body?.method),
        ['server/discover', 'tools/list', 'tools/call'],
      );
      assert.deepEqual(
        sent.map((request) => request.probe),
        [true, false, false],
      );
      for (const request of sent) {
        assert.equal(request.headers['mcp-protocol-version'], '2026-07-28');
        assert.equal(request.headers['mcp-method'], request.body?.method);
        assert.equal(request.headers.accept, 'application/json, text/event-stream');
        assert.deepEqual(request.body?.params?._meta, {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        });
        assert.equal(request.headers['mcp-session-id'], undefined);
      }
      const call = sent[2];
      assert.equal(call?.headers['mcp-name'], 'read_file');
      // The arguments its schema marks with x-mcp-header, mirrored.
      assert.equal(call?.headers['mcp-param-repo'], 'github.com/a/b');
      assert.equal(call?.headers['mcp-param-start'], '3');
    });

    it('sends a name a header cannot hold as base64', async function () {
      const { session, sent } = scripted((request) => result(request, request.body?.method === 'tools/call' ? { content: [] } : DISCOVER));
      await session.connect();
      await session.callTool('lire_fiché', {});
      assert.equal(sent[1]?.headers['mcp-name'], `=?base64?${Buffer.from('lire_fiché').toString('base64')}?=`);
    });

    it('skips the question when the revision is known, and lists nothing of a server that offers no tools', async function () {
      const { session, sent } = scripted((request) => result(request, { tools: [TOOL] }));
      await session.connect({ prior: { kind: 'modern', discover: { ...DISCOVER, capabilities: {} } } });
      assert.deepEqual(await session.listTools(undefined), { tools: [] });
      assert.deepEqual(sent, []);
    });

    it('asks once more when the server names this version among those it speaks, and is refused by a server of another 2026 version', async function () {
      const refuses = (supported: string[]) =>
        scripted((request) => ({
          ...rpcError(request, -32022, 'Unsupported protocol version: 2026-07-28', { supported, requested: '2026-07-28' }),
          status: 400,
        }));
      const again = refuses(['2026-07-28']);
      await rejectsWith(again.session.connect(), 'rpc', /Unsupported protocol version/);
      assert.equal(again.sent.length, 2, 'one more try, then the refusal stands');
      await rejectsWith(refuses(['2027-03-01']).session.connect(), 'rpc', /Unsupported protocol version/);
      const older = refuses(['2025-06-18']);
      await assert.rejects(older.session.connect());
      assert.equal(older.sent[1]?.body?.method, 'initialize', 'versions of the handshake only: it falls back');
    });

    it('refuses a result that asks for more input', async function () {
      const { session } = scripted((request) =>
        result(request, request.body?.method === 'server/discover' ? DISCOVER : { resultType: 'input_required', inputRequests: {} }),
      );
      await session.connect();
      await rejectsWith(session.callTool('x', {}), 'protocol', /asked for more \(input_required\)/);
    });
  });

  describe('in the 2025 handshake', function () {
    it('falls back when the probe is refused, then names the session and the version it settled on', async function () {
      const { session, sent } = scripted(handshakeServer);
      await session.connect();
      assert.deepEqual(session.revision, { kind: 'legacy' });
      await session.listTools(undefined);
      await session.callTool('read_file', { repo: 'r' });
      await session.close();
      assert.deepEqual(
        sent.map((request) => `${request.method} ${request.body?.method ?? ''}`.trim()),
        ['POST server/discover', 'POST initialize', 'POST notifications/initialized', 'POST tools/list', 'POST tools/call', 'DELETE'],
      );
      const [, initialize, ...after] = sent;
      assert.deepEqual(initialize?.body?.params, { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '1.0.0' } });
      assert.equal(initialize?.headers['mcp-session-id'], undefined);
      assert.equal(initialize?.headers['mcp-protocol-version'], undefined);
      for (const request of after) {
        assert.equal(request.headers['mcp-session-id'], 'session-1', request.body?.method);
        assert.equal(request.headers['mcp-protocol-version'], '2025-06-18', request.body?.method);
        assert.equal(request.headers['mcp-method'], undefined, 'no 2026 header in the handshake');
        assert.equal(request.body?.params?._meta, undefined);
      }
    });

    it('falls back when the server answers the probe with a method-not-found error, or a description without this version', async function () {
      for (const probe of [
        (request: Sent) => rpcError(request, -32601, 'Method not found'),
        (request: Sent) => result(request, { ...DISCOVER, supportedVersions: ['2027-01-01'] }),
      ]) {
        const { session, sent } = scripted((request) => (request.body?.method === 'server/discover' ? probe(request) : handshakeServer(request)));
        await session.connect();
        assert.equal(sent[1]?.body?.method, 'initialize');
      }
    });

    it('goes straight to the handshake when the revision is known, and refuses a version it does not speak', async function () {
      const { session, sent } = scripted((request) => result(request, { protocolVersion: '2099-01-01', capabilities: {} }));
      await rejectsWith(session.connect({ prior: { kind: 'legacy' } }), 'protocol', /protocol version is not supported: 2099-01-01/);
      assert.deepEqual(
        sent.map((request) => request.body?.method),
        ['initialize'],
      );
    });
  });

  describe('replies it cannot use', function () {
    it('says a probe answered with something other than JSON-RPC is unusable', async function () {
      const { session } = scripted(() => ({ type: 'text/html', body: '<html>sign in</html>' }));
      await rejectsWith(
        session.connect(),
        'protocol',
        /Version negotiation probe failed: the server answered with an unusable reply \(Unexpected content type: text\/html\)/,
      );
    });

    it('reads no more than its bound, in JSON and in an event stream', async function () {
      const big = 'x'.repeat(5_000);
      const json = scripted(
        (request) => result(request, request.body?.method === 'server/discover' ? DISCOVER : { content: [{ type: 'text', text: big }] }),
        4_000,
      );
      await json.session.connect();
      await rejectsWith(json.session.callTool('x', {}), 'protocol', /more than 4000 bytes/);
      const events = scripted(
        (request) => (request.body?.method === 'server/discover' ? result(request, DISCOVER) : { type: 'text/event-stream', chunks: [`data: ${big}\n\n`] }),
        4_000,
      );
      await events.session.connect();
      await rejectsWith(events.session.callTool('x', {}), 'protocol', /more than 4000 bytes/);
    });

    it('says when an event stream ends without the answer and gives no way to resume it', async function () {
      const { session } = scripted((request) =>
        request.body?.method === 'server/discover' ? result(request, DISCOVER) : { type: 'text/event-stream', chunks: [': nothing to say\n\n'] },
      );
      await session.connect();
      await rejectsWith(session.callTool('x', {}), 'protocol', /ended its event stream without answering tools\/call/);
    });

    it('times out a request the server never answers', async function () {
      const never = new McpSession({
        http: (request) => new Promise((_resolve, reject) => request.signal.addEventListener('abort', () => reject(new Error('aborted')))),
        clientInfo: { name: 't', version: '1' },
        timeoutMs: 50,
      });
      await rejectsWith(never.connect(), 'timeout', /server\/discover timed out after 50 ms/);
    });
  });
});
