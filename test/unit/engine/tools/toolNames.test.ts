/**
 * The tools' own words name other tools as the calling endpoint serves them: `sg_list_repos` on
 * `/.api/mcp/v1`, `list_repos` on the 2026 endpoints (and in the engine's own investigation, which
 * calls the 2026 table natively). Each message comes from a different layer that words one: the
 * repository and revision checks (repo/paths.ts), the query language (search/query.ts), a tool
 * (tools/files.ts), a cursor; and the catalogue's descriptions and argument schemas.
 */
import assert from 'node:assert/strict';
import { servedToolName, TOOL_SERVER_TOOLS, type ToolServerEndpoint, type ToolServerTool } from '../../../../src/contract/toolServers';
import { toolTable } from '../../../../src/engine/tools/toolCalls';
import { createSampleAppRepo, type TestRepo } from '../../../support/gitRepos';
import { toolContext } from '../search/searchFiles';

const REPO = 'github.com/acme/app';

/** Calls that fail with a message pointing to another tool, and the tool it points to. */
const POINTING: Array<{ what: string; tool: ToolServerTool; args: Record<string, unknown>; points: ToolServerTool }> = [
  { what: 'an unknown repository', tool: 'read_file', args: { repo: 'github.com/nobody/nothing', path: 'README.md' }, points: 'list_repos' },
  { what: 'an empty repository name', tool: 'list_files', args: { repo: ' ' }, points: 'list_repos' },
  { what: 'a revision range', tool: 'read_file', args: { repo: REPO, path: 'README.md', revision: 'HEAD~1..HEAD' }, points: 'compare_revisions' },
  { what: 'a missing file', tool: 'read_file', args: { repo: REPO, path: 'src/nothing.ts' }, points: 'list_files' },
  { what: 'a folder read as a file', tool: 'read_file', args: { repo: REPO, path: 'src' }, points: 'list_files' },
  { what: 'a query for commits', tool: 'keyword_search', args: { query: 'type:commit parseConfig' }, points: 'commit_search' },
  { what: 'a cursor of another tool', tool: 'list_repos', args: { query: '', after: 'eyJ4IjoxfQ' }, points: 'list_repos' },
];

describe('tool names in the tools’ own words', function () {
  this.timeout(60_000);
  let repo: TestRepo;

  before(async function () {
    repo = await createSampleAppRepo();
  });
  after(async function () {
    await repo?.remove();
  });

  const endpoints: Array<{ endpoint: ToolServerEndpoint; other: RegExp }> = [
    // A 2026 name on its own (not the end of an sg_ name); "deepsearch" is also a path's word.
    { endpoint: 'v1', other: new RegExp(`(?<![\\w])(${TOOL_SERVER_TOOLS.filter((tool) => tool !== 'deepsearch').join('|')})\\b`) },
    { endpoint: 'all', other: /\bsg_/ },
  ];

  for (const { endpoint, other } of endpoints) {
    describe(`on ${endpoint === 'v1' ? '/.api/mcp/v1' : 'the 2026 endpoints'}`, function () {
      const table = toolTable(endpoint, new Set(), () => undefined);

      for (const { what, tool, args, points } of POINTING) {
        it(`names ${servedToolName(endpoint, points)} after ${what}`, async function () {
          const served = table.get(servedToolName(endpoint, tool));
          assert.ok(served, `${endpoint} serves ${tool}`);
          const result = await served.call(args, toolContext(repo, REPO));
          assert.equal(result.ok, false, `${tool} ${JSON.stringify(args)} should fail`);
          if (result.ok) return;
          const message = result.failure.message;
          assert.match(message, new RegExp(`(^|[^_\\w])${servedToolName(endpoint, points)}\\b`), message);
          assert.doesNotMatch(message, other, message);
        });
      }

      it('names the other tools in descriptions and argument descriptions', function () {
        const readFile = table.get(servedToolName(endpoint, 'read_file'))?.listed;
        assert.ok(readFile);
        assert.match(readFile.description, new RegExp(`with ${servedToolName(endpoint, 'list_files')} or a search`));
        const repoArgument = readFile.inputSchema.properties?.repo?.description ?? '';
        assert.match(repoArgument, new RegExp(`as ${servedToolName(endpoint, 'list_repos')} returns it`));
        const keyword = table.get(servedToolName(endpoint, 'keyword_search'))?.listed;
        assert.match(keyword?.description ?? '', new RegExp(`use ${servedToolName(endpoint, 'nls_search')}\\.`));
        const everything = JSON.stringify([...table.values()].map(({ listed }) => [listed.description, listed.inputSchema]));
        assert.doesNotMatch(everything, other);
      });
    });
  }
});
