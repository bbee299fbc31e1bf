/**
 * The extension's tool client (SDK over undici, token header) against the local engine's tool
 * server over real HTTP, on the real repositories the MCP fixture builds.
 */
import assert from 'node:assert/strict';
import { Agent, type Dispatcher } from 'undici';
import { CodeTools } from '../../../../src/api/tools/codeTools';
import { ToolClient, isToolServerMissing } from '../../../../src/api/tools/toolClient';
import { firstMatchingLine } from '../../../../src/api/tools/toolResults';
import { TEST_TOKENS, startTestEngine, type TestEngine } from '../../../support/engineHarness';
import { APP, BIG_FILE, LIB, TOOLS, useMcpWorld, type McpWorld } from '../../engine/mcp/fixture';
import { everythingIn, expectError } from '../expectError';

describe('Tool client against the engine', function () {
  let world: McpWorld;
  let tools: CodeTools;
  const opened: ToolClient[] = [];
  const client = (url: string, token: string = TEST_TOKENS[0], dispatcher?: Dispatcher): ToolClient => {
    const made = new ToolClient({ instanceUrl: url, token, dispatcher });
    opened.push(made);
    return made;
  };

  useMcpWorld((made) => {
    world = made.world;
    tools = new CodeTools(client(world.engine.url));
  });
  after(async () => Promise.all(opened.map((each) => each.close())));

  describe('finding the tool server', function () {
    it('uses /.api/mcp/v1 and knows all twelve tools by their sg_ names', async function () {
      const server = await tools.client.server();
      assert.equal(server.url, `${world.engine.url}/.api/mcp/v1`);
      assert.equal(server.names.size, 12);
      assert.equal(server.names.get('read_file'), 'sg_read_file');
      assert.equal(server.names.get('get_contributor_repos'), 'sg_get_contributor_repos');
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
      assert.ok(posts.length >= 3, seen.join('\n'));
      assert.ok(posts.every((line) => line === `POST /.api/mcp/v1 token ${TEST_TOKENS[1]}`), seen.join('\n'));
      await counting.close();
    });

    it('rejects a wrong token as unauthorized, without echoing it', async function () {
      const error = await expectError(new CodeTools(client(world.engine.url, 'dse_wrong_token_123')).listRepositories(''), 'unauthorized');
      assert.doesNotMatch(everythingIn(error), /dse_wrong_token_123/);
    });

    describe('on servers that differ', function () {
      let engine: TestEngine | undefined;
      let requests: string[];
      afterEach(async () => engine?.dispose());
      const start = async (toolServer: 'v1' | 'current' | 'none'): Promise<TestEngine> => {
        requests = [];
        engine = await startTestEngine({
          repos: [world.app.dir],
          variant: { toolServer },
          faults: { request: ({ method, path }) => void requests.push(`${method} ${path}`) },
        });
        return engine;
      };

      it('falls back to /.api/mcp and its names without sg_ when v1 is gone', async function () {
        const current = await start('current');
        const onCurrent = new CodeTools(client(current.url));
        assert.equal(onCurrent.client.discovered, undefined, 'nothing asked before the first use');
        assert.equal((await onCurrent.client.server()).url, `${current.url}/.api/mcp`);
        assert.equal((await onCurrent.client.server()).names.get('keyword_search'), 'keyword_search');
        const matches = await onCurrent.keywordSearch('parseConfig');
        assert.ok(matches.some((match) => match.path === 'src/config.ts'));
      });

      it('keeps to /.api/mcp/v1 on a server that has only it', async function () {
        const v1 = await start('v1');
        const onV1 = new CodeTools(client(v1.url));
        assert.equal((await onV1.listRepositories('')).repositories[0]?.name, APP);
        assert.ok(requests.every((line) => line.endsWith('/.api/mcp/v1')), requests.join('\n'));
      });

      it('says once that an instance without a tool server has none, and stops asking', async function () {
        const none = await start('none');
        const onNone = new CodeTools(client(none.url));
        const heard: string[] = [];
        onNone.client.onDidDiscover((found) => heard.push(found === 'missing' ? found : found.url));
        const error = await expectError(onNone.keywordSearch('parseConfig'), 'unsupported');
        assert.ok(isToolServerMissing(error));
        assert.match(error.message, /no tool server.*6\.8.*conversations work as before/);
        const asked = requests.length;
        assert.equal(asked, 2, requests.join('\n'));
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
      assert.deepEqual(lines.map((line) => line.line), [2999, 3000]);
      assert.match(lines[1]!.text, /^row 03000 /);
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
      assert.ok(natural.some((match) => match.path === 'src/db/connection.ts'), JSON.stringify(natural.map((match) => match.path)));
    });

    it('goes to a definition in another repository and finds its references in both', async function () {
      const definitions = await tools.goToDefinition({ repo: APP, path: 'src/server.ts', symbol: 'formatPrice' });
      assert.deepEqual(definitions.map((match) => `${match.repo}:${match.path}:${firstMatchingLine(match, 'function formatPrice')?.line}`), [`${LIB}:ts/price.ts:1`]);
      const references = await tools.findReferences({ repo: LIB, path: 'ts/price.ts', symbol: 'formatPrice' });
      const where = references.map((match) => `${match.repo}:${match.path}`);
      assert.ok(where.includes(`${APP}:src/server.ts`), where.join(', '));
    });

    it('refuses an empty symbol before asking the server', async function () {
      const error = await expectError(tools.goToDefinition({ repo: APP, path: 'src/server.ts', symbol: ' ' }), 'badRequest');
      assert.match(error.message, /cursor on a name/);
    });
  });

  describe('history', function () {
    it('searches commits by author and message, and diffs by pattern', async function () {
      const { commits } = await tools.searchCommits({ repos: [APP], authors: ['Alan'], messageTerms: ['retry'] });
      assert.deepEqual(commits.map((commit) => commit.commit), [world.commits.retryFix]);
      assert.equal(commits[0]!.title, 'Fix retry bug in config parsing');
      const { diffs } = await tools.searchDiffs({ repos: [APP], pattern: 'logger.info', added: true });
      assert.equal(diffs[0]?.commit, world.commits.recent);
      assert.match(diffs[0]!.hunk, /\+\s*logger\.info/);
    });

    it('compares revisions file by file, and finds the repositories of a contributor', async function () {
      const comparison = await tools.compareRevisions(APP, world.commits.initial!, 'v1.0');
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
