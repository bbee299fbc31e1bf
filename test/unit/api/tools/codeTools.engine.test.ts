/**
 * The extension's tool client (SDK over undici, token header) against the local engine's tool
 * server over real HTTP, on the real repositories the MCP fixture builds.
 */
import assert from 'node:assert/strict';
import { Agent, type Dispatcher } from 'undici';
import { CodeTools } from '../../../../src/api/tools/codeTools';
import { ToolClient, isToolServerMissing } from '../../../../src/api/tools/toolClient';
import { ServerMemory } from '../../../../src/api/serverMemory';
import { undiciTransport } from '../../../../src/api/undiciTransport';
import { firstMatchingLine } from '../../../../src/api/tools/toolResults';
import type { EngineVariant } from '../../../../src/engine/options';
import { TEST_TOKENS, startTestEngine, type TestEngine } from '../../../support/engineHarness';
import { startPassThroughProxy } from '../../../support/passThroughProxy';
import { APP, BIG_FILE, LIB, TOOLS, useMcpWorld, type McpWorld } from '../../engine/mcp/fixture';
import { definitionQuery, isSearchableSymbol, referencesQuery } from '../../../../src/api/tools/symbolSearch';
import { everythingIn, expectError } from '../expectError';

interface RecordingProxy {
  url: string;
  /** The tools called through it, in order. */
  calls(): string[];
  /** Each tool's arguments, as last sent. */
  arguments(): Map<string, unknown>;
  /** The method of every JSON-RPC message passed on, in order (what the client spoke). */
  methods(): string[];
  close(): Promise<void>;
}

/** Passes requests on to the engine unchanged, noting every tools/call: what the engine was asked. */
async function recordingProxy(target: string): Promise<RecordingProxy> {
  const called: Array<{ name: string; arguments: unknown }> = [];
  const methods: string[] = [];
  const proxy = await startPassThroughProxy(target, {
    onBody: (body) => {
      try {
        const message = JSON.parse(body.toString('utf8')) as { method?: string; params?: { name?: string; arguments?: unknown } };
        if (message.method) methods.push(message.method);
        if (message.method === 'tools/call' && message.params?.name) called.push({ name: message.params.name, arguments: message.params.arguments });
      } catch {
        // Not JSON: passed on as it is.
      }
    },
  });
  return {
    url: proxy.url,
    calls: () => called.map((call) => call.name),
    arguments: () => new Map(called.map((call) => [call.name, call.arguments])),
    methods: () => [...methods],
    close: () => proxy.close(),
  };
}

describe('Tool client against the engine', function () {
  let world: McpWorld;
  let tools: CodeTools;
  const opened: ToolClient[] = [];
  const client = (url: string, token: string = TEST_TOKENS[0], dispatcher?: Dispatcher, memory?: ServerMemory): ToolClient => {
    const made = new ToolClient({ instanceUrl: url, token, transport: undiciTransport(dispatcher), memory });
    opened.push(made);
    return made;
  };

  useMcpWorld((made) => {
    world = made.world;
    tools = new CodeTools(client(world.engine.url));
  });
  after(async () => Promise.all(opened.map((each) => each.close())));

  describe('finding the tool server', function () {
    it('uses /.api/mcp/all on a 7.x server and knows all twelve tools by their 2026 names', async function () {
      const server = await tools.client.server();
      assert.equal(server.url, `${world.engine.url}/.api/mcp/all`);
      assert.equal(server.names.size, 12);
      assert.equal(server.names.get('read_file'), 'read_file');
      assert.equal(server.names.get('get_contributor_repos'), 'get_contributor_repos');
      assert.deepEqual([...(server.parameters.get('get_contributor_repos') ?? [])].sort(), ['authors', 'limit', 'minCommits']);
    });

    it('sends every request through the given dispatcher with the token', async function () {
      const seen: string[] = [];
      const counting = new Agent().compose((dispatch) => (options, handler) => {
        seen.push(`${options.method} ${options.path} ${String((options.headers as Record<string, string>)['authorization'] ?? '')}`);
        return dispatch(options, handler);
      });
      const repos = await new CodeTools(client(world.engine.url, TEST_TOKENS[1], counting)).listRepositories('acme');
      assert.deepEqual(repos.repositories.map((repo) => repo.name).sort(), [APP, LIB]);
      const posts = seen.filter((line) => line.startsWith('POST'));
      // tools/list and tools/call at least (the revision this endpoint speaks is known by now: no handshake).
      assert.ok(posts.length >= 2, seen.join('\n'));
      assert.ok(
        posts.every((line) => line === `POST /.api/mcp/all token ${TEST_TOKENS[1]}`),
        seen.join('\n'),
      );
      await counting.close();
    });

    it('rejects a wrong token as unauthorized, without echoing it', async function () {
      const error = await expectError(new CodeTools(client(world.engine.url, 'dse_wrong_token_123')).listRepositories(''), 'unauthorized');
      assert.doesNotMatch(everythingIn(error), /dse_wrong_token_123/);
    });

    describe('on servers that differ', function () {
      let engine: TestEngine | undefined;
      let proxy: RecordingProxy | undefined;
      let requests: string[];
      afterEach(async () => {
        await proxy?.close();
        proxy = undefined;
        await engine?.dispose();
      });
      /** An engine of that generation; `missing` paths answer 404 as if the server had no such endpoint. */
      const start = async (variant: EngineVariant, missing: string[] = [], refused: string[] = []): Promise<TestEngine> => {
        requests = [];
        engine = await startTestEngine({
          repos: [world.app.dir],
          variant,
          faults: {
            request: ({ method, path }) => {
              requests.push(`${method} ${path}`);
              if (refused.includes(path)) return { kind: 'status', status: 403, body: '{"error":"forbidden"}', contentType: 'application/json' };
              return missing.includes(path) ? { kind: 'status', status: 404 } : undefined;
            },
          },
        });
        return engine;
      };
      /** The engine behind a proxy that notes each tool call it passes on. */
      const recorded = async (variant: EngineVariant, missing: string[] = [], memory?: ServerMemory): Promise<{ tools: CodeTools; proxy: RecordingProxy }> => {
        proxy = await recordingProxy((await start(variant, missing)).url);
        return { tools: new CodeTools(client(proxy.url, undefined, undefined, memory)), proxy };
      };

      for (const [toolProtocol, era] of [
        ['2025', 'the 2025 handshake'],
        ['2026', 'MCP 2026-07-28'],
        ['both', 'MCP 2026-07-28'],
      ] as const) {
        it(`speaks ${era} to a server of ${toolProtocol === 'both' ? 'both revisions' : `${toolProtocol} only`}, and remembers it for the next connection`, async function () {
          const memory = new ServerMemory();
          const { tools: first, proxy: seen } = await recorded({ toolProtocol }, [], memory);
          assert.ok((await first.keywordSearch('parseConfig')).some((match) => match.path === 'src/config.ts'));
          const asked = seen.methods();
          assert.equal(asked[0], 'server/discover', `the SDK asks which revision the server speaks first: ${asked.join(', ')}`);
          assert.equal(asked.includes('initialize'), toolProtocol === '2025', asked.join(', '));
          await first.client.close();
          const second = new CodeTools(client(seen.url, undefined, undefined, memory));
          assert.ok((await second.keywordSearch('loadConfig')).length > 0);
          const again = seen.methods().slice(asked.length);
          assert.ok(!again.includes('server/discover'), `remembered, not asked again: ${again.join(', ')}`);
          assert.equal(again.includes('initialize'), toolProtocol === '2025', again.join(', '));
        });
      }

      it('uses /.api/mcp/all on a server of the 2026 family alone, and asks nothing else', async function () {
        const current = await start({ toolServer: 'current' });
        const onCurrent = new CodeTools(client(current.url));
        assert.equal(onCurrent.client.discovered, undefined, 'nothing asked before the first use');
        assert.equal((await onCurrent.client.server()).url, `${current.url}/.api/mcp/all`);
        assert.equal((await onCurrent.client.server()).names.size, 12);
        const matches = await onCurrent.keywordSearch('parseConfig');
        assert.ok(matches.some((match) => match.path === 'src/config.ts'));
        assert.ok(
          requests.every((line) => line.endsWith(' /.api/mcp/all')),
          requests.join('\n'),
        );
      });

      it('keeps to /.api/mcp/v1 on a server that has only it', async function () {
        const v1 = await start({ toolServer: 'v1' });
        const onV1 = new CodeTools(client(v1.url));
        assert.equal((await onV1.listRepositories('')).repositories[0]?.name, APP);
        assert.equal((await onV1.client.server()).names.get('read_file'), 'sg_read_file');
        assert.deepEqual(requests.slice(0, 2), ['POST /.api/mcp/all', 'POST /.api/mcp'], 'the 2026 endpoints are tried first');
        assert.ok(
          requests.slice(2).every((line) => line.endsWith(' /.api/mcp/v1')),
          requests.join('\n'),
        );
      });

      it('prefers /.api/mcp/v1 when it serves more tools than the 2026 endpoints that answer', async function () {
        const both = await start({}, ['/.api/mcp/all']);
        const server = await new CodeTools(client(both.url)).client.server();
        assert.equal(server.url, `${both.url}/.api/mcp/v1`);
        assert.equal(server.names.size, 12);
      });

      it('takes the curated /.api/mcp when it is all there is, and keeps its other features unsupported without calling them', async function () {
        const { tools: curated, proxy: seen } = await recorded({ toolServer: 'current' }, ['/.api/mcp/all']);
        const server = await curated.client.server();
        assert.equal(server.url, `${seen.url}/.api/mcp`);
        assert.deepEqual([...server.names.keys()].sort(), ['commit_search', 'diff_search', 'keyword_search', 'list_files', 'list_repos', 'read_file']);
        assert.ok((await curated.keywordSearch('parseConfig')).length > 0);
        const natural = await expectError(curated.naturalLanguageSearch('config'), 'unsupported');
        assert.match(natural.message, /does not offer natural-language code search: its tool server is older, or an administrator turned that tool off/);
        assert.equal(isToolServerMissing(natural), false, 'the tool server itself is there');
        await expectError(curated.goToDefinition({ repo: APP, path: 'src/server.ts', symbol: 'loadConfig' }), 'unsupported');
        await expectError(curated.contributorRepositories('ada'), 'unsupported');
        assert.deepEqual(seen.calls(), ['keyword_search']);
      });

      it('leaves the features of tools an admin disabled unsupported, and never calls those tools', async function () {
        const { tools: reduced, proxy: seen } = await recorded({ disabledTools: ['nls_search', 'find_references', 'get_contributor_repos'] });
        const server = await reduced.client.server();
        assert.equal(server.url, `${seen.url}/.api/mcp/all`);
        assert.equal(server.names.size, 9);
        assert.equal(server.names.has('nls_search'), false);
        await expectError(reduced.naturalLanguageSearch('config'), 'unsupported');
        const references = await expectError(reduced.findReferences({ repo: APP, path: 'src/config.ts', symbol: 'parseConfig' }), 'unsupported');
        assert.match(references.message, /does not offer Find References/);
        await expectError(reduced.contributorRepositories('ada'), 'unsupported');
        assert.equal((await reduced.goToDefinition({ repo: APP, path: 'src/server.ts', symbol: 'loadConfig' }))[0]?.path, 'src/config.ts');
        assert.deepEqual(seen.calls(), ['go_to_definition']);
      });

      it('keeps the endpoint it found when a poorer one tried later refuses (a deprecated v1 answering 403)', async function () {
        const partly = await start({ disabledTools: ['nls_search'] }, [], ['/.api/mcp/v1']);
        const tools = new CodeTools(client(partly.url));
        const server = await tools.client.server();
        assert.equal(server.url, `${partly.url}/.api/mcp/all`);
        assert.equal(server.names.size, 11);
        assert.ok((await tools.keywordSearch('parseConfig')).length > 0);
      });

      it('says that the account or token lacks MCP access when the server answers 403, and asks again next time', async function () {
        const denied = await start({ mcpAccess: 'denied' });
        const onDenied = new CodeTools(client(denied.url));
        const error = await expectError(onDenied.keywordSearch('parseConfig'), 'forbidden');
        assert.match(error.message, /refused its tool server \(MCP\) to this account or token \(HTTP 403\)/);
        assert.match(error.message, /lacks the MCP#ACCESS permission, or the token lacks the "mcp" scope/);
        assert.equal(error.status, 403);
        assert.equal(isToolServerMissing(error), false);
        assert.deepEqual(requests, ['POST /.api/mcp/all'], 'one refusal is enough: every endpoint needs the same permission');
        assert.equal(onDenied.client.discovered, undefined);
        await expectError(onDenied.keywordSearch('parseConfig'), 'forbidden');
        assert.equal(requests.length, 2, 'access may be granted later: asked again');
      });

      for (const generation of ['current', 'v1'] as const) {
        it(`finds a contributor's repositories and diffs by author on ${generation === 'v1' ? '/.api/mcp/v1 (author)' : 'the 2026 endpoint (authors)'}`, async function () {
          const { tools: onServer, proxy: seen } = await recorded({ toolServer: generation });
          assert.deepEqual(
            (await onServer.contributorRepositories('alan')).map((repo) => repo.name),
            [APP],
          );
          const { diffs } = await onServer.searchDiffs({ repos: [APP], pattern: 'retries', authors: ['alan'] });
          assert.deepEqual([...new Set(diffs.map((diff) => diff.commit))], [world.commits.retryFix]);
          // Two authors: 2026 servers take both; a v1 server takes one, and the client says so instead of dropping one.
          const twoAuthors = onServer.searchDiffs({ repos: [APP], pattern: 'retries', authors: ['alan', 'nobody-else'] });
          if (generation === 'v1') assert.match((await expectError(twoAuthors, 'unsupported')).message, /takes one author, not 2/);
          else assert.deepEqual([...new Set((await twoAuthors).diffs.map((diff) => diff.commit))], [world.commits.retryFix]);
          const references = await onServer.findReferences({ repo: APP, path: 'src/config.ts', symbol: 'parseConfig' });
          assert.ok(references.some((match) => match.path === 'src/config.ts' || match.path === 'README.md' || match.path === 'src/server.ts'));
          const sent = seen.arguments();
          if (generation === 'v1') {
            assert.deepEqual(sent.get('sg_get_contributor_repos'), { author: 'alan' });
            assert.deepEqual(sent.get('sg_diff_search'), { repos: [APP], pattern: 'retries', author: 'alan' });
            assert.deepEqual(sent.get('sg_find_references'), { repo: APP, path: 'src/config.ts', symbol: 'parseConfig' });
          } else {
            assert.deepEqual(sent.get('get_contributor_repos'), { authors: ['alan'] });
            assert.deepEqual(sent.get('diff_search'), { repos: [APP], pattern: 'retries', authors: ['alan', 'nobody-else'] });
            assert.deepEqual(sent.get('find_references'), { repo: APP, path: 'src/config.ts', symbol: 'parseConfig', limit: 100 });
          }
        });
      }

      it('says once that an instance without a tool server has none, and stops asking', async function () {
        const none = await start({ toolServer: 'none' });
        const onNone = new CodeTools(client(none.url));
        const heard: string[] = [];
        onNone.client.onDidDiscover((found) => heard.push(found === 'missing' ? found : found.url));
        const error = await expectError(onNone.keywordSearch('parseConfig'), 'unsupported');
        assert.ok(isToolServerMissing(error));
        assert.match(error.message, /no tool server.*6\.8.*conversations work as before/);
        const asked = requests.length;
        assert.deepEqual(requests, ['POST /.api/mcp/all', 'POST /.api/mcp', 'POST /.api/mcp/v1']);
        await expectError(onNone.readFile({ repo: APP, path: 'README.md' }), 'unsupported');
        await expectError(onNone.client.server(), 'unsupported');
        assert.deepEqual(heard, ['missing']);
        assert.equal(onNone.client.discovered, 'missing');
        assert.equal(requests.length, asked, 'no request after the first answer');
      });
    });
  });

  describe('files', function () {
    it('reads a file as its exact text, at the default branch and at a branch', async function () {
      const read = await tools.readFile({ repo: APP, path: 'src/db/connection.ts' });
      assert.equal(read.text, await world.app.git('show', 'HEAD:src/db/connection.ts'));
      assert.equal(read.cut, false);
      const onBranch = await tools.readFile({ repo: APP, path: 'src/login.ts', revision: 'feature/login' });
      assert.match(onBranch.text, /^export function login/);
    });

    it('reads a file over the 128 KB limit in ranges, whole', async function () {
      const read = await tools.readFile({ repo: APP, path: 'data/big.txt' });
      assert.equal(read.text.length, BIG_FILE.length);
      assert.equal(read.text, BIG_FILE);
      assert.equal(read.cut, false);
    });

    it('reads a range with its line numbers', async function () {
      const lines = await tools.readLines({ repo: APP, path: 'data/big.txt' }, 2999, 3000);
      assert.deepEqual(
        lines.map((line) => line.line),
        [2999, 3000],
      );
      assert.match(lines[1].text, /^row 03000 /);
    });

    it('passes on what the server says is wrong, as a bad request', async function () {
      const error = await expectError(tools.readFile({ repo: APP, path: 'src' }), 'badRequest');
      assert.match(error.message, /is a directory/);
      await expectError(tools.readFile({ repo: 'github.com/acme/nope', path: 'README.md' }), 'badRequest');
    });

    it('lists a directory, and repositories page by page', async function () {
      const entries = await tools.listFiles({ repo: APP, path: 'src' });
      assert.ok(entries.some((entry) => entry.path === 'src/db' && entry.isDirectory));
      assert.ok(entries.some((entry) => entry.path === 'src/config.ts' && !entry.isDirectory));
      const first = await tools.listRepositories('', { limit: 2 });
      assert.equal(first.repositories.length, 2);
      assert.equal(first.hasNextPage, true);
      const second = await tools.listRepositories('', { limit: 2, after: first.endCursor });
      const names = [...first.repositories, ...second.repositories].map((repo) => repo.name);
      assert.ok(names.includes(TOOLS) && names.includes(APP) && names.includes(LIB), names.join(', '));
      assert.equal(new Set(names).size, names.length);
    });
  });

  describe('search and navigation', function () {
    it('finds code by keyword and by natural language, with the lines that match', async function () {
      const keyword = await tools.keywordSearch('openConnection repo:acme/app');
      const connection = keyword.find((match) => match.path === 'src/db/connection.ts');
      assert.ok(connection, JSON.stringify(keyword));
      assert.equal(connection.repo, APP);
      assert.equal(firstMatchingLine(connection, 'openConnection')?.line, 5);
      const natural = await tools.naturalLanguageSearch('how are database connections opened');
      assert.ok(
        natural.some((match) => match.path === 'src/db/connection.ts'),
        JSON.stringify(natural.map((match) => match.path)),
      );
    });

    it('goes to a definition in another repository and finds its references in both', async function () {
      const definitions = await tools.goToDefinition({ repo: APP, path: 'src/server.ts', symbol: 'formatPrice' });
      assert.deepEqual(
        definitions.map((match) => `${match.repo}:${match.path}:${firstMatchingLine(match, 'function formatPrice')?.line}`),
        [`${LIB}:ts/price.ts:1`],
      );
      const references = await tools.findReferences({ repo: LIB, path: 'ts/price.ts', symbol: 'formatPrice' });
      const where = references.map((match) => `${match.repo}:${match.path}`);
      assert.ok(where.includes(`${APP}:src/server.ts`), where.join(', '));
    });

    it('finds definitions and references by keyword search where the navigation tools are missing (the queries the editor falls back to)', async function () {
      const definitions = await tools.keywordSearch(definitionQuery('formatPrice'));
      assert.deepEqual(
        definitions.map((match) => `${match.repo}:${match.path}:${firstMatchingLine(match, 'function formatPrice')?.line}`),
        [`${LIB}:ts/price.ts:1`],
      );
      const references = await tools.keywordSearch(referencesQuery('formatPrice'));
      const where = references.map((match) => `${match.repo}:${match.path}`);
      assert.ok(where.includes(`${APP}:src/server.ts`) && where.includes(`${LIB}:ts/price.ts`), where.join(', '));
      // Whole words, case-sensitive: a longer name or another case is not a reference.
      assert.ok(references.every((match) => match.chunks.some((chunk) => chunk.lines.some((line) => /\bformatPrice\b/.test(line.text)))));
      assert.equal(isSearchableSymbol('formatPrice'), true);
      assert.equal(isSearchableSymbol('a.b'), false, 'only a name is looked up this way');
    });

    it('refuses an empty symbol before asking the server', async function () {
      const error = await expectError(tools.goToDefinition({ repo: APP, path: 'src/server.ts', symbol: ' ' }), 'badRequest');
      assert.match(error.message, /cursor on a name/);
    });
  });

  describe('history', function () {
    it('searches commits by author and message, and diffs by pattern', async function () {
      const { commits } = await tools.searchCommits({ repos: [APP], authors: ['Alan'], messageTerms: ['retry'] });
      assert.deepEqual(
        commits.map((commit) => commit.commit),
        [world.commits.retryFix],
      );
      assert.equal(commits[0].title, 'Fix retry bug in config parsing');
      const { diffs } = await tools.searchDiffs({ repos: [APP], pattern: 'logger.info', added: true });
      assert.equal(diffs[0]?.commit, world.commits.recent);
      assert.match(diffs[0].hunk, /\+\s*logger\.info/);
    });

    it('compares revisions file by file, and finds the repositories of a contributor', async function () {
      const comparison = await tools.compareRevisions(APP, world.commits.initial, 'v1.0');
      assert.deepEqual(comparison.files, [{ path: 'src/config.ts', added: 1, deleted: 1 }]);
      assert.deepEqual([comparison.totalAdded, comparison.totalDeleted, comparison.hasNextPage], [1, 1, false]);
      const repositories = await tools.contributorRepositories('grace');
      assert.deepEqual(repositories.map((repo) => repo.name).sort(), [APP, LIB, TOOLS].sort());
      assert.ok(repositories.every((repo) => repo.commitCount >= 1 && repo.lastCommitDate));
    });
  });

  it('lets calls under way finish when it is closed (a rebuilt connection), and takes no new ones', async function () {
    const closing = new CodeTools(new ToolClient({ instanceUrl: world.engine.url, token: TEST_TOKENS[0] }));
    const pending = closing.keywordSearch('parseConfig');
    await closing.client.close();
    assert.ok((await pending).some((match) => match.path === 'src/config.ts'));
    await expectError(closing.listRepositories(''), 'canceled');
  });

  it('stops a call when its signal aborts', async function () {
    const controller = new AbortController();
    const pending = tools.searchDiffs({ repos: ['*'], pattern: 'x' }, controller.signal);
    controller.abort();
    await expectError(pending, 'canceled');
  });
});
