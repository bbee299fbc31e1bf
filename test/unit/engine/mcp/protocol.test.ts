/**
 * The tool server's protocol: token authentication, the MCP handshake over Streamable HTTP, and a
 * tools/list whose names, arguments, required fields and output schemas are those of the real
 * tool server (`mcp-tools-v1.json`).
 */
import assert from 'node:assert/strict';
import { MCP_PATH } from '../../../../src/contract/legacyWire';
import { TEST_TOKENS } from '../../../support/engineHarness';
import { APP, createWorld, McpSession, type McpWorld } from './fixture';
import { hash, sentencesOf, type Fingerprints } from './referenceFingerprints';
import fingerprints from './referenceFingerprints.json';

/** From the real server's tool list (late 2025): inputs with their types, required inputs and outputs. */
const EXPECTED: Record<string, { required: string[]; properties: string[]; outputRequired: string[] }> = {
  sg_commit_search: {
    required: ['repos'],
    properties: [
      'after:string',
      'authors:array',
      'before:string',
      'contentTerms:array',
      'count:integer',
      'files:array',
      'messageTerms:array',
      'repos:array',
      'useRegex:boolean',
    ],
    outputRequired: ['commits', 'limitHit', 'query', 'totalCount'],
  },
  sg_compare_revisions: {
    required: ['base', 'head', 'repo'],
    properties: ['after:string', 'base:string', 'first:integer', 'head:string', 'repo:string'],
    outputRequired: ['base', 'endCursor', 'files', 'hasNextPage', 'head', 'repository', 'totalAdded', 'totalDeleted', 'totalModified'],
  },
  sg_deepsearch: {
    required: ['question'],
    properties: ['question:string'],
    outputRequired: ['conversation_id', 'question_id'],
  },
  sg_diff_search: {
    required: ['pattern', 'repos'],
    properties: [
      'added:boolean',
      'after:string',
      'author:string',
      'before:string',
      'count:integer',
      'pattern:string',
      'removed:boolean',
      'repos:array',
      'useRegex:boolean',
    ],
    outputRequired: ['limitHit', 'query', 'results', 'totalCount'],
  },
  sg_find_references: {
    required: ['path', 'repo', 'symbol'],
    properties: ['path:string', 'repo:string', 'revision:string', 'symbol:string'],
    outputRequired: ['fileBlocks'],
  },
  sg_get_contributor_repos: {
    required: ['author'],
    properties: ['author:string', 'limit:integer', 'minCommits:integer'],
    outputRequired: ['repositories'],
  },
  sg_go_to_definition: {
    required: ['path', 'repo', 'symbol'],
    properties: ['path:string', 'repo:string', 'revision:string', 'symbol:string'],
    outputRequired: ['fileBlocks'],
  },
  sg_keyword_search: {
    required: ['query'],
    properties: ['query:string'],
    outputRequired: ['blocks'],
  },
  sg_list_files: {
    required: ['repo'],
    properties: ['path:string', 'repo:string', 'revision:string'],
    outputRequired: ['files'],
  },
  sg_list_repos: {
    required: ['query'],
    properties: ['after:string', 'before:string', 'limit:integer', 'query:string'],
    outputRequired: ['pagination', 'repositories'],
  },
  sg_nls_search: {
    required: ['query'],
    properties: ['query:string'],
    outputRequired: ['blocks'],
  },
  sg_read_file: {
    required: ['path', 'repo'],
    properties: ['endLine:integer', 'path:string', 'repo:string', 'revision:string', 'startLine:integer'],
    outputRequired: ['content'],
  },
};

/** The reference's fingerprints, kept here (rebuildFingerprints.ts checks them against the reference itself). */
const FINGERPRINTS: Fingerprints = fingerprints;

interface JsonSchema {
  type?: string;
  required?: string[];
  properties?: Record<string, { type?: string }>;
  additionalProperties?: boolean;
}

function summary(schema: JsonSchema): { required: string[]; properties: string[] } {
  return {
    required: [...(schema.required ?? [])].sort(),
    properties: Object.entries(schema.properties ?? {})
      .map(([name, property]) => `${name}:${property.type ?? '?'}`)
      .sort(),
  };
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('MCP tool server: protocol', function () {
  let world: McpWorld;
  let session: McpSession;

  before(async function () {
    world = await createWorld();
    session = await McpSession.open(world.engine.url);
  });
  after(async function () {
    await session?.close();
    await world?.dispose();
  });

  it('completes the MCP handshake and names itself', function () {
    const version = session.client.getServerVersion();
    assert.equal(version?.name, 'deep-search-local-engine');
    assert.ok(session.client.getServerCapabilities()?.tools, 'the server offers tools');
  });

  it('lists exactly the tools of the real server, with their arguments and required fields', async function () {
    const { tools } = await session.client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), Object.keys(EXPECTED).sort());
    for (const tool of tools) {
      const expected = EXPECTED[tool.name];
      assert.ok(expected);
      const input = summary(tool.inputSchema);
      assert.deepEqual(input.required, expected.required, `${tool.name} required arguments`);
      assert.deepEqual(input.properties, expected.properties, `${tool.name} arguments and their types`);
      assert.equal((tool.inputSchema as JsonSchema).additionalProperties, false, `${tool.name} takes no other arguments`);
      assert.ok(tool.outputSchema, `${tool.name} has an output schema`);
      assert.deepEqual(summary(tool.outputSchema as JsonSchema).required, expected.outputRequired, `${tool.name} output required fields`);
      assert.ok((tool.description ?? '').length > 80, `${tool.name} describes itself`);
    }
  });

  it('matches the reference tool schemas (their fingerprints, kept in this repository)', function () {
    const expected = Object.fromEntries(Object.entries(EXPECTED).map(([name, shape]) => [name, hash(JSON.stringify(shape))]));
    assert.deepEqual(expected, FINGERPRINTS.shapes, "the table above is the reference's shapes");
  });

  it('writes its own tool descriptions', async function () {
    const theirs = new Set(FINGERPRINTS.sentences);
    assert.ok(theirs.size > 100, "the reference's sentences are known");
    const { tools } = await session.client.listTools();
    for (const tool of tools) {
      for (const sentence of sentencesOf(tool.description ?? ''))
        assert.ok(!theirs.has(hash(sentence)), `${tool.name} copies a sentence of the reference: "${sentence}"`);
    }
  });

  it('answers 401 with a JSON error without a token or with a wrong one', async function () {
    const url = world.engine.url + MCP_PATH;
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    const attempts: Array<Record<string, string>> = [{}, { Authorization: 'token not-a-real-token' }, { Authorization: 'Basic abc' }];
    for (const headers of attempts) {
      const response = await post(url, initialize, headers);
      assert.equal(response.status, 401);
      const body = (await response.json()) as { error?: string };
      assert.match(body.error ?? '', /token/i);
    }
    await assert.rejects(McpSession.open(world.engine.url, 'wrong-token'));
  });

  it('needs no X-Requested-With header, accepts Bearer tokens and serves /.api/mcp too (names without sg_)', async function () {
    const list = { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} };
    const response = await post(world.engine.url + MCP_PATH, list, { Authorization: `Bearer ${TEST_TOKENS[1]}` });
    assert.equal(response.status, 200);
    const body = (await response.json()) as { id: number; result: { tools: Array<{ name: string }> } };
    assert.equal(body.id, 7);
    assert.equal(body.result.tools.length, 12);
    const alias = await McpSession.open(world.engine.url, TEST_TOKENS[1], '/.api/mcp');
    try {
      const reply = await alias.ok<{ repositories: unknown[] }>('list_repos', { query: 'acme' });
      assert.equal(reply.structured.repositories.length, 2);
    } finally {
      await alias.close();
    }
  });

  it('answers GET and DELETE with 405 (stateless: no stream, no session)', async function () {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(world.engine.url + MCP_PATH, { method, headers: { Authorization: `token ${TEST_TOKENS[0]}`, Accept: 'text/event-stream' } });
      assert.equal(response.status, 405);
      assert.equal(response.headers.get('allow'), 'POST');
      await response.text();
    }
  });

  it('answers malformed JSON-RPC with a protocol error, not a crash', async function () {
    const response = await post(world.engine.url + MCP_PATH, '{not json', { Authorization: `token ${TEST_TOKENS[0]}` });
    assert.equal(response.status, 400);
    const body = (await response.json()) as { error?: { code: number } };
    assert.equal(body.error?.code, -32700);
  });

  it('turns arguments that break the schema into a tool error naming the argument', async function () {
    const missing = await session.fails('sg_read_file', { repo: APP });
    assert.match(missing, /path/);
    const extra = await session.fails('sg_read_file', { repo: APP, path: 'README.md', colour: 'red' });
    assert.match(extra, /colour/);
    const wrongType = await session.fails('sg_list_repos', { query: 'acme', limit: 'ten' });
    assert.match(wrongType, /limit/);
  });

  it('reports an unknown tool as an error', async function () {
    const reply = await session.call('sg_no_such_tool', {});
    assert.equal(reply.isError, true);
    assert.match(reply.text, /sg_no_such_tool/);
  });

  it('serves several clients at once', async function () {
    const sessions = await Promise.all([0, 1, 0].map((user) => McpSession.open(world.engine.url, TEST_TOKENS[user as 0 | 1])));
    try {
      const replies = await Promise.all(
        sessions.map((each, index) => each.ok<{ content: string }>('sg_read_file', { repo: APP, path: 'README.md', endLine: index + 1 })),
      );
      replies.forEach((reply, index) => assert.equal(reply.structured.content.split('\n').length, index + 1));
    } finally {
      await Promise.all(sessions.map((each) => each.close()));
    }
  });
});
