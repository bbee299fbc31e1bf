/**
 * sg_commit_search, sg_diff_search, sg_compare_revisions and sg_get_contributor_repos on real
 * histories with several authors at set dates: every argument, absolute and relative dates,
 * pagination, limits, and option-like or malformed input answered safely.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Comparison } from '../../../../src/engine/tools/compare';
import type { DiffResult } from '../../../../src/engine/tools/diffs';
import type { CommitMatch } from '../../../../src/contract/toolWire';
import type { ContributorRepository } from '../../../../src/engine/tools/history';
import { APP, EMPTY, LIB, McpSession, TOOLS, type McpWorld, useMcpWorld } from './fixture';

interface Commits {
  query: string;
  totalCount: number;
  limitHit: boolean;
  commits: CommitMatch[];
}
interface Diffs {
  query: string;
  totalCount: number;
  limitHit: boolean;
  results: DiffResult[];
}
interface Contributors {
  repositories: ContributorRepository[];
}

describe('MCP tools: history', function () {
  let world: McpWorld;
  let mcp: McpSession;
  const injected = path.join(tmpdir(), `mcp-history-injection-${process.pid}`);

  useMcpWorld((made) => ({ world, mcp } = made));
  after(function () {
    assert.equal(existsSync(injected), false, 'no option injection wrote a file');
  });

  const commitSearch = async (args: Record<string, unknown>): Promise<Commits> => (await mcp.ok<Commits>('sg_commit_search', args)).structured;
  const titles = (result: Commits): string[] => result.commits.map((commit) => commit.title);

  describe('sg_commit_search', function () {
    it('finds commits by message terms (any of them), newest first, with the whole message', async function () {
      const fix = await commitSearch({ repos: [APP], messageTerms: ['retry'] });
      assert.deepEqual(titles(fix), ['Fix retry bug in config parsing']);
      const [commit] = fix.commits;
      assert.equal(commit?.commit, world.commits.retryFix);
      assert.equal(commit?.repository, APP);
      assert.equal(commit?.author, 'Alan Turing <alan@example.com>');
      assert.equal(commit?.date, '2024-02-15T10:00:00+00:00');
      assert.match(commit?.message ?? '', /too low for flaky networks/);
      assert.equal(fix.totalCount, 1);
      assert.equal(fix.limitHit, false);
      assert.match(fix.query, /type:commit/);
      assert.deepEqual(titles(await commitSearch({ repos: [APP], messageTerms: ['RENAME', 'latin-1'] })), [
        'Add big data file and Latin-1 notes',
        'Rename util to helpers',
      ]);
    });

    it('filters by authors (names or e-mails, any of them) across repositories', async function () {
      const grace = await commitSearch({ repos: [APP, LIB, TOOLS], authors: ['grace'] });
      assert.deepEqual(titles(grace), ['Add deploy script', 'Add documentation links', 'Rename util to helpers', 'Polyglot helpers']);
      assert.deepEqual(
        grace.commits.map((commit) => commit.repository),
        [TOOLS, APP, APP, LIB],
      );
      const both = await commitSearch({ repos: ['github.com/acme/*'], authors: ['alan@example', 'navy.example'] });
      assert.deepEqual(titles(both), [
        'Speed up price formatting',
        'Add documentation links',
        'Rename util to helpers',
        'Fix retry bug in config parsing',
        'Polyglot helpers',
      ]);
    });

    it('combines different criteria with AND', async function () {
      assert.deepEqual(titles(await commitSearch({ repos: [APP], messageTerms: ['add'], authors: ['ada'] })), ['Add big data file and Latin-1 notes']);
      assert.deepEqual(titles(await commitSearch({ repos: [APP], messageTerms: ['add'], authors: ['ada'], files: ['src/'] })), []);
    });

    it('finds commits by the code they added or removed, and by the files they touched', async function () {
      assert.deepEqual(titles(await commitSearch({ repos: [APP], contentTerms: ['retries ?? 5'] })), ['Fix retry bug in config parsing']);
      // A pure rename changes no line, so it does not count as adding or removing slugify.
      assert.deepEqual(titles(await commitSearch({ repos: [APP], contentTerms: ['logger.info', 'slugify'] })), [
        'Remove console logging',
        'Initial import of the billing app',
      ]);
      assert.deepEqual(titles(await commitSearch({ repos: [APP], files: ['src/helpers.ts'] })), ['Rename util to helpers']);
      assert.deepEqual(titles(await commitSearch({ repos: [APP], files: ['data', 'src/db/*.ts'] })), [
        'Add big data file and Latin-1 notes',
        'Initial import of the billing app',
      ]);
    });

    it('takes dates as after/before, absolute (inclusive days and months) or relative', async function () {
      assert.deepEqual(titles(await commitSearch({ repos: [APP], after: '2024-02-01', before: '2024-03-01' })), [
        'Rename util to helpers',
        'Fix retry bug in config parsing',
      ]);
      assert.deepEqual(titles(await commitSearch({ repos: [APP], after: '03/02/2024', before: 'march 2024' })), ['Add big data file and Latin-1 notes']);
      assert.deepEqual(titles(await commitSearch({ repos: [APP, LIB], before: 'january 2024' })), ['Polyglot helpers', 'Initial import of the billing app']);
      assert.deepEqual(titles(await commitSearch({ repos: [APP, LIB], after: '1 week ago' })), ['Remove console logging']);
      assert.deepEqual(titles(await commitSearch({ repos: [APP], after: 'last month' })), ['Remove console logging']);
      assert.deepEqual(titles(await commitSearch({ repos: [APP], before: '3 days ago', after: '2024-04-01T00:00:00Z' })), ['Add documentation links']);
      assert.match(await mcp.fails('sg_commit_search', { repos: [APP], after: 'soonish' }), /after "soonish" is not a date.*2 weeks ago/);
      assert.match(await mcp.fails('sg_commit_search', { repos: [APP], after: '2024-02-30' }), /not a date/);
      assert.match(await mcp.fails('sg_commit_search', { repos: [APP], after: '2024-05-01', before: '2024-01-01' }), /later than before/);
    });

    it('returns at most count commits and says when there are more', async function () {
      const two = await commitSearch({ repos: [APP], count: 2 });
      assert.deepEqual(titles(two), ['Remove console logging', 'Add documentation links']);
      assert.equal(two.limitHit, true);
      const all = await commitSearch({ repos: [APP] });
      assert.equal(all.commits.length, 6, 'the default branch only: not the feature branch');
      assert.equal(all.limitHit, false);
      assert.match(await mcp.fails('sg_commit_search', { repos: [APP], count: 0 }), /count must be a whole number of at least 1/);
    });

    it('matches regular expressions with useRegex, and literal text without', async function () {
      assert.deepEqual(titles(await commitSearch({ repos: [APP], messageTerms: ['^(Fix|Remove) '], useRegex: true })), [
        'Remove console logging',
        'Fix retry bug in config parsing',
      ]);
      assert.deepEqual(titles(await commitSearch({ repos: [APP], messageTerms: ['^(Fix|Remove) '] })), []);
      assert.deepEqual(titles(await commitSearch({ repos: [APP], messageTerms: ['(unclosed'] })), []);
      assert.match(await mcp.fails('sg_commit_search', { repos: [APP], messageTerms: ['(unclosed'], useRegex: true }), /not a valid regular expression/);
    });

    it('selects repositories by name, pattern or all, and names unknown ones', async function () {
      const all = await mcp.ok<Commits>('sg_commit_search', { repos: [], authors: ['grace'] });
      assert.equal(all.structured.commits.length, 4);
      const withEmpty = await mcp.ok<Commits>('sg_commit_search', { repos: [EMPTY, APP], messageTerms: ['rename'] });
      assert.equal(withEmpty.structured.commits.length, 1);
      assert.match(withEmpty.texts.join('\n'), /empty has no commits and was skipped/);
      assert.match(await mcp.fails('sg_commit_search', { repos: ['github.com/acme/nope'] }), /No repository named "github\.com\/acme\/nope"/);
    });

    it('never takes authors, terms or files for options, nor lets files leave the repository', async function () {
      assert.match(await mcp.fails('sg_commit_search', { repos: [APP], authors: [`--output=${injected}`] }), /starts with "-"/);
      assert.deepEqual(titles(await commitSearch({ repos: [APP], messageTerms: [`--output=${injected}`], contentTerms: [`--output=${injected}`] })), []);
      assert.match(await mcp.fails('sg_commit_search', { repos: [APP], files: ['../outside'] }), /contains "\.\."/);
      assert.match(await mcp.fails('sg_commit_search', { repos: [APP], files: ['/etc/passwd'] }), /is absolute/);
      assert.match(await mcp.fails('sg_commit_search', { repos: [APP], files: ['-p'] }), /starts with "-"/);
      assert.match(await mcp.fails('sg_commit_search', { repos: [APP], messageTerms: ['two\nlines'] }), /control characters/);
    });
  });

  describe('sg_diff_search', function () {
    const diffSearch = async (args: Record<string, unknown>): Promise<Diffs> => (await mcp.ok<Diffs>('sg_diff_search', args)).structured;

    it('finds added and removed lines, with the positions of the matches in each hunk', async function () {
      const result = await diffSearch({ repos: [APP], pattern: 'console.log' });
      assert.deepEqual(
        result.results.map((each) => each.commit),
        [world.commits.recent, world.commits.initial],
      );
      for (const each of result.results) {
        const lines = each.diffHunk.split('\n');
        assert.match(lines[0] ?? '', /^--- /);
        assert.match(lines[2] ?? '', /^@@ -\d+,\d+ \+\d+,\d+ @@/);
        assert.ok(each.matchRanges.length > 0);
        for (const range of each.matchRanges) {
          assert.equal(range.startLine, range.endLine);
          assert.equal(lines[range.startLine]?.slice(range.startCharacter, range.endCharacter), 'console.log');
          assert.match(lines[range.startLine] ?? '', /^[+-]/);
        }
        assert.equal(each.url, `${world.engine.url}/${APP}/-/commit/${each.commit}`);
        assert.equal(each.repository, APP);
      }
      assert.equal(result.results[0]?.authorName, 'Ada Lovelace');
      assert.equal(result.results[0]?.message, 'Remove console logging');
      assert.equal(result.totalCount, 2);
      assert.equal(result.limitHit, false);
    });

    it('keeps to added or removed lines when asked', async function () {
      const added = await diffSearch({ repos: [APP], pattern: 'console.log', added: true });
      assert.deepEqual(
        added.results.map((each) => each.commit),
        [world.commits.initial],
      );
      const removed = await diffSearch({ repos: [APP], pattern: 'console.log', removed: true });
      assert.deepEqual(
        removed.results.map((each) => each.commit),
        [world.commits.recent],
      );
      assert.match(removed.query, /select:commit\.diff\.removed/);
      const both = await diffSearch({ repos: [APP], pattern: 'console.log', added: true, removed: true });
      assert.equal(both.results.length, 2);
    });

    it('filters by author and dates, across repository patterns', async function () {
      const alan = await diffSearch({ repos: [APP], pattern: 'retries', author: 'alan' });
      assert.deepEqual(
        alan.results.map((each) => each.commit),
        [world.commits.retryFix],
      );
      const ranges = alan.results[0]?.matchRanges ?? [];
      assert.equal(ranges.length, 4, 'retries twice on the removed and twice on the added line');
      assert.equal(new Set(ranges.map((range) => range.startLine)).size, 2);
      const early = await diffSearch({ repos: [APP], pattern: 'retries', before: '2024-01-31' });
      assert.deepEqual(
        early.results.map((each) => each.diffHunk.split('\n')[1]),
        ['+++ b/lib/retry_policy.py', '+++ b/src/config.ts'],
      );
      assert.deepEqual([...new Set(early.results.map((each) => each.commit))], [world.commits.initial]);
      const recent = await diffSearch({ repos: ['*'], pattern: 'logger', after: '1 week ago' });
      assert.deepEqual(
        recent.results.map((each) => each.commit),
        [world.commits.recent],
      );
      const everywhere = await diffSearch({ repos: ['github.com/acme/*'], pattern: 'formatPrice' });
      assert.deepEqual([...new Set(everywhere.results.map((each) => each.repository))].sort(), [APP, LIB]);
      assert.match(await mcp.fails('sg_diff_search', { repos: [APP], pattern: 'x', author: `--output=${injected}` }), /starts with "-"/);
    });

    it('takes regular expressions with useRegex and bounds the count', async function () {
      const regex = await diffSearch({ repos: [APP], pattern: 'retries \\?\\? [35]', useRegex: true, added: true });
      assert.deepEqual(
        regex.results.map((each) => each.commit),
        [world.commits.retryFix, world.commits.initial],
      );
      const posix = await diffSearch({ repos: [APP], pattern: 'retries \\?\\? [[:digit:]]', useRegex: true, added: true });
      assert.deepEqual(
        posix.results.map((each) => each.commit),
        [world.commits.retryFix, world.commits.initial],
      );
      const literal = await diffSearch({ repos: [APP], pattern: 'retries \\?\\? [35]' });
      assert.deepEqual(literal.results, []);
      const one = await diffSearch({ repos: [APP], pattern: 'console.log', count: 1 });
      assert.equal(one.results.length, 1);
      assert.equal(one.limitHit, true);
      assert.match(await mcp.fails('sg_diff_search', { repos: [APP], pattern: '(unclosed', useRegex: true }), /not a valid regular expression/);
    });

    it('comes back from a catastrophic regular expression, and treats option-like patterns as text', async function () {
      const reply = await mcp.call('sg_diff_search', { repos: [LIB], pattern: '(a+)+$', useRegex: true });
      if (reply.isError) assert.match(reply.text, /simplify|too long/);
      else assert.ok(Array.isArray((reply.structured as Diffs).results));
      assert.deepEqual((await diffSearch({ repos: [APP], pattern: `--output=${injected}` })).results, []);
      assert.match(await mcp.fails('sg_diff_search', { repos: [APP], pattern: '  ' }), /pattern is empty/);
    });
  });

  describe('sg_compare_revisions', function () {
    const compare = async (args: Record<string, unknown>): Promise<Comparison> => (await mcp.ok<Comparison>('sg_compare_revisions', args)).structured;

    it('gives per-file counts that agree with git, renames, binary files and totals', async function () {
      const result = await compare({ repo: APP, base: 'v1.0', head: 'main' });
      const numstat = (await world.app.git('diff', '--numstat', '-M', 'v1.0', 'main')).trim().split('\n');
      assert.equal(result.totalModified, numstat.length);
      assert.equal(result.files.length, numstat.length);
      const sum = (index: number): number => numstat.reduce((total, line) => total + (Number(line.split('\t')[index]) || 0), 0);
      assert.equal(result.totalAdded, sum(0));
      assert.equal(result.totalDeleted, sum(1));
      assert.deepEqual(
        { repository: result.repository, base: result.base, head: result.head, hasNextPage: result.hasNextPage },
        { repository: APP, base: 'v1.0', head: 'main', hasNextPage: false },
      );
      const renamed = result.files.find((file) => file.path === 'src/helpers.ts');
      assert.deepEqual({ added: renamed?.added, deleted: renamed?.deleted }, { added: 0, deleted: 0 });
      assert.ok(!result.files.some((file) => file.path === 'src/util.ts'), 'a rename is one entry');
      const binary = result.files.find((file) => file.path === 'assets/logo.png');
      assert.deepEqual(binary, { path: 'assets/logo.png', added: 0, deleted: 0 });
      const big = result.files.find((file) => file.path === 'data/big.txt');
      assert.equal(big?.added, 3000);
    });

    it('gives the hunks of each file with their ranges', async function () {
      const result = await compare({ repo: APP, base: `${world.commits.recent}~1`, head: world.commits.recent });
      assert.equal(result.totalModified, 1);
      const [server] = result.files;
      assert.deepEqual({ path: server?.path, added: server?.added, deleted: server?.deleted }, { path: 'src/server.ts', added: 1, deleted: 1 });
      const [hunk] = server?.hunks ?? [];
      assert.deepEqual(hunk?.oldRange, { startLine: 3, lines: 6 });
      assert.deepEqual(hunk?.newRange, { startLine: 3, lines: 6 });
      assert.match(hunk?.body ?? '', /^-\s+console\.log/m);
      assert.match(hunk?.body ?? '', /^\+\s+logger\.info/m);
      assert.equal(hunk?.section, "import { loadConfig } from './config';", 'the line git shows as the context of the hunk');
    });

    it('pages through files with first and after', async function () {
      const all = await compare({ repo: APP, base: world.commits.initial, head: 'main' });
      const seen: string[] = [];
      let after: string | undefined;
      let pages = 0;
      for (;;) {
        const page = await compare({ repo: APP, base: world.commits.initial, head: 'main', first: 2, ...(after ? { after } : {}) });
        pages++;
        assert.ok(page.files.length <= 2);
        assert.equal(page.totalModified, all.totalModified);
        seen.push(...page.files.map((file) => file.path));
        if (!page.hasNextPage) break;
        after = page.endCursor;
      }
      assert.deepEqual(
        seen,
        all.files.map((file) => file.path),
      );
      assert.equal(pages, Math.ceil(all.totalModified / 2));
    });

    it('rejects foreign cursors, bad page sizes, unknown and hostile revisions', async function () {
      const page = await compare({ repo: APP, base: world.commits.initial, head: 'main', first: 1 });
      assert.match(await mcp.fails('sg_compare_revisions', { repo: APP, base: 'v1.0', head: 'main', after: page.endCursor }), /different comparison/);
      assert.match(await mcp.fails('sg_compare_revisions', { repo: APP, base: 'v1.0', head: 'main', after: '!!' }), /not a cursor of sg_compare_revisions/);
      assert.match(await mcp.fails('sg_compare_revisions', { repo: APP, base: 'v1.0', head: 'main', first: 0 }), /first must be/);
      assert.match(await mcp.fails('sg_compare_revisions', { repo: APP, base: 'v9', head: 'main' }), /base "v9" does not exist/);
      assert.match(await mcp.fails('sg_compare_revisions', { repo: APP, base: `--output=${injected}`, head: 'main' }), /base .* starts with "-"/);
      assert.match(await mcp.fails('sg_compare_revisions', { repo: APP, base: 'v1.0', head: 'v1.0..main' }), /head .* is a range/);
      const same = await mcp.ok<Comparison>('sg_compare_revisions', { repo: APP, base: 'main', head: 'main' });
      assert.equal(same.structured.totalModified, 0);
      assert.match(same.text, /have the same files/);
    });
  });

  describe('sg_get_contributor_repos', function () {
    const contributors = async (args: Record<string, unknown>): Promise<Contributors> =>
      (await mcp.ok<Contributors>('sg_get_contributor_repos', args)).structured;

    it('lists the repositories of an author by name, most commits first', async function () {
      const grace = await contributors({ author: 'grace' });
      assert.deepEqual(grace.repositories, [
        { repoName: APP, repoCommitCount: 2, repoMostRecentCommitDate: '2024-04-05T08:00:00+00:00' },
        { repoName: TOOLS, repoCommitCount: 1, repoMostRecentCommitDate: '2024-06-01T09:00:00+00:00' },
        { repoName: LIB, repoCommitCount: 1, repoMostRecentCommitDate: '2024-01-20T09:00:00+00:00' },
      ]);
    });

    it('matches part of an e-mail address, case-insensitively', async function () {
      const ada = await contributors({ author: 'ADA@EXAMPLE' });
      assert.equal(ada.repositories.length, 1);
      assert.equal(ada.repositories[0]?.repoCommitCount, 3);
      assert.ok(Date.parse(ada.repositories[0]?.repoMostRecentCommitDate ?? '') > Date.now() - 7 * 86_400_000);
    });

    it('applies limit and minCommits', async function () {
      assert.deepEqual(
        (await contributors({ author: 'grace', minCommits: 2 })).repositories.map((repo) => repo.repoName),
        [APP],
      );
      assert.deepEqual(
        (await contributors({ author: 'grace', limit: 1 })).repositories.map((repo) => repo.repoName),
        [APP],
      );
      assert.match(await mcp.fails('sg_get_contributor_repos', { author: 'grace', limit: 0 }), /limit must be/);
      assert.match(await mcp.fails('sg_get_contributor_repos', { author: 'grace', minCommits: -1 }), /minCommits must be/);
    });

    it('answers unknown authors with none, and option-like authors with an error', async function () {
      const { structured, text } = await mcp.ok<Contributors>('sg_get_contributor_repos', { author: 'Linus' });
      assert.deepEqual(structured.repositories, []);
      assert.match(text, /No served repository has commits by an author matching "Linus"/);
      assert.match(await mcp.fails('sg_get_contributor_repos', { author: `--output=${injected}` }), /starts with "-"/);
      assert.match(await mcp.fails('sg_get_contributor_repos', { author: ' ' }), /author is empty/);
    });
  });
});
