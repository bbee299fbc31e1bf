/**
 * The tool server's own MCP transport, spoken to over real HTTP with hand-written JSON-RPC (the
 * SDK client in the other suites proves the happy path): protocol errors with their JSON-RPC codes,
 * notifications, version negotiation and the MCP-Protocol-Version header, batches, and what GET,
 * DELETE and other requests it cannot take are answered with.
 */
import assert from 'node:assert/strict';
import { MCP_PATH } from '../../../../src/contract/legacyWire';
import { startTestEngine, TEST_TOKENS, type TestEngine } from '../../../support/engineHarness';
import Ajv2020 from 'ajv/dist/2020';

interface RpcReply {
  jsonrpc: string;
  id: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body, or undefined when it is empty. */
  body: unknown;
}

const ACCEPT = 'application/json, text/event-stream';

function initialize(protocolVersion: unknown, id: string | number = 1): object {
  return { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'transport-tests', version: '1.0.0' } } };
}

describe('MCP tool server: Streamable HTTP transport', function () {
  let engine: TestEngine;

  before(async function () {
    engine = await startTestEngine();
  });
  after(async function () {
    await engine?.dispose();
  });

  async function send(body: unknown, init: { headers?: Record<string, string>; method?: string; path?: string } = {}): Promise<Answer> {
    const response = await fetch(engine.url + (init.path ?? MCP_PATH), {
      method: init.method ?? 'POST',
      headers: { Authorization: `token ${TEST_TOKENS[0]}`, 'Content-Type': 'application/json', Accept: ACCEPT, ...init.headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
  }

  /** Sends one request that must be answered 200 with a JSON-RPC reply to it. */
  async function rpc(method: string, params?: unknown, id: string | number = 7, headers: Record<string, string> = {}): Promise<RpcReply> {
    const answer = await send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }, { headers });
    assert.equal(answer.status, 200, answer.text);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
    assertNotStoredOrSniffed(answer);
    const reply = answer.body as RpcReply;
    assert.equal(reply.jsonrpc, '2.0');
    assert.equal(reply.id, id, 'the reply carries the request id');
    return reply;
  }

  /** Every reply, as the conversation API's: never cached, never content-sniffed. */
  function assertNotStoredOrSniffed(answer: Answer): void {
    assert.equal(answer.headers.get('cache-control'), 'no-store');
    assert.equal(answer.headers.get('x-content-type-options'), 'nosniff');
  }

  /** Asserts a whole-POST rejection: the HTTP status and a JSON-RPC error without an id. */
  function assertRejected(answer: Answer, status: number, code: number): string {
    assert.equal(answer.status, status, answer.text);
    assertNotStoredOrSniffed(answer);
    const reply = answer.body as RpcReply;
    assert.equal(reply.id, null);
    assert.equal(reply.error?.code, code);
    return reply.error.message;
  }

  describe('protocol errors', function () {
    it('answers a body that is not JSON with 400 and a parse error (-32700)', async function () {
      assertRejected(await send('{"jsonrpc": "2.0", "id": 1,'), 400, -32700);
      assertRejected(await send(''), 400, -32700);
    });

    it('answers JSON that is no JSON-RPC message with 400 and an invalid request (-32600)', async function () {
      for (const body of [
        { hello: 'world' },
        { jsonrpc: '1.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', id: null, method: 'ping' },
        { jsonrpc: '2.0', id: 1, method: 'ping', params: [1] },
        'null',
      ]) {
        assertRejected(await send(body), 400, -32600);
      }
    });

    it('answers an unknown method with -32601, naming it, under the request id', async function () {
      const reply = await rpc('resources/list', {}, 'abc');
      assert.equal(reply.error?.code, -32601);
      assert.match(reply.error?.message ?? '', /resources\/list/);
      assert.equal(reply.result, undefined);
    });

    it('answers invalid params with -32602 naming the field', async function () {
      const noName = await rpc('tools/call', { arguments: {} });
      assert.equal(noName.error?.code, -32602);
      assert.match(noName.error?.message ?? '', /\bname\b/);
      const badArguments = await rpc('tools/call', { name: 'sg_list_repos', arguments: 'query=app' });
      assert.equal(badArguments.error?.code, -32602);
      assert.match(badArguments.error?.message ?? '', /\barguments\b/);
      const noVersion = await rpc('initialize', { capabilities: {}, clientInfo: { name: 't', version: '1' } });
      assert.equal(noVersion.error?.code, -32602);
      assert.match(noVersion.error?.message ?? '', /protocolVersion/);
    });

    it('reports tool arguments that break the schema as a tool error naming each one, nested ones by their path', async function () {
      const reply = await rpc('tools/call', { name: 'sg_commit_search', arguments: { repos: ['app', 2], count: 'ten', colour: 'red' } });
      const result = reply.result as { isError?: boolean; content: Array<{ text: string }> };
      assert.equal(result.isError, true);
      const text = result.content[0]?.text ?? '';
      assert.match(text, /Invalid arguments for tool sg_commit_search/);
      assert.match(text, /repos\[1\] must be a string/);
      assert.match(text, /count must be an integer/);
      assert.match(text, /colour is not expected/);
    });
  });

  describe('messages', function () {
    it('takes a notification, or a response, with 202 and no body', async function () {
      for (const body of [
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3 } },
        { jsonrpc: '2.0', id: 4, result: {} },
      ]) {
        const answer = await send(body);
        assert.equal(answer.status, 202, JSON.stringify(body));
        assert.equal(answer.text, '');
      }
    });

    it('answers ping with an empty result', async function () {
      assert.deepEqual((await rpc('ping')).result, {});
    });

    it('lists the tools with JSON Schemas and annotations, under the names of each endpoint', async function () {
      const reply = await rpc('tools/list', {});
      const tools = (
        reply.result as {
          tools: Array<{ name: string; inputSchema: Record<string, unknown>; outputSchema: Record<string, unknown>; annotations: Record<string, unknown> }>;
        }
      ).tools;
      const readFile = tools.find((tool) => tool.name === 'sg_read_file');
      assert.ok(readFile);
      assert.deepEqual(readFile.inputSchema.required, ['repo', 'path']);
      assert.deepEqual(readFile.inputSchema.properties && (readFile.inputSchema.properties as Record<string, unknown>).startLine, {
        type: 'integer',
        description: 'First line to return (1-based). Default 1.',
      });
      assert.equal(readFile.inputSchema.$schema, 'https://json-schema.org/draft/2020-12/schema');
      assert.equal(readFile.outputSchema.additionalProperties, false);
      assert.deepEqual(readFile.annotations, { title: 'Read a file', readOnlyHint: true, openWorldHint: false });
      assert.equal(tools.find((tool) => tool.name === 'sg_deepsearch')?.annotations.readOnlyHint, false);
      // 2026's curated default: the v1 tools it keeps, without sg_, and deepsearch_read.
      const plain = await send({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { path: '/.api/mcp' });
      const names = (plain.body as { result: { tools: Array<{ name: string }> } }).result.tools.map((tool) => tool.name);
      assert.deepEqual(names, ['read_file', 'list_files', 'list_repos', 'keyword_search', 'commit_search', 'diff_search', 'deepsearch_read']);
    });
  });

  it('publishes every schema as JSON Schema 2020-12 that a strict 2020-12 validator accepts', async function () {
    const reply = await rpc('tools/list', {});
    const tools = (reply.result as { tools: Array<{ name: string; inputSchema: object; outputSchema: object }> }).tools;
    assert.equal(tools.length, 12);
    const all = await send({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { path: '/.api/mcp/all' });
    const current = (all.body as { result: { tools: Array<{ name: string; inputSchema: object; outputSchema: object }> } }).result.tools;
    assert.equal(current.length, 13);
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    for (const tool of [...tools, ...current]) {
      for (const schema of [tool.inputSchema, tool.outputSchema]) {
        assert.doesNotThrow(() => ajv.compile(schema), tool.name);
      }
    }
    const readFile = ajv.compile(tools.find((tool) => tool.name === 'sg_read_file')!.inputSchema);
    assert.equal(readFile({ repo: 'github.com/acme/app', path: 'README.md', startLine: 2 }), true);
    assert.equal(readFile({ repo: 'github.com/acme/app' }), false, 'path is required');
    assert.equal(readFile({ repo: 'github.com/acme/app', path: 'README.md', startLine: 1.5 }), false, 'lines are integers');
  });

  describe('versions', function () {
    it('agrees to each version the SDK speaks, and offers the latest for any other', async function () {
      for (const version of ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07']) {
        const reply = await rpc('initialize', (initialize(version) as { params: unknown }).params);
        assert.equal(reply.result?.protocolVersion, version);
      }
      const reply = await rpc('initialize', (initialize('1999-01-01') as { params: unknown }).params);
      assert.equal(reply.result?.protocolVersion, '2025-11-25');
      assert.deepEqual(reply.result?.serverInfo, { name: 'deep-search-local-engine', version: '0.1.0' });
      assert.deepEqual(reply.result?.capabilities, { tools: {} });
    });

    it('issues no session id (stateless) and ignores one that is sent', async function () {
      const answer = await send(initialize('2025-06-18'));
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('mcp-session-id'), null);
      assert.deepEqual((await rpc('ping', undefined, 1, { 'Mcp-Session-Id': 'made-up' })).result, {});
    });

    it('holds requests after initialize to the MCP-Protocol-Version header: a known version passes, another is a 400', async function () {
      assert.deepEqual((await rpc('ping', undefined, 1, { 'MCP-Protocol-Version': '2025-06-18' })).result, {});
      const message = assertRejected(await send({ jsonrpc: '2.0', id: 1, method: 'ping' }, { headers: { 'MCP-Protocol-Version': '1999-01-01' } }), 400, -32000);
      assert.match(message, /1999-01-01/);
      assert.match(message, /2025-06-18/, 'the message lists the supported versions');
      // initialize is what chooses the version, so its header is not held against it.
      const init = await send(initialize('2025-06-18'), { headers: { 'MCP-Protocol-Version': '1999-01-01' } });
      assert.equal(init.status, 200);
    });
  });

  describe('batches', function () {
    const ping = (id: number): object => ({ jsonrpc: '2.0', id, method: 'ping' });

    it('answers a batch from a client of 2025-03-26 or older with the replies in order, notifications left out', async function () {
      const headerSets: Array<Record<string, string>> = [{}, { 'MCP-Protocol-Version': '2025-03-26' }];
      for (const headers of headerSets) {
        const answer = await send([ping(1), { jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', id: 2, method: 'nope' }, ping(3)], {
          headers,
        });
        assert.equal(answer.status, 200);
        const replies = answer.body as RpcReply[];
        assert.deepEqual(
          replies.map((reply) => reply.id),
          [1, 2, 3],
        );
        assert.deepEqual(replies[0]?.result, {});
        assert.equal(replies[1]?.error?.code, -32601);
      }
      const onlyNotifications = await send([{ jsonrpc: '2.0', method: 'notifications/initialized' }]);
      assert.equal(onlyNotifications.status, 202);
    });

    it('refuses batches from 2025-06-18 on, empty batches, and initialize in a batch', async function () {
      assert.match(assertRejected(await send([ping(1), ping(2)], { headers: { 'MCP-Protocol-Version': '2025-06-18' } }), 400, -32600), /batch/);
      assertRejected(await send([]), 400, -32600);
      assertRejected(await send([initialize('2025-03-26'), ping(2)]), 400, -32600);
    });
  });

  describe('HTTP', function () {
    it('answers GET, DELETE and PUT with 405 and Allow: POST, after the token check', async function () {
      for (const method of ['GET', 'DELETE', 'PUT']) {
        const answer = await send(undefined, { method, headers: { Accept: 'text/event-stream' } });
        assert.equal(answer.status, 405, method);
        assert.equal(answer.headers.get('allow'), 'POST');
        assert.match(assertRejected(answer, 405, -32000), new RegExp(`^${method} is not supported`));
      }
      const anonymous = await fetch(engine.url + MCP_PATH, { headers: { Accept: 'text/event-stream' } });
      assert.equal(anonymous.status, 401);
      await anonymous.text();
    });

    it('refuses a request from a web origin other than its own or loopback with 403, before anything else', async function () {
      for (const origin of ['https://evil.example', 'http://127.0.0.1.evil.example', 'null', 'http://192.168.1.5:8080']) {
        const answer = await send({ jsonrpc: '2.0', id: 1, method: 'ping' }, { headers: { Origin: origin } });
        assert.equal(answer.status, 403, origin);
        assert.match(answer.text, /are not accepted: the tool server answers clients on this machine, and the web origins --cors-origin names/);
      }
      for (const origin of [engine.url, 'http://localhost:8123', 'http://127.0.0.1:3000', 'http://[::1]:5000']) {
        const answer = await send({ jsonrpc: '2.0', id: 1, method: 'ping' }, { headers: { Origin: origin } });
        assert.equal(answer.status, 200, origin);
      }
    });

    it('answers 401 with a Bearer challenge that carries its message, and no OAuth metadata when OAuth is off', async function () {
      const withoutOAuth = await startTestEngine({ oauth: false });
      try {
        for (const authorization of [undefined, 'token not-a-valid-token']) {
          const response = await fetch(withoutOAuth.url + MCP_PATH, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', Accept: ACCEPT, ...(authorization ? { Authorization: authorization } : {}) },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
          });
          assert.equal(response.status, 401);
          const challenge = response.headers.get('www-authenticate') ?? '';
          assert.match(challenge, /^Bearer realm="Deep Search local engine", error="invalid_token", error_description="[^"]+"$/);
          assert.doesNotMatch(challenge, /not-a-valid-token/, 'the token is never repeated');
          await response.text();
        }
      } finally {
        await withoutOAuth.stop();
      }
      const withOAuth = await fetch(engine.url + MCP_PATH, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: ACCEPT }, body: '{}' });
      assert.match(
        withOAuth.headers.get('www-authenticate') ?? '',
        /error_description="[^"]+", resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/\.api\/mcp\/v1"$/,
      );
      await withOAuth.text();
    });

    it('asks for the Accept and Content-Type headers the transport prescribes', async function () {
      assertRejected(await send({ jsonrpc: '2.0', id: 1, method: 'ping' }, { headers: { Accept: 'application/json' } }), 406, -32000);
      assertRejected(await send({ jsonrpc: '2.0', id: 1, method: 'ping' }, { headers: { 'Content-Type': 'text/plain' } }), 415, -32000);
      const withCharset = await send({ jsonrpc: '2.0', id: 1, method: 'ping' }, { headers: { 'Content-Type': 'application/json; charset=utf-8' } });
      assert.equal(withCharset.status, 200);
    });

    it('refuses a body over 1 MB with 413', async function () {
      const answer = await send({ jsonrpc: '2.0', id: 1, method: 'ping', params: { padding: 'x'.repeat(1024 * 1024) } });
      assertRejected(answer, 413, -32000);
    });
  });
});
