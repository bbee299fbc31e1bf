/**
 * The tool server in both lanes of MCP, over HTTP: the 2026-07-28 stateless revision (a request
 * carries its version and capabilities in `_meta`; `server/discover`; `resultType`, cache hints; the
 * revision's errors and header rules) beside the 2025 handshake, on the same endpoints, and each
 * lane alone (`toolProtocol`). Clients: the official SDK 2.x client (2026, with its fallback), the
 * SDK 1.x client (2025), and raw requests for what a client library would never send.
 */
import assert from 'node:assert/strict';
import { Client as Client2026, StreamableHTTPClientTransport as Transport2026 } from '@modelcontextprotocol/client';
import { Client as Client2025 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Transport2025 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestEngine, TEST_TOKENS, type TestEngine } from '../../../support/engineHarness';
import { SAMPLE_APP_NAME } from '../../../support/gitRepos';

const AUTH = { Authorization: `token ${TEST_TOKENS[0]}` };
const META = (version = '2026-07-28', capabilities: unknown = {}) => ({
  'io.modelcontextprotocol/protocolVersion': version,
  'io.modelcontextprotocol/clientCapabilities': capabilities,
  'io.modelcontextprotocol/clientInfo': { name: 'lanes-test', version: '1.0.0' },
});

interface RpcReply {
  status: number;
  body: { result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };
}

/** One raw POST of the 2026 lane, with the headers the revision asks for unless told otherwise. */
async function post2026(url: string, method: string, params: Record<string, unknown>, headers: Record<string, string | undefined> = {}): Promise<RpcReply> {
  const sent: Record<string, string> = {
    ...AUTH,
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': '2026-07-28',
    'Mcp-Method': method,
  };
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) delete sent[name];
    else sent[name] = value;
  }
  const response = await fetch(url, { method: 'POST', headers: sent, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }) });
  return { status: response.status, body: (await response.json()) as RpcReply['body'] };
}

async function connect2026(url: string, mode: 'auto' | { pin: '2026-07-28' } = 'auto'): Promise<Client2026> {
  const client = new Client2026({ name: 'lanes-test', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(new Transport2026(new URL(url), { requestInit: { headers: AUTH } }));
  return client;
}

async function connect2025(url: string): Promise<Client2025> {
  const client = new Client2025({ name: 'lanes-test', version: '1.0.0' });
  await client.connect(new Transport2025(new URL(url), { requestInit: { headers: AUTH } }));
  return client;
}

interface RawReply {
  status: number;
  /** The headers a client acts on: the challenge and the body's type. */
  headers: { 'www-authenticate': string | null; 'content-type': string | null };
  body: string;
}

/** The first request of each lane, raw: the 2026 lane's server/discover, the handshake's initialize. */
async function firstRequests(url: string, headers: Record<string, string>): Promise<{ modern: RawReply; legacy: RawReply }> {
  const raw = async (response: Response): Promise<RawReply> => ({
    status: response.status,
    headers: { 'www-authenticate': response.headers.get('www-authenticate'), 'content-type': response.headers.get('content-type') },
    body: await response.text(),
  });
  const modern = await fetch(url, {
    method: 'POST',
    headers: {
      ...headers,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': 'server/discover',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: META() } }),
  });
  const legacy = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
    }),
  });
  return { modern: await raw(modern), legacy: await raw(legacy) };
}

async function readsConfig(call: (args: Record<string, unknown>) => Promise<unknown>): Promise<void> {
  const result = await call({ repo: SAMPLE_APP_NAME, path: 'src/config.ts', startLine: 11, endLine: 11 });
  assert.match(JSON.stringify(result), /11: export function parseConfig/);
}

describe('MCP: the 2026-07-28 lane beside the 2025 handshake', function () {
  this.timeout(60_000);

  describe('an engine of both lanes (the default)', function () {
    let engine: TestEngine;
    let url: string;
    before(async function () {
      engine = await startTestEngine({ paceMs: 0, variant: { disabledTools: ['nls_search'] } });
      url = `${engine.url}/.api/mcp/all`;
    });
    after(async function () {
      await engine?.dispose();
    });

    it('serves the SDK 2.x client statelessly and the SDK 1.x client through the handshake, with the same tools', async function () {
      const modern = await connect2026(url);
      const legacy = await connect2025(url);
      try {
        assert.equal(modern.getProtocolEra(), 'modern');
        const modernTools = (await modern.listTools()).tools.map((tool) => tool.name);
        const legacyTools = (await legacy.listTools()).tools.map((tool) => tool.name);
        assert.deepEqual(modernTools, legacyTools);
        assert.ok(modernTools.includes('read_file') && !modernTools.includes('nls_search'), 'a disabled tool is gone from both lanes');
        await readsConfig((args) => modern.callTool({ name: 'read_file', arguments: args }));
        await readsConfig((args) => legacy.callTool({ name: 'read_file', arguments: args }));
        const refused = await modern.callTool({ name: 'nls_search', arguments: { query: 'config' } });
        assert.equal(refused.isError, true);
      } finally {
        await modern.close();
        await legacy.close();
      }
    });

    it('describes itself through server/discover, with the result type, cache hints and its name in _meta', async function () {
      const { status, body } = await post2026(url, 'server/discover', { _meta: META() });
      assert.equal(status, 200);
      assert.deepEqual(body.result?.supportedVersions, ['2026-07-28']);
      assert.deepEqual(body.result?.capabilities, { tools: {} });
      assert.equal(body.result?.resultType, 'complete');
      assert.equal(body.result?.cacheScope, 'private');
      assert.ok(Number.isInteger(body.result?.ttlMs) && (body.result?.ttlMs as number) > 0);
      assert.deepEqual(body.result?._meta, { 'io.modelcontextprotocol/serverInfo': { name: 'deep-search-local-engine', version: '0.1.0' } });
      const listed = await post2026(url, 'tools/list', { _meta: META() });
      assert.equal(listed.body.result?.resultType, 'complete');
      assert.equal(listed.body.result?.cacheScope, 'private');
      assert.ok(Array.isArray(listed.body.result?.tools));
    });

    it('answers a version it does not speak with -32022 and the versions it does, for the client to retry', async function () {
      const { status, body } = await post2026(url, 'tools/list', { _meta: META('2027-01-01') }, { 'MCP-Protocol-Version': '2027-01-01' });
      assert.equal(status, 400);
      assert.equal(body.error?.code, -32022);
      // The versions of this lane, as server/discover lists them; the message names the handshake's too.
      assert.deepEqual(body.error?.data, { supported: ['2026-07-28'], requested: '2027-01-01' });
      assert.match(body.error?.message ?? '', /the initialize handshake takes 2025-11-25, 2025-06-18/);
    });

    it('refuses a request whose headers disagree with its body (-32020), or that lacks the capabilities (-32602), with 400', async function () {
      const wrongMethod = await post2026(url, 'tools/list', { _meta: META() }, { 'Mcp-Method': 'tools/call' });
      assert.deepEqual([wrongMethod.status, wrongMethod.body.error?.code], [400, -32020]);
      const noVersionHeader = await post2026(url, 'tools/list', { _meta: META() }, { 'MCP-Protocol-Version': undefined });
      assert.deepEqual([noVersionHeader.status, noVersionHeader.body.error?.code], [400, -32020]);
      // Headers and body that disagree are refused as such, even when the body's version is not served.
      const otherVersion = await post2026(url, 'tools/list', { _meta: META('2027-01-01') });
      assert.deepEqual([otherVersion.status, otherVersion.body.error?.code], [400, -32020]);
      const args = { repo: SAMPLE_APP_NAME, path: 'src/config.ts' };
      const wrongName = await post2026(url, 'tools/call', { _meta: META(), name: 'read_file', arguments: args }, { 'Mcp-Name': 'list_files' });
      assert.deepEqual([wrongName.status, wrongName.body.error?.code], [400, -32020]);
      const noCapabilities = await post2026(url, 'tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } });
      assert.deepEqual([noCapabilities.status, noCapabilities.body.error?.code], [400, -32602]);
      // The header names a 2026 version but the body has no _meta: the revision's -32602, not the handshake.
      const noMeta = await fetch(url, {
        method: 'POST',
        headers: {
          ...AUTH,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'MCP-Protocol-Version': '2026-07-28',
          'Mcp-Method': 'tools/list',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      assert.equal(noMeta.status, 400);
      assert.equal(((await noMeta.json()) as RpcReply['body']).error?.code, -32602);
    });

    it('takes a tool name sent base64-encoded in Mcp-Name, and answers with the result type', async function () {
      const args = { repo: SAMPLE_APP_NAME, path: 'src/config.ts', startLine: 11, endLine: 11 };
      const encoded = `=?base64?${Buffer.from('read_file').toString('base64')}?=`;
      const { status, body } = await post2026(url, 'tools/call', { _meta: META(), name: 'read_file', arguments: args }, { 'Mcp-Name': encoded });
      assert.equal(status, 200);
      assert.equal(body.result?.resultType, 'complete');
      assert.match(JSON.stringify(body.result?.content), /parseConfig/);
    });

    it('has no ping, initialize or logging/setLevel in the 2026 lane (404, -32601), while the handshake lane keeps ping', async function () {
      for (const method of ['ping', 'initialize', 'logging/setLevel']) {
        const { status, body } = await post2026(url, method, { _meta: META() });
        assert.deepEqual([status, body.error?.code], [404, -32601], method);
      }
      const legacy = await connect2025(url);
      try {
        assert.deepEqual(await legacy.ping(), {});
      } finally {
        await legacy.close();
      }
    });

    it('asks for the token in both lanes alike: 401, the same Bearer challenge and the same words', async function () {
      const { modern, legacy } = await firstRequests(url, {});
      assert.equal(modern.status, 401);
      assert.match(modern.headers['www-authenticate'] ?? '', /^Bearer realm="Deep Search local engine", error="invalid_token", error_description="[^"]+"/);
      assert.match(modern.body, /token/i);
      assert.deepEqual(legacy, modern);
    });
  });

  describe("a token without the tool server's scope", function () {
    let engine: TestEngine;
    before(async function () {
      engine = await startTestEngine({ paceMs: 0, users: [{ token: TEST_TOKENS[0], id: 1, scopes: ['externalapi:read'] }] });
    });
    after(async function () {
      await engine?.dispose();
    });

    it('is refused alike in both lanes (403, naming the scope, the same headers and words)', async function () {
      const { modern, legacy } = await firstRequests(`${engine.url}/.api/mcp/all`, AUTH);
      assert.equal(modern.status, 403);
      assert.match(modern.body, /mcp/);
      assert.deepEqual(legacy, modern);
    });
  });

  describe('an engine of one lane', function () {
    let engine: TestEngine | undefined;
    afterEach(async function () {
      await engine?.dispose();
      engine = undefined;
    });

    it('2025 only: the SDK 2.x client falls back to the handshake and works; pinned to 2026 it fails', async function () {
      engine = await startTestEngine({ paceMs: 0, variant: { toolProtocol: '2025' } });
      const url = `${engine.url}/.api/mcp/all`;
      const client = await connect2026(url);
      try {
        assert.equal(client.getProtocolEra(), 'legacy');
        await readsConfig((args) => client.callTool({ name: 'read_file', arguments: args }));
      } finally {
        await client.close();
      }
      await assert.rejects(connect2026(url, { pin: '2026-07-28' }));
      // A server of the handshake only refuses the revision's version header, as servers before it did.
      const { status, body } = await post2026(url, 'server/discover', { _meta: META() });
      assert.deepEqual([status, body.error?.code], [400, -32000]);
      assert.match(body.error?.message ?? '', /Unsupported protocol version: 2026-07-28 \(supported versions: 2025-11-25/);
    });

    it("2026 only: the SDK 2.x client works statelessly; the handshake is refused with the revision's error", async function () {
      engine = await startTestEngine({ paceMs: 0, variant: { toolProtocol: '2026' } });
      const url = `${engine.url}/.api/mcp/v1`;
      const client = await connect2026(url, { pin: '2026-07-28' });
      try {
        await readsConfig((args) => client.callTool({ name: 'sg_read_file', arguments: args }));
      } finally {
        await client.close();
      }
      await assert.rejects(connect2025(url));
      const initialize = await fetch(url, {
        method: 'POST',
        headers: { ...AUTH, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
        }),
      });
      assert.equal(initialize.status, 400);
      const refused = (await initialize.json()) as RpcReply['body'];
      assert.equal(refused.error?.code, -32602);
      assert.match(refused.error?.message ?? '', /2026-07-28/);
    });
  });
});
