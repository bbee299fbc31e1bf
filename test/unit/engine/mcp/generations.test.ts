/**
 * The tool server generations: which endpoints each `toolServer` variant serves and which tools each
 * endpoint lists, the 2026 arguments (authors, revisions, count, limit, hasMoreResults) against
 * v1's on the same implementation, deepsearch_read, tools an admin disabled, and users without
 * MCP access.
 */
import assert from 'node:assert/strict';
import type { WireConversation } from '../../../../src/contract/legacyWire';
import type { CommitMatch } from '../../../../src/contract/toolWire';
import { ENDPOINT_TOOLS, TOOL_SERVER_ENDPOINTS } from '../../../../src/contract/toolServers';
import type { DeepSearchReadResult, DeepSearchResult } from '../../../../src/engine/tools/deepsearch';
import type { DiffResult } from '../../../../src/engine/tools/diffs';
import type { ContributorRepository } from '../../../../src/engine/tools/history';
import { startTestEngine, TEST_TOKENS, type TestEngine } from '../../../support/engineHarness';
import { createTestRepo, type TestRepo } from '../../../support/gitRepos';
import { ALAN, APP, LIB, McpSession, useMcpWorld, type Block, type McpWorld } from './fixture';

interface Commits {
  query: string;
  commits: CommitMatch[];
}
interface Diffs {
  query: string;
  results: DiffResult[];
}

const CURATED = ['read_file', 'list_files', 'list_repos', 'keyword_search', 'commit_search', 'diff_search', 'deepsearch_read'];
const ALL = [...CURATED, 'nls_search', 'go_to_definition', 'find_references', 'compare_revisions', 'get_contributor_repos', 'deepsearch'];
const V1 = [
  'sg_read_file',
  'sg_list_files',
  'sg_list_repos',
  'sg_keyword_search',
  'sg_nls_search',
  'sg_go_to_definition',
  'sg_find_references',
  'sg_commit_search',
  'sg_diff_search',
  'sg_compare_revisions',
  'sg_get_contributor_repos',
  'sg_deepsearch',
];

async function post(url: string, body: unknown, token: string = TEST_TOKENS[0]): Promise<{ status: number; text: string }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { Authorization: `token ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

/** The tool names an endpoint lists, or its HTTP status when it answers otherwise. */
async function listed(url: string): Promise<string[] | number> {
  const answer = await post(url, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
  if (answer.status !== 200) return answer.status;
  return (JSON.parse(answer.text) as { result: { tools: Array<{ name: string }> } }).result.tools.map((tool) => tool.name);
}

describe('MCP tool server generations', function () {
  let world: McpWorld;
  let v1: McpSession;
  let all: McpSession;
  const sessions: McpSession[] = [];
  const engines: TestEngine[] = [];

  useMcpWorld((made) => {
    world = made.world;
    v1 = made.mcp;
  });
  before(async function () {
    all = await McpSession.open(world.engine.url, TEST_TOKENS[0], '/.api/mcp/all');
    sessions.push(all);
  });
  after(async function () {
    await Promise.all(sessions.map((session) => session.close()));
    await Promise.all(engines.map((engine) => engine.dispose()));
  });

  const engineWith = async (variant: Parameters<typeof startTestEngine>[0] = {}): Promise<TestEngine> => {
    const engine = await startTestEngine({ repos: [world.app.dir, world.lib.dir], ...variant });
    engines.push(engine);
    return engine;
  };
  const open = async (url: string, endpoint: string, token: string = TEST_TOKENS[0]): Promise<McpSession> => {
    const session = await McpSession.open(url, token, endpoint);
    sessions.push(session);
    return session;
  };

  describe('endpoints', function () {
    it('serves the 2026 family and v1 by default (7.x), each endpoint with its own tools', async function () {
      const url = world.engine.url;
      assert.deepEqual(await listed(url + '/.api/mcp/all'), ALL);
      assert.deepEqual(await listed(url + '/.api/mcp'), CURATED, 'the curated default: no nls_search, navigation, compare, contributors or deepsearch');
      assert.deepEqual(await listed(url + '/.api/mcp/deepsearch'), ['deepsearch', 'deepsearch_read']);
      assert.deepEqual(await listed(url + '/.api/mcp/v1'), V1);
      assert.deepEqual(Object.values(TOOL_SERVER_ENDPOINTS), ['/.api/mcp/all', '/.api/mcp', '/.api/mcp/deepsearch', '/.api/mcp/v1']);
      assert.deepEqual(ENDPOINT_TOOLS.all, ALL, 'the contract says what the engine serves');
    });

    it('serves only the 2026 family with current, only v1 with v1, and nothing with none', async function () {
      const paths = Object.values(TOOL_SERVER_ENDPOINTS);
      const statuses = async (engine: TestEngine): Promise<Array<number | 'tools'>> =>
        Promise.all(
          paths.map(async (path) => {
            const answer = await listed(engine.url + path);
            return Array.isArray(answer) ? 'tools' : answer;
          }),
        );
      assert.deepEqual(await statuses(await engineWith({ variant: { toolServer: 'current' } })), ['tools', 'tools', 'tools', 404]);
      assert.deepEqual(await statuses(await engineWith({ variant: { toolServer: 'v1' } })), [404, 404, 404, 'tools']);
      assert.deepEqual(await statuses(await engineWith({ variant: { toolServer: 'none' } })), [404, 404, 404, 404]);
    });

    it('names tools without sg_ on the 2026 endpoints, in descriptions and messages too', async function () {
      const { tools } = await all.client.listTools();
      for (const tool of tools) {
        assert.doesNotMatch(JSON.stringify([tool.description, tool.inputSchema]), /\bsg_/, tool.name);
      }
      assert.match(JSON.stringify((await v1.client.listTools()).tools), /sg_list_repos/, 'v1 keeps its own names');
      const error = await all.fails('list_repos', { query: '', after: 'not-a-cursor!' });
      assert.match(error, /\blist_repos\b/);
      assert.doesNotMatch(error, /sg_/);
    });
  });

  describe('2026 arguments', function () {
    it('get_contributor_repos takes up to five authors where v1 takes one author', async function () {
      const both = await all.ok<{ repositories: ContributorRepository[] }>('get_contributor_repos', { authors: ['alan', 'ada'] });
      assert.deepEqual(both.structured.repositories.map((repo) => repo.repoName).sort(), [APP, LIB]);
      const ada = await all.ok<{ repositories: ContributorRepository[] }>('get_contributor_repos', { authors: ['ada'] });
      assert.deepEqual(
        ada.structured.repositories.map((repo) => repo.repoName),
        [APP],
      );
      // Ada's and Alan's commits in app together.
      const appCount = both.structured.repositories.find((repo) => repo.repoName === APP)?.repoCommitCount ?? 0;
      assert.ok(appCount > (ada.structured.repositories[0]?.repoCommitCount ?? 0), `${appCount}`);
      assert.match(await all.fails('get_contributor_repos', { authors: ['a', 'b', 'c', 'd', 'e', 'f'] }), /6 entries; the limit is 5/);
      assert.match(await all.fails('get_contributor_repos', { authors: [] }), /authors is empty/);
      assert.match(await all.fails('get_contributor_repos', { author: 'ada' }), /author is not expected.*authors/);
      assert.match(await v1.fails('sg_get_contributor_repos', { authors: ['ada'] }), /authors is not expected/);
      const one = await v1.ok<{ repositories: ContributorRepository[] }>('sg_get_contributor_repos', { author: 'ada' });
      assert.deepEqual(one.structured.repositories, ada.structured.repositories);
    });

    it('commit_search searches the revisions given, and counts 50 by default, 100 at most', async function () {
      const onMain = await all.ok<Commits>('commit_search', { repos: [APP], messageTerms: ['login'] });
      assert.deepEqual(onMain.structured.commits, [], 'the login commit is on a branch');
      const onBranch = await all.ok<Commits>('commit_search', { repos: [APP, LIB], messageTerms: ['login'], revisions: ['feature/login'] });
      assert.deepEqual(
        onBranch.structured.commits.map((commit) => commit.commit),
        [world.commits.login],
      );
      assert.match(onBranch.structured.query, /rev:\("feature\/login"\)/);
      assert.ok(
        onBranch.texts.some((text) => text.includes(`${LIB} has no "feature/login" and was skipped`)),
        onBranch.texts.join('\n'),
      );
      const twoRevisions = await all.ok<Commits>('commit_search', { repos: [APP], authors: ['alan'], revisions: ['feature/login', 'v1.0'] });
      assert.deepEqual(
        twoRevisions.structured.commits.map((commit) => commit.commit),
        [world.commits.login, world.commits.retryFix],
      );
      assert.match(
        await all.fails('commit_search', { repos: [APP], revisions: ['no-such-branch'] }),
        /no-such-branch.*does not exist in github\.com\/acme\/app/,
      );
      assert.match(await all.fails('commit_search', { repos: [APP], revisions: ['--output=x'] }), /starts with "-"/);
      assert.match(onMain.structured.query, /count:50$/);
      assert.match((await all.ok<Commits>('commit_search', { repos: [APP], count: 150 })).structured.query, /count:100$/);
      assert.match((await v1.ok<Commits>('sg_commit_search', { repos: [APP], count: 150 })).structured.query, /count:150$/);
      assert.match(await v1.fails('sg_commit_search', { repos: [APP], revisions: ['main'] }), /revisions is not expected/);
    });

    it('diff_search takes authors, revisions and count (20 by default, 50 at most)', async function () {
      const byAlan = await all.ok<Diffs>('diff_search', { repos: [APP], pattern: 'retries', authors: ['alan', 'nobody'] });
      assert.deepEqual([...new Set(byAlan.structured.results.map((result) => result.commit))], [world.commits.retryFix]);
      assert.match(byAlan.structured.query, /author:\("alan" OR "nobody"\)/);
      assert.match(byAlan.structured.query, /count:20 /);
      const login = await all.ok<Diffs>('diff_search', { repos: [APP], pattern: 'user.length', revisions: ['feature/login'] });
      assert.deepEqual(
        login.structured.results.map((result) => result.commit),
        [world.commits.login],
      );
      assert.deepEqual((await all.ok<Diffs>('diff_search', { repos: [APP], pattern: 'user.length' })).structured.results, []);
      assert.match((await all.ok<Diffs>('diff_search', { repos: [APP], pattern: 'x', count: 80 })).structured.query, /count:50 /);
      assert.match(await all.fails('diff_search', { repos: [APP], pattern: 'x', author: 'alan' }), /author is not expected/);
      const v1Alan = await v1.ok<Diffs>('sg_diff_search', { repos: [APP], pattern: 'retries', author: 'alan' });
      assert.deepEqual(
        v1Alan.structured.results.map((result) => result.commit),
        byAlan.structured.results.map((result) => result.commit),
      );
      assert.match(v1Alan.structured.query, /author:"alan" .*count:50 /);
    });

    it('find_references returns limit references (10 by default) and counts them all; v1 returns them all', async function () {
      const repo: TestRepo = await createTestRepo({
        name: 'refs',
        commits: [
          {
            message: 'Many calls',
            author: ALAN,
            files: {
              'src/tick.ts': 'export function tick(): void {}\n',
              'src/use.ts': `import { tick } from './tick';\n\nexport function run(): void {\n${'  tick();\n'.repeat(14)}}\n`,
            },
          },
        ],
      });
      try {
        const engine = await engineWith({ repos: [repo.dir] });
        const current = await open(engine.url, '/.api/mcp/all');
        const old = await open(engine.url, '/.api/mcp/v1');
        const lines = (blocks: Block[]): number =>
          blocks.reduce((sum, block) => sum + block.chunks.reduce((count, chunk) => count + chunk.endLine - chunk.startLine + 1, 0), 0);
        const args = { repo: 'refs', path: 'src/tick.ts', symbol: 'tick' };
        const byDefault = await current.ok<{ fileBlocks: Block[] }>('find_references', args);
        assert.equal(lines(byDefault.structured.fileBlocks), 10);
        assert.ok(
          byDefault.texts.some((text) => /raise limit/.test(text)),
          byDefault.texts.join('\n'),
        );
        // What is not shown is counted, not left out of the count: the import and 14 calls.
        assert.ok(
          byDefault.texts.some((text) => /^10 of 15 references to tick, in 1 of 1 file \(TypeScript\/JavaScript files\):/.test(text)),
          byDefault.texts.join('\n'),
        );
        assert.equal(lines((await current.ok<{ fileBlocks: Block[] }>('find_references', { ...args, limit: 3 })).structured.fileBlocks), 3);
        assert.equal(lines((await current.ok<{ fileBlocks: Block[] }>('find_references', { ...args, limit: 100 })).structured.fileBlocks), 15);
        assert.equal(lines((await old.ok<{ fileBlocks: Block[] }>('sg_find_references', args)).structured.fileBlocks), 15);
        assert.match(await current.fails('find_references', { ...args, limit: 0 }), /limit must be/);
      } finally {
        await repo.remove();
      }
    });

    it('list_repos says hasMoreResults on the 2026 endpoints', async function () {
      const first = await all.ok<{ hasMoreResults: boolean; pagination: { endCursor: string } }>('list_repos', { query: 'acme', limit: 1 });
      assert.equal(first.structured.hasMoreResults, true);
      const last = await all.ok<{ hasMoreResults: boolean }>('list_repos', { query: 'acme', limit: 1, after: first.structured.pagination.endCursor });
      assert.equal(last.structured.hasMoreResults, false);
      const old = await v1.ok<Record<string, unknown>>('sg_list_repos', { query: 'acme', limit: 1 });
      assert.equal(old.structured.hasMoreResults, undefined, 'v1 answers as mcp-tools-v1.json says');
    });
  });

  describe('deepsearch_read', function () {
    let conversation: WireConversation;
    before(async function () {
      conversation = await world.engine.ask('Where is parseConfig defined?');
      conversation = await world.engine.waitUntilFinished(conversation.id);
    });

    it('reads a conversation by its link, its shared link or its read token', async function () {
      const token = conversation.read_token!;
      for (const identifier of [conversation.share_url!, `${world.engine.url}/deepsearch/shared/${token}`, token, ` ${token} `]) {
        const { structured, text } = await all.ok<DeepSearchReadResult>('deepsearch_read', { identifier });
        assert.equal(structured.conversation_id, conversation.id, identifier);
        assert.equal(structured.processing, false);
        assert.equal(structured.link, conversation.share_url);
        assert.deepEqual(
          structured.questions.map((question) => [question.question, question.status]),
          [['Where is parseConfig defined?', 'completed']],
        );
        assert.equal(structured.questions[0]?.answer, conversation.questions[0]?.answer);
        assert.match(text, /Question 1: Where is parseConfig defined\?/);
        assert.match(text, /parseConfig/);
      }
      const onItsEndpoint = await open(world.engine.url, '/.api/mcp/deepsearch');
      assert.equal((await onItsEndpoint.ok<DeepSearchReadResult>('deepsearch_read', { identifier: token })).structured.conversation_id, conversation.id);
    });

    it("reads another user's conversation only when sharing is on", async function () {
      const other = await open(world.engine.url, '/.api/mcp', TEST_TOKENS[1]);
      assert.equal(
        (await other.ok<DeepSearchReadResult>('deepsearch_read', { identifier: conversation.share_url! })).structured.conversation_id,
        conversation.id,
      );
      const closed = await engineWith({ sharing: false });
      const mine = await closed.ask('Where is the server started?');
      const owner = await open(closed.url, '/.api/mcp');
      const stranger = await open(closed.url, '/.api/mcp', TEST_TOKENS[1]);
      assert.equal((await owner.ok<DeepSearchReadResult>('deepsearch_read', { identifier: mine.share_url! })).structured.conversation_id, mine.id);
      assert.match(await stranger.fails('deepsearch_read', { identifier: mine.share_url! }), /No conversation you can read.*sharing is off/);
    });

    it('refuses what is not a conversation link or token, and tokens of no conversation', async function () {
      assert.match(await all.fails('deepsearch_read', { identifier: '' }), /identifier is empty/);
      assert.match(await all.fails('deepsearch_read', { identifier: `${world.engine.url}/somewhere/else` }), /is not a conversation link/);
      assert.match(await all.fails('deepsearch_read', { identifier: 'two words' }), /not a conversation link/);
      assert.match(await all.fails('deepsearch_read', { identifier: '00000000-0000-4000-8000-000000000000' }), /No conversation you can read/);
    });

    it('reads what deepsearch started, and says so when a question is still being answered', async function () {
      const asked = await all.ok<DeepSearchResult>('deepsearch', { question: 'How are connections opened?' });
      const read = await all.ok<DeepSearchReadResult>('deepsearch_read', { identifier: asked.structured.link! });
      assert.equal(read.structured.questions[0]?.answer, asked.structured.answer);
      const slow = await engineWith({ paceMs: 2_000 });
      const pending = await slow.ask('Anything at all?');
      const reader = await open(slow.url, '/.api/mcp/all');
      const early = await reader.ok<DeepSearchReadResult>('deepsearch_read', { identifier: pending.share_url! });
      assert.equal(early.structured.processing, true);
      assert.match(early.text, /still being answered/i);
    });
  });

  describe('what admins decide', function () {
    it('leaves disabled tools out of every endpoint, and calling one is "not found"', async function () {
      const engine = await engineWith({ variant: { disabledTools: ['nls_search', 'deepsearch_read', 'get_contributor_repos'] } });
      const without = (names: string[], ...gone: string[]): string[] => names.filter((name) => !gone.includes(name));
      assert.deepEqual(await listed(engine.url + '/.api/mcp/all'), without(ALL, 'nls_search', 'deepsearch_read', 'get_contributor_repos'));
      assert.deepEqual(await listed(engine.url + '/.api/mcp'), without(CURATED, 'deepsearch_read'));
      assert.deepEqual(await listed(engine.url + '/.api/mcp/deepsearch'), ['deepsearch']);
      assert.deepEqual(await listed(engine.url + '/.api/mcp/v1'), without(V1, 'sg_nls_search', 'sg_get_contributor_repos'));
      const current = await open(engine.url, '/.api/mcp/all');
      assert.match(await current.fails('nls_search', { query: 'config' }), /Tool nls_search not found/);
      const old = await open(engine.url, '/.api/mcp/v1');
      assert.match(await old.fails('sg_get_contributor_repos', { author: 'ada' }), /Tool sg_get_contributor_repos not found/);
      assert.equal((await current.ok<{ blocks: unknown[] }>('keyword_search', { query: 'parseConfig' })).structured.blocks.length > 0, true);
    });

    it('refuses to start with a disabled tool it does not know', async function () {
      await assert.rejects(engineWith({ variant: { disabledTools: ['sg_nls_search'] } }), /disabledTools: "sg_nls_search" is not a tool.*nls_search/);
    });

    it('answers 403 on every endpoint to users without MCP access, after the token check', async function () {
      const engine = await engineWith({ variant: { mcpAccess: 'denied' } });
      const initialize = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      };
      for (const path of Object.values(TOOL_SERVER_ENDPOINTS)) {
        const answer = await post(engine.url + path, initialize);
        assert.equal(answer.status, 403, path);
        assert.match((JSON.parse(answer.text) as { error: string }).error, /lacks the MCP#ACCESS permission/);
        assert.equal((await post(engine.url + path, initialize, 'wrong-token')).status, 401, path);
      }
      assert.equal((await engine.api('/')).status, 200, 'conversations stay open to them');
    });
  });
});
