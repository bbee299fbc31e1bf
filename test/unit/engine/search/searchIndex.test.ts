/**
 * The search index against git grep itself, on a real repository with the awkward cases (binary
 * files, a -diff attribute, a NUL after the first 8000 bytes, CRLF and Latin-1 text, a file without
 * a final newline, an empty file, a symbolic link, long lines): every grep the tools run must give
 * the very same result from the index. Also: searches use git grep until the index is ready, the
 * index follows HEAD, a catastrophic regular expression is stopped in bounded time, one budget holds
 * for all indexes (past it, an index holds the files that fit and every search reads the rest, with
 * the same results), and the engine builds and uses its index over HTTP.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, symlink, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { readBlobText, readTargetText } from '../../../../src/engine/repo/blocks';
import type { ToolContext } from '../../../../src/engine/repo/context';
import { grepTarget, type GrepOptions, type GrepResult, type SearchTarget } from '../../../../src/engine/repo/grep';
import { rankFiles, type RankedFiles } from '../../../../src/engine/repo/fileRanking';
import { keywordSearch } from '../../../../src/engine/tools/search';
import { toolNamer } from '../../../../src/engine/messages/toolNames';
import { parseQuery } from '../../../../src/engine/search/query';
import { queryTerms } from '../../../../src/engine/search/ranking';
import { lineMatcher } from '../../../../src/engine/search/grepPatterns';
import { NAVIGATION_LANGUAGES, pathspecsOf } from '../../../../src/engine/repo/languages';
import { SearchIndexes, type SearchIndex } from '../../../../src/engine/search/searchIndex';
import { filterFile, type GramFilter } from '../../../../src/engine/search/gramFilter';
import { requiredText } from '../../../../src/engine/search/literalQuery';
import { startTestEngine, waitFor } from '../../../support/engineHarness';
import { createTempDir, createTestRepo, extendRepository, generateRepository, removeDir, type TestRepo } from '../../../support/gitRepos';
import { McpSession } from '../mcp/fixture';
import { runGit } from '../../../../src/engine/git/git';
import { CAP_CASES, grep, head, sharedFiles, toolContext, writeByteFiles } from './searchFiles';

interface World {
  repo: TestRepo;
  target: SearchTarget;
  indexes: SearchIndexes;
  index: SearchIndex;
  logs: string[];
  plain: ToolContext;
  indexed: ToolContext;
  /** Searches with an index of the files that fit half the tree's bytes: the rest is read per search. */
  partly: ToolContext;
  partial: { indexes: SearchIndexes; index: SearchIndex };
  /** Searches with no index (a budget of 0) and the commit's trigram filter: git grep reads the files it leaves. */
  filtered: ToolContext;
  /** Searches with half the tree indexed and the filter for the rest. */
  partlyFiltered: ToolContext;
  /** Where the filters are written. */
  filterDir: string;
}

/** A repository with every kind of file git grep treats specially. */
async function createVariedRepo(): Promise<TestRepo> {
  const repo = await createTestRepo({
    name: 'indexed',
    commits: [
      {
        message: 'Code, docs and data',
        files: {
          ...sharedFiles('Indexed', '// spans lines: alpha'),
          'docs/unicode.md': 'ÉCOLE\nécole\nécOLE\nnaïve café\n',
          'redos.txt': `${'a'.repeat(40)}!\n`,
        },
      },
    ],
  });
  await writeByteFiles(repo.dir);
  await symlink('src/app.ts', path.join(repo.dir, 'link-to-app'));
  await repo.commit({ message: 'Binary, Latin-1 and a link', files: {} });
  return repo;
}

async function createWorld(): Promise<World> {
  const repo = await createVariedRepo();
  const logs: string[] = [];
  const indexes = new SearchIndexes({ log: (line) => logs.push(line), scanTimeLimitMs: 500 });
  const plain = toolContext(repo, 'github.com/acme/indexed');
  const indexed: ToolContext = { ...plain, searchIndexes: indexes };
  const target: SearchTarget = { repo: plain.repositories[0], commit: await head(repo), revision: 'HEAD' };
  const index = await readyIndex(indexes, target);
  const sizes = (await runGit(['ls-tree', '-r', '-l', '-z', target.commit], { cwd: repo.dir })).stdout
    .split('\0')
    .flatMap((record) => /^100\d{3} blob \S+ +(\d+)\t/.exec(record)?.[1] ?? [])
    .map(Number);
  const partialIndexes = new SearchIndexes({
    log: () => undefined,
    scanTimeLimitMs: 500,
    budgetBytes: Math.floor(sizes.reduce((sum, size) => sum + size, 0) / 2),
  });
  const partial = { indexes: partialIndexes, index: await readyIndex(partialIndexes, target) };
  const filterDir = await mkdtemp(path.join(tmpdir(), 'filters-'));
  const filteredIndexes = new SearchIndexes({ log: () => undefined, budgetBytes: 0, filterDir });
  await readyFilter(filteredIndexes, target);
  const partlyFilteredIndexes = new SearchIndexes({ log: () => undefined, budgetBytes: Math.floor(sizes.reduce((sum, size) => sum + size, 0) / 2), filterDir });
  await readyIndex(partlyFilteredIndexes, target);
  assert.ok(await partlyFilteredIndexes.filterFor(target.repo, target.commit), 'the filter built before is read from disk');
  const filtered = { ...plain, searchIndexes: filteredIndexes };
  const partlyFiltered = { ...plain, searchIndexes: partlyFilteredIndexes };
  return {
    repo,
    target,
    indexes,
    index,
    logs,
    plain,
    indexed,
    partly: { ...plain, searchIndexes: partialIndexes },
    partial,
    filtered,
    partlyFiltered,
    filterDir,
  };
}

/** Starts the target's build (an index if the budget has room, then the trigram filter) and waits for the filter. */
async function readyFilter(indexes: SearchIndexes, target: SearchTarget): Promise<GramFilter> {
  indexes.lookup(target);
  return (await waitFor(
    () => indexes.filterFor(target.repo, target.commit),
    (filter) => filter !== undefined,
    { description: `the filter of ${target.commit}`, timeoutMs: 15_000 },
  )) as GramFilter;
}

function readyIndex(indexes: SearchIndexes, target: SearchTarget): Promise<SearchIndex> {
  return waitFor(
    () => Promise.resolve(indexes.lookup(target)),
    (index) => index !== undefined,
    { description: `the index of ${target.commit}`, timeoutMs: 15_000 },
  ) as Promise<SearchIndex>;
}

/** What the index answers on its own (it must answer: undefined fails the test). */
/**
 * Two grep results are the same answer: the same lines, counts and truncation (the index keeps its
 * counts in its own compact form, read here as a Map).
 */
function assertSameGrep(actual: GrepResult, expected: GrepResult | undefined, message?: string): void {
  const plain = (result: GrepResult | undefined) => result && { files: result.files, counts: new Map(result.counts.entries()), truncated: result.truncated };
  assert.deepEqual(plain(actual), plain(expected), message);
}

async function fromIndex(world: World, options: GrepOptions) {
  const syntax = options.syntax;
  const matcher = lineMatcher(options.patterns, syntax, options.caseSensitive, options.wholeWord ?? false);
  assert.ok(matcher, `the index takes ${JSON.stringify(options.patterns)}`);
  const { result } = (await world.index.grep(
    {
      matcher,
      pathspecs: options.pathspecs ?? [],
      ...(options.files ? { files: options.files } : {}),
      linesPerFile: options.linesPerFile ?? 200,
      maxOutputBytes: options.maxOutputBytes ?? 2 * 1024 * 1024,
      what: options.what,
    },
    world.plain.signal,
  )) ?? { result: undefined };
  assert.ok(result, `the index answered ${JSON.stringify(options.patterns)} itself`);
  return result;
}

/** One test's repository, its search target at HEAD, and indexes of its own (nothing built yet). */
interface TestRepository {
  repo: TestRepo;
  target: SearchTarget;
  indexes: SearchIndexes;
  /** Searches it with git alone. */
  plain: ToolContext;
  /** Waits for its search index, then gives a context that searches with it. */
  indexed: () => Promise<ToolContext>;
}

/** A repository of `files` for one test, removed (its indexes closed) afterwards. */
async function withRepository(name: string, files: Record<string, string>, run: (world: TestRepository) => Promise<void>): Promise<void> {
  const repo = await createTestRepo({ name, commits: [{ message: 'Files', files }] });
  const indexes = new SearchIndexes({ log: () => undefined });
  try {
    const repository = { name, dir: repo.dir, bare: false };
    const target: SearchTarget = { repo: repository, commit: await head(repo), revision: 'HEAD' };
    const plain: ToolContext = { ...toolContext(repo, name), repositories: [repository] };
    const indexed = async (): Promise<ToolContext> => {
      await readyIndex(indexes, target);
      return { ...plain, searchIndexes: indexes };
    };
    await run({ repo, target, indexes, plain, indexed });
  } finally {
    indexes.close();
    await repo.remove();
  }
}

/** What a ranking says, without the repository objects. */
function summary(ranked: RankedFiles) {
  return {
    total: ranked.total,
    files: ranked.files.map(({ target, document, score }) => ({ repo: target.repo.name, ...document, termFrequencies: [...document.termFrequencies], score })),
    stats: { ...ranked.stats, documentFrequency: [...ranked.stats.documentFrequency] },
    notes: ranked.notes,
  };
}

describe('search index', function () {
  this.timeout(60_000);
  let world: World;

  before(async function () {
    world = await createWorld();
  });
  after(async function () {
    world?.indexes.close();
    world?.partial.indexes.close();
    world?.filtered.searchIndexes?.close();
    world?.partlyFiltered.searchIndexes?.close();
    await world?.repo.remove();
    if (world) await rm(world.filterDir, { recursive: true, force: true });
  });

  it('says when it is ready: files, megabytes and seconds', function () {
    assert.equal(world.logs.length, 1);
    assert.match(world.logs[0] ?? '', /^search index of github\.com\/acme\/indexed at [0-9a-f]{12} ready: 13 text files, \d+(\.\d)? KB, \d+\.\d s$/);
  });

  describe('gives exactly what git grep gives', function () {
    const cases: Array<[string, GrepOptions, (result: Awaited<ReturnType<typeof grepTarget>>) => void]> = [
      ['a fixed string', grep(['parseConfig'], 'fixed'), (result) => assert.deepEqual([...result.files.keys()], ['docs/README.md', 'src/app.ts'])],
      [
        'a fixed string, case-insensitive',
        grep(['PARSEconfig'], 'fixed', { caseSensitive: false }),
        (result) => assert.equal(result.counts.get('src/app.ts'), 5),
      ],
      [
        'non-ASCII, case folded in ASCII only',
        grep(['école'], 'fixed', { caseSensitive: false }),
        (result) =>
          assert.deepEqual(
            result.files.get('docs/unicode.md')?.map((line) => line.line),
            [2, 3],
          ),
      ],
      [
        'whole words',
        grep(['parseConfig'], 'fixed', { wholeWord: true, linesPerFile: 100 }),
        (result) =>
          assert.deepEqual(
            result.files.get('src/app.ts')?.map((line) => line.line),
            [3, 4, 7, 8, 10],
          ),
      ],
      [
        'whole words that need a second try on the line',
        grep(['needle'], 'fixed', { wholeWord: true, caseSensitive: false }),
        (result) => assert.ok(result.files.has('data/no-final-newline.txt')),
      ],
      [
        'a PCRE regular expression',
        grep(['function\\s+\\w+Sync\\s*\\('], 'perl'),
        (result) =>
          assert.deepEqual(
            result.files.get('src/util.js')?.map((line) => line.line),
            [1, 2, 5],
          ),
      ],
      [
        'a case-insensitive one',
        grep(['^export (function|CONST)'], 'perl', { caseSensitive: false }),
        (result) => assert.equal(result.counts.get('src/app.ts'), 2),
      ],
      [
        'a regex that would span lines if it could',
        grep(['alpha\\s+beta', 'const alpha[^;]*beta'], 'perl'),
        (result) => assert.deepEqual(result.files.get('src/util.js'), [{ line: 8, text: 'alpha beta' }]),
      ],
      ['$ before a carriage return', grep(['end$', 'settings\\.$'], 'perl'), (result) => assert.equal(result.files.size, 0)],
      ['anchors and classes', grep(['^[^a-z]+$', '^$', 'x{y', 'a+?b'], 'perl'), (result) => assert.ok(result.files.has('src/app.ts'))],
      [
        'a negated class, case-insensitive',
        grep(['^[^e]+$'], 'perl', { caseSensitive: false }),
        (result) => assert.ok(!result.files.get('src/app.ts')?.some((line) => /e/i.test(line.text))),
      ],
      [
        'POSIX ERE',
        grep(['^[[:space:]]*(async[[:space:]]+)?def[[:space:]]+retry_with_backoff[[:space:]]*\\(', 'x[\\.]y'], 'extended'),
        (result) => assert.deepEqual([...result.files.keys()], ['lib/retry.py']),
      ],
      ...NAVIGATION_LANGUAGES.map((language): [string, GrepOptions, (result: Awaited<ReturnType<typeof grepTarget>>) => void] => [
        `the ${language.label} definition patterns, with their pathspecs`,
        grep(language.definitions('parseConfig'), 'extended', { pathspecs: pathspecsOf(language), linesPerFile: 20 }),
        (result) => assert.deepEqual([...result.files.keys()], language.id === 'typescript' ? ['src/app.ts'] : []),
      ]),
      [
        'two pathspecs',
        grep(['re'], 'fixed', { pathspecs: ['*.py', '*.md'] }),
        (result) => assert.deepEqual([...result.files.keys()], ['docs/README.md', 'lib/retry.py']),
      ],
      [
        'files that are not text to git',
        grep(['needle'], 'fixed'),
        (result) => assert.deepEqual([...result.files.keys()], ['data/late-nul.txt', 'data/no-final-newline.txt', 'docs/latin1.txt']),
      ],
      ['Latin-1 bytes', grep(['caf.'], 'perl'), (result) => assert.equal(result.files.get('docs/latin1.txt')?.[0]?.text, 'caf\uFFFD na\uFFFDve needle')],
      ...CAP_CASES,
      [
        'only the files named (a binary one and a missing one match nothing)',
        grep(['needle'], 'fixed', { caseSensitive: false, files: ['data/no-final-newline.txt', 'assets/logo.png', 'docs/latin1.txt', 'no/such/file.txt'] }),
        (result) => assert.deepEqual([...result.files.keys()], ['data/no-final-newline.txt', 'docs/latin1.txt']),
      ],
    ];
    for (const [name, options, check] of cases) {
      it(name, async function () {
        const expected = await grepTarget(world.plain, world.target, options);
        const actual = await fromIndex(world, options);
        assertSameGrep(actual, expected);
        check(actual);
        assertSameGrep(await grepTarget(world.partly, world.target, options), expected, 'with half the tree indexed, the rest read by git grep');
        assertSameGrep(
          await grepTarget(world.filtered, world.target, options),
          expected,
          'with no index, git grep reading the files the trigram filter leaves',
        );
        assertSameGrep(await grepTarget(world.partlyFiltered, world.target, options), expected, 'with half the tree indexed, the filter narrowing the rest');
      });
    }

    it('through grepTarget, without git: a repository whose objects are gone still answers from the index', async function () {
      const options = grep(['parseConfig'], 'fixed', { caseSensitive: false });
      const expected = await grepTarget(world.plain, world.target, options);
      const copy = await createVariedRepo();
      try {
        const indexes = new SearchIndexes({ log: () => undefined });
        try {
          const repository = { name: 'github.com/acme/indexed', dir: copy.dir, bare: false };
          const target: SearchTarget = { repo: repository, commit: await head(copy), revision: 'HEAD' };
          await readyIndex(indexes, target);
          await rm(path.join(copy.dir, '.git', 'objects'), { recursive: true, force: true });
          const context: ToolContext = { ...toolContext(copy, 'github.com/acme/indexed', indexes), repositories: [repository] };
          assertSameGrep(await grepTarget(context, target, options), expected);
          await assert.rejects(grepTarget(toolContext(copy, 'github.com/acme/indexed'), target, options));
        } finally {
          indexes.close();
        }
      } finally {
        await copy.remove();
      }
    });
  });

  it('reads each text file exactly as git cat-file does, and leaves other files to git', async function () {
    const listed = (await world.repo.git('ls-tree', '-r', '--name-only', '-z', 'HEAD')).split('\0').filter(Boolean);
    const textFiles = [
      '.gitattributes',
      'data/empty.txt',
      'data/late-nul.txt',
      'data/long.txt',
      'data/no-final-newline.txt',
      'data/rows.txt',
      'docs/README.md',
      'docs/latin1.txt',
      'docs/unicode.md',
      'lib/retry.py',
      'redos.txt',
      'src/app.ts',
      'src/util.js',
    ];
    for (const file of listed) {
      const indexed = await world.index.readText(file, 1 << 20, world.plain.signal);
      if (!textFiles.includes(file)) {
        assert.equal(indexed, undefined, `${file} is not text to git grep`);
        continue;
      }
      const blob = await readBlobText(world.plain, world.target.repo, `${world.target.commit}:${file}`, undefined, 1 << 20);
      assert.equal(indexed, blob.text, file);
      assert.deepEqual(await readTargetText(world.indexed, world.target, file, 1 << 20), blob, file);
    }
    assert.equal(await world.index.readText('data/long.txt', 100, world.plain.signal), undefined, 'over the size asked for');
  });

  it('leaves to git grep what it cannot promise git’s answer for, and what git grep then says', async function () {
    const lookahead = grep(['parse(?=Config)'], 'perl');
    assert.equal(lineMatcher(lookahead.patterns, 'perl', true, false), undefined);
    const result = await grepTarget(world.indexed, world.target, lookahead);
    assertSameGrep(result, await grepTarget(world.plain, world.target, lookahead));
    assert.ok(result.files.has('src/app.ts'));
    const other = await grepTarget(world.indexed, world.target, grep(['parseConfig'], 'fixed', { pathspecs: ['src/'] }));
    assert.deepEqual([...other.files.keys()], ['src/app.ts'], 'a directory pathspec goes to git');
  });

  it('stops a catastrophic regular expression in bounded time, and git grep reports it as before', async function () {
    const options = grep(['(a+)+$'], 'perl', { what: 'The regular expression /(a+)+$/' });
    const matcher = lineMatcher(options.patterns, 'perl', true, false);
    assert.ok(matcher);
    assert.equal(
      await world.index.grep({ matcher, pathspecs: [], linesPerFile: 200, maxOutputBytes: 1 << 20, what: options.what }, world.plain.signal),
      undefined,
    );
    // Stopped at its limit: on the 41 characters of redos.txt the match backtracks 2^40 times, so
    // without the limit neither call here would return before the test's own time runs out.
    assert.match(world.logs.at(-1) ?? '', /took over 500 ms; git grep answers instead/);
    await assert.rejects(
      grepTarget(world.indexed, world.target, options),
      /The regular expression \/\(a\+\)\+\$\/ needs too much backtracking and was stopped: simplify it/,
    );
    // The worker survived: the index still answers.
    assertSameGrep(await fromIndex(world, grep(['parseConfig'], 'fixed')), await grepTarget(world.plain, world.target, grep(['parseConfig'], 'fixed')));
  });

  it('is used by no search until it is ready: the first search of a commit runs git grep and starts the build', async function () {
    await withRepository('fresh', { 'a.ts': 'export const answer = 42;\n' }, async ({ target, indexes, plain }) => {
      assert.equal(indexes.lookup(target), undefined, 'not ready at once');
      const result = await grepTarget({ ...plain, searchIndexes: indexes }, target, grep(['answer'], 'fixed'));
      assert.deepEqual([...result.files.keys()], ['a.ts']);
      await readyIndex(indexes, target);
      const other: SearchTarget = { ...target, revision: 'main' };
      assert.ok(indexes.lookup(other), 'any name of the indexed commit uses the index');
    });
  });

  it('lets work that may wait wait for the index being built, not for a commit it will not index, and stops waiting when cancelled', async function () {
    await withRepository('waited', { 'a.ts': 'export const answer = 42;\n' }, async ({ repo, target, indexes }) => {
      const signal = new AbortController().signal;
      assert.equal(await indexes.whenReady({ ...target, revision: 'main' }, signal, 10_000), undefined, 'only HEAD is indexed: nothing to wait for');
      assert.equal(indexes.isBuilding(target), false);
      const waited = indexes.whenReady(target, signal, 30_000);
      assert.equal(indexes.isBuilding(target), true, 'asking started the build');
      const index = await waited;
      assert.equal(index?.commit, target.commit);
      assert.equal(indexes.lookup(target), index);
      const cancelled = new AbortController();
      cancelled.abort();
      await repo.commit({ message: 'Two', files: { 'b.ts': 'export const other = 1;\n' } });
      const next: SearchTarget = { ...target, commit: await head(repo) };
      await assert.rejects(indexes.whenReady(next, cancelled.signal, 30_000), (error: unknown) => error instanceof Error && error.name === 'AbortError');
    });
  });

  it('lets searches that come while the index builds take turns without it, each answered as git would', async function () {
    await withRepository('turns', { 'a.ts': 'export const answer = 42;\n' }, async ({ target, indexes, plain }) => {
      // One at a time, in order; one cancelled while waiting never runs.
      const running: string[] = [];
      const log: string[] = [];
      const task = (name: string) => async () => {
        running.push(name);
        assert.equal(running.length, 1, `${running.join(', ')} ran at once`);
        await new Promise((resolve) => setTimeout(resolve, 20));
        log.push(name);
        running.pop();
        return name;
      };
      const cancelled = new AbortController();
      const turns = [
        indexes.takingTurns(target, new AbortController().signal, task('first')),
        indexes.takingTurns(target, cancelled.signal, task('cancelled')),
        indexes.takingTurns(target, new AbortController().signal, task('third')),
      ];
      cancelled.abort();
      const outcomes = await Promise.allSettled(turns);
      assert.deepEqual(log, ['first', 'third']);
      assert.equal(outcomes[1]?.status, 'rejected');
      // Through grepTarget while the build is under way: each search takes its turn, and gets git grep's answer.
      const context = { ...plain, searchIndexes: indexes };
      const takingTurns = indexes.takingTurns.bind(indexes);
      let turnsTaken = 0;
      indexes.takingTurns = (...args) => {
        turnsTaken++;
        return takingTurns(...args);
      };
      assert.equal(indexes.lookup(target), undefined);
      assert.equal(indexes.isBuilding(target), true);
      const results = await Promise.all([1, 2, 3].map(() => grepTarget(context, target, grep(['answer'], 'fixed'))));
      for (const result of results) assert.deepEqual([...result.counts.entries()], [['a.ts', 1]]);
      assert.equal(turnsTaken, 3, 'every search came through the turns');
    });
  });

  it('follows HEAD: a new commit gets its own index, which replaces the old one', async function () {
    const repo = await createTestRepo({ name: 'moving', commits: [{ message: 'First', files: { 'a.ts': 'const before = 1;\n' } }] });
    const logs: string[] = [];
    const indexes = new SearchIndexes({ log: (line) => logs.push(line) });
    try {
      const repository = { name: 'moving', dir: repo.dir, bare: false };
      const first: SearchTarget = { repo: repository, commit: await head(repo), revision: 'HEAD' };
      const old = await readyIndex(indexes, first);
      await repo.commit({ message: 'Second', files: { 'a.ts': 'const after = 2;\n', 'b.ts': 'const after = 3;\n' } });
      const second: SearchTarget = { repo: repository, commit: await head(repo), revision: 'HEAD' };
      assert.equal(indexes.lookup(second), undefined);
      assert.equal(indexes.lookup(first), old, 'the old index serves its commit until the new one is ready');
      const fresh = await readyIndex(indexes, second);
      assert.notEqual(fresh, old);
      assert.equal(old.alive, false, 'the old index is gone');
      assert.equal(indexes.lookup(first), undefined);
      assert.equal(logs.filter((line) => line.includes(' ready: ')).length, 2);
      const context = { ...toolContext(repo, 'github.com/acme/indexed', indexes), repositories: [repository] };
      const result = await grepTarget(context, second, grep(['after'], 'fixed'));
      assert.deepEqual(
        [...result.counts.entries()],
        [
          ['a.ts', 1],
          ['b.ts', 1],
        ],
      );
      const older: SearchTarget = { ...first, revision: first.commit };
      assert.equal(indexes.lookup(older), undefined, 'an older revision is not indexed again');
      assert.deepEqual([...(await grepTarget(context, older, grep(['before'], 'fixed'))).counts.entries()], [['a.ts', 1]]);
    } finally {
      indexes.close();
      await repo.remove();
    }
  });

  describe('ranks for natural-language search as the counts of git grep do', function () {
    const queries = [
      // Rare terms select the candidates; a common one ("e") only scores them.
      'parseConfig settings e',
      // Identifier parts and stems, case folded.
      'RetryWithBackoff needles',
      // Filters: within the index's files, evaluated before scoring.
      'needle file:\\.txt$ -file:late',
      'parseConfig lang:typescript',
      // Nothing matches.
      'zebracorn',
    ];
    for (const text of queries) {
      it(`"${text}": the same files, scores, counts and corpus figures from the index's worker`, async function () {
        const query = parseQuery(text, toolNamer('v1'));
        const terms = queryTerms(query.patterns.map((pattern) => pattern.value));
        for (const limit of [1, 3, 50]) {
          const expected = await rankFiles(world.plain, query, terms, { limit });
          const actual = await rankFiles(world.indexed, query, terms, { limit });
          assert.deepEqual(summary(await rankFiles(world.partly, query, terms, { limit })), summary(expected), `limit ${limit}, half the tree indexed`);
          assert.deepEqual(summary(actual), summary(expected), `limit ${limit}`);
          assert.ok(actual.files.length <= limit);
        }
      });
    }

    it('gives keyword search the same answer as git, reading the lines of the files it shows only', async function () {
      const files: Record<string, string> = {};
      for (let at = 0; at < 2500; at++) files[`src/widget${at}.ts`] = `${'const widget = fetchWidget(); // widget\n'.repeat(30)}`;
      files['src/widget-gadget.ts'] = 'const widget = 1;\nconst gadget = 2;\n';
      await withRepository('keywords', files, async ({ plain, indexed }) => {
        for (const query of ['widget', 'widget gadget', 'gadget OR fetchWidget count:40', 'widget -gadget']) {
          const expected = await keywordSearch(plain, { query });
          const actual = await keywordSearch(await indexed(), { query });
          assert.deepEqual(actual, expected, query);
          for (const block of actual.structured.blocks) assert.ok(block.chunks.length > 0, `${query}: ${block.file} shows its matched lines`);
        }
        // Every file is counted, also where git grep's lines would pass its output cap (4 MB here).
        const counted = await keywordSearch(plain, { query: 'widget' });
        assert.match(counted.text, /^2501 files match "widget"; the best 15 are shown:/);
        const complete = await keywordSearch(plain, { query: 'gadget' });
        assert.match(complete.text, /^1 file matches "gadget":/);
        const both = await keywordSearch(await indexed(), { query: 'widget gadget' });
        assert.equal(both.structured.blocks[0]?.file, 'src/widget-gadget.ts', 'the file with both terms leads');
        assert.match(both.structured.blocks[0]?.chunks[0]?.content ?? '', /gadget/);
      });
    });

    it('lets file: and lang: filters narrow what keyword search reads: a file past the whole tree’s output cap is found', async function () {
      const files: Record<string, string> = {};
      for (let at = 0; at < 2500; at++) files[`src/widget${at}.ts`] = `${'const widget = fetchWidget(); // widget\n'.repeat(30)}`;
      files['zz/notes.md'] = '# Notes\nThe widget is documented here.\n';
      files['zz/more.txt'] = 'widget\n';
      await withRepository('filtered', files, async ({ plain, indexed }) => {
        for (const query of ['widget file:\\.md$', 'widget -file:\\.ts$', 'widget lang:markdown', 'widget OR file:\\.md$']) {
          const expected = await keywordSearch(plain, { query });
          assert.deepEqual(await keywordSearch(await indexed(), { query }), expected, query);
          if (query !== 'widget OR file:\\.md$')
            assert.ok(
              expected.structured.blocks.some((block) => block.file === 'zz/notes.md'),
              `${query} finds zz/notes.md`,
            );
          if (query === 'widget -file:\\.ts$') assert.deepEqual(expected.notes ?? [], [], 'nothing was cut: the .ts files were never read');
        }
      });
    });

    it('reads only the blocks that can hold a match (its n-gram filter), with git grep’s answers on a tree of many blocks', async function () {
      const files: Record<string, string> = {};
      for (let at = 0; at < 60; at++) {
        const planted = [
          at === 5 || at === 50 ? 'const found = needleAlpha(1);' : '',
          at === 20 ? 'source.pipe(Switchmap(load));' : '',
          at === 33 ? 'source.pipe(mergeMap(load));' : '',
          at === 12 ? 'export function parseThing(text) {}' : '',
          at === 41 ? 'export const parseOther = 1;' : '',
        ].filter(Boolean);
        const filler = Array.from({ length: 300 }, (_, line) => `// filler line ${line} of file ${at}`);
        filler.splice(150, 0, ...planted);
        files[`src/part${String(at).padStart(2, '0')}.${at % 3 === 0 ? 'md' : 'ts'}`] = `${filler.join('\n')}\n`;
      }
      await withRepository('blocks', files, async ({ plain, indexed, indexes, target }) => {
        const context = await indexed();
        const cases: GrepOptions[] = [
          grep(['needleAlpha'], 'fixed'),
          grep(['NEEDLEALPHA'], 'fixed', { caseSensitive: false }),
          grep(['needleAlpha'], 'fixed', { linesPerFile: 0 }),
          grep(['needleAlpha'], 'fixed', { wholeWord: true, pathspecs: ['*.md'] }),
          grep(['(mergeMap|switchMap)\\('], 'perl', { caseSensitive: false }),
          grep(['^export (function|const) parse\\w+'], 'perl'),
          grep(['needle[A-Z]lpha', 'parse(Thing|Other)'], 'extended'),
          grep(['found = (?:needle)?Alpha'], 'perl'),
          grep(['filler line 29[0-9] of file'], 'perl', { linesPerFile: 0 }),
          grep(['needleAlpha'], 'fixed', { files: ['src/part05.ts', 'src/part49.ts', 'src/part50.ts'] }),
        ];
        for (const options of cases) assertSameGrep(await grepTarget(context, target, options), await grepTarget(plain, target, options), options.what);
        const index = indexes.lookup(target, false);
        assert.ok(index);
        const total = index.textBytes;
        assert.ok(total > 4 * 64 * 1024, `${total} bytes of text make several blocks`);
        const scanned = async (options: GrepOptions): Promise<number> => {
          const matcher = lineMatcher(options.patterns, options.syntax, options.caseSensitive, options.wholeWord ?? false);
          assert.ok(matcher);
          const found = await index.grep({ matcher, pathspecs: [], linesPerFile: 0, maxOutputBytes: 1 << 20, what: options.what }, plain.signal);
          assert.ok(found);
          return found.scannedBytes;
        };
        assert.ok((await scanned(grep(['needleAlpha'], 'fixed'))) <= (total * 2) / 5, 'a rare term reads the two blocks that hold it, at most');
        assert.ok(
          (await scanned(grep(['(mergeMap|switchMap)\\('], 'perl', { caseSensitive: false }))) <= (total * 2) / 5,
          'an alternation reads the blocks of its branches',
        );
        assert.equal(await scanned(grep(['filler'], 'fixed')), total, 'a term in every block reads them all');
        assert.equal(await scanned(grep(['zebracorn'], 'fixed')), 0, 'a term in no block reads nothing');
      });
    });

    it('counts in thousands of named files as the index does: git grep counts the tree and keeps them', async function () {
      const files: Record<string, string> = {};
      for (let at = 0; at < 5_200; at++) files[`f/${at}.txt`] = at % 2 === 0 ? 'widget\nwidget\n' : 'gadget\n';
      await withRepository('named', files, async ({ plain, indexed, target }) => {
        // 5,100 named: every third file, the others' matches left out, and a path the tree does not have.
        const named = [...Array.from({ length: 5_100 }, (_, at) => `f/${(at * 3) % 5_200}.txt`), 'f/missing.txt'];
        const options = grep(['widget'], 'fixed', { linesPerFile: 0, files: named });
        const counted = await grepTarget(plain, target, options);
        const expected = new Set(named.filter((path) => Number(/\d+/.exec(path)?.[0] ?? 1) % 2 === 0));
        assert.deepEqual(new Set(counted.counts.keys()), expected);
        assert.ok([...counted.counts.entries()].map(([, count]) => count).every((count) => count === 2));
        assert.equal(counted.truncated, false);
        assertSameGrep(await grepTarget(await indexed(), target, options), counted);
      });
    });

    it('selects candidates past fifty files by the rarer terms, or the rarest when all are common, as git grep’s counts do', async function () {
      const files: Record<string, string> = {};
      for (let at = 0; at < 120; at++) {
        const words = ['alpha', at % 2 === 0 ? 'beta' : '', at % 12 === 0 ? 'gamma' : ''].filter(Boolean);
        files[`src/${words.join('-')}/file${at}.ts`] = `${words.map((word) => `const ${word} = ${at};`).join('\n')}\n${'// filler\n'.repeat(at % 7)}`;
      }
      await withRepository('selecting', files, async ({ plain, indexed }) => {
        for (const [text, candidates] of [
          ['alpha gamma', 10],
          ['alpha beta', 60],
          ['alpha', 120],
        ] as const) {
          const query = parseQuery(text, toolNamer('v1'));
          const terms = queryTerms(query.patterns.map((pattern) => pattern.value));
          const expected = await rankFiles(plain, query, terms, { limit: 7 });
          assert.equal(expected.total, candidates, text);
          assert.deepEqual(summary(await rankFiles(await indexed(), query, terms, { limit: 7 })), summary(expected), text);
        }
      });
    });

    it('counts every file, with or without the index, where git grep’s lines would pass its output cap', async function () {
      const files: Record<string, string> = {};
      // 2,500 files of 30 matching lines: about 4 MB of git grep lines, twice its output cap.
      for (let at = 0; at < 2500; at++) files[`src/widget${at}.ts`] = `${'const widget = fetchWidget(); // widget\n'.repeat(30)}`;
      await withRepository('many', files, async ({ plain, indexed }) => {
        const terms = queryTerms(['widget']);
        for (const [name, context] of [
          ['git grep', plain],
          ['the index', await indexed()],
        ] as const) {
          const exact = await rankFiles(context, parseQuery('widget', toolNamer('v1')), terms, { limit: 5 });
          assert.equal(exact.total, 2500, name);
          assert.equal(exact.stats.documentFrequency.get('widget'), 2500, name);
          assert.deepEqual(exact.notes, [], name);
          assert.equal(exact.files[0]?.document.termFrequencies.get('widget'), 30, name);
        }
      });
    });
  });

  it('indexes half the tree within a budget of half its bytes, and says how much it reads per search', function () {
    const { index } = world.partial;
    assert.ok(index.paths.length > 0 && index.unread.length > 0, `${index.paths.length} files indexed, ${index.unread.length} read per search`);
    // The files past the budget all come after the indexed ones, in tree order.
    const order = [...index.paths, ...index.unread];
    assert.deepEqual(
      order,
      [...order].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
    );
  });

  it('shares one budget across repositories searched at once: one indexed whole, the next as far as the rest goes, a third not at all', async function () {
    const file = `${'widget line\n'.repeat(83)}widget!\n`; // 1,004 bytes
    const repos = await Promise.all(
      ['first', 'second', 'third'].map((name) =>
        createTestRepo({
          name,
          commits: [{ message: 'Files', files: Object.fromEntries(Array.from({ length: 10 }, (_, at) => [`src/file${at}.txt`, file])) }],
        }),
      ),
    );
    const logs: string[] = [];
    const indexes = new SearchIndexes({ log: (line) => logs.push(line), budgetBytes: 15_100 });
    try {
      const targets = await Promise.all(
        repos.map(async (repo, at): Promise<SearchTarget> => ({
          repo: { name: ['first', 'second', 'third'][at] ?? '', dir: repo.dir, bare: false },
          commit: await head(repo),
          revision: 'HEAD',
        })),
      );
      // Their first searches come together: the builds take turns, each taking what the others left.
      for (const target of targets) indexes.lookup(target);
      await waitFor(
        () => Promise.resolve(logs.length),
        (count) => count === 3,
        { description: 'the three outcomes' },
      );
      const found: Array<{ name: string; index: SearchIndex | undefined }> = [];
      for (const [at, repo] of repos.entries()) {
        const target = targets[at];
        const repository = target.repo;
        const name = repository.name;
        const index = indexes.lookup(target, false);
        found.push({ name, index });
        // Whatever the index holds, every search answers as git grep does.
        const plain: ToolContext = { ...toolContext(repo, name), repositories: [repository] };
        for (const options of [
          grep(['widget'], 'fixed'),
          grep(['widget'], 'fixed', { linesPerFile: 0 }),
          grep(['widget!'], 'fixed', { maxOutputBytes: 300 }),
        ]) {
          assertSameGrep(await grepTarget({ ...plain, searchIndexes: indexes }, target, options), await grepTarget(plain, target, options), name);
        }
      }
      assert.equal(found[0]?.index?.paths.length, 10);
      assert.equal(found[0]?.index?.unread.length, 0);
      assert.equal(found[1]?.index?.paths.length, 5, 'the 5,060 bytes left hold five files');
      assert.deepEqual(found[1]?.index?.unread, ['src/file5.txt', 'src/file6.txt', 'src/file7.txt', 'src/file8.txt', 'src/file9.txt']);
      assert.equal(found[2]?.index, undefined);
      assert.match(logs[0] ?? '', /^search index of first at [0-9a-f]{12} ready: 10 text files, 9\.8 KB, \d+\.\d s$/);
      assert.match(
        logs[1] ?? '',
        /^search index of second at [0-9a-f]{12} ready: 5 text files, 4\.9 KB, \d+\.\d s; 5 files \(4\.9 KB\) past the index budget are read per search$/,
      );
      assert.match(
        logs[2] ?? '',
        /^no search index for third at [0-9a-f]{12}: its files add up to 9\.8 KB, and the search index budget has 40 bytes left; its searches read the tree$/,
      );
    } finally {
      indexes.close();
      await Promise.all(repos.map((repo) => repo.remove()));
    }
  });

  it('keeps a trigram filter of the tree on disk: git grep reads only the files that can match, the same answers, across starts', async function () {
    // 240 files of about 2 KB; "zebracorn" is in two of them, far apart.
    const files: Record<string, string> = {};
    for (let at = 0; at < 240; at++) {
      const name = `src/part${String(at).padStart(3, '0')}.${at % 2 === 0 ? 'ts' : 'md'}`;
      files[name] =
        `${`export const value${at} = compute(${at}); // line of part ${at}\n`.repeat(40)}${at === 10 || at === 200 ? 'the ZebraCorn is here\n' : ''}`;
    }
    const repo = await createTestRepo({ name: 'filtered', commits: [{ message: 'Files', files }] });
    const filterDir = await mkdtemp(path.join(tmpdir(), 'filters-'));
    const logs: string[] = [];
    const open: SearchIndexes[] = [];
    const indexesWith = (budgetBytes: number): SearchIndexes => {
      const indexes = new SearchIndexes({ log: (line) => logs.push(line), budgetBytes, filterDir });
      open.push(indexes);
      return indexes;
    };
    try {
      const repository = { name: 'filtered', dir: repo.dir, bare: false };
      const target: SearchTarget = { repo: repository, commit: await head(repo), revision: 'HEAD' };
      const plain: ToolContext = { ...toolContext(repo, 'filtered'), repositories: [repository] };
      const filter = await readyFilter(indexesWith(0), target);
      assert.equal(filter.paths.length, 240);
      assert.match(
        logs.find((line) => line.startsWith('search filter of')) ?? '',
        /^search filter of filtered at [0-9a-f]{12} ready: 240 files, [\d.]+ (KB|MB) on disk, \d+\.\d s$/,
      );

      const candidates = async (pattern: string, syntax: GrepOptions['syntax'], caseSensitive: boolean, maxFiles = 1000): Promise<string[] | undefined> => {
        const matcher = lineMatcher([pattern], syntax, caseSensitive, false);
        assert.ok(matcher);
        return filter.candidates(requiredText(matcher), null, maxFiles);
      };
      const rare = (await candidates('zebracorn', 'fixed', false)) ?? [];
      assert.ok(rare.includes('src/part010.ts') && rare.includes('src/part200.ts'), 'both files are candidates');
      assert.ok(rare.length <= 4, `${rare.length} of 240 files are candidates`);
      assert.deepEqual(await candidates('not-in-any-file', 'fixed', true), [], 'a term in no block leaves no file');
      assert.equal(await candidates('e', 'fixed', true), undefined, 'a term shorter than a trigram cannot narrow');
      assert.equal((await candidates('value', 'fixed', true))?.length, 240, 'a term in every file leaves every file');
      assert.equal(await candidates('value', 'fixed', true, 100), undefined, 'more than the bound: the search reads the tree');

      const searches = [
        grep(['zebracorn'], 'fixed', { caseSensitive: false }),
        grep(['ZebraCorn'], 'fixed'),
        grep(['zebracorn'], 'fixed'),
        grep(['(zebra|unicorn)corn'], 'extended', { caseSensitive: false }),
        grep(['zebracorn'], 'fixed', { caseSensitive: false, pathspecs: ['*.md'] }),
        grep(['zebracorn'], 'fixed', { caseSensitive: false, files: ['src/part200.ts', 'src/part011.md'] }),
        grep(['compute\\(1[0-9]\\)'], 'extended', { linesPerFile: 0 }),
      ];
      const expected = await Promise.all(searches.map((options) => grepTarget(plain, target, options)));
      assert.deepEqual([...(expected[0]?.files.keys() ?? [])], ['src/part010.ts', 'src/part200.ts']);
      const filtered: ToolContext = { ...plain, searchIndexes: open[0] };
      for (const [at, options] of searches.entries()) assertSameGrep(await grepTarget(filtered, target, options), expected[at], options.patterns[0]);

      // A second engine on the same data folder reads the filter from disk, before any build.
      const restarted = indexesWith(0);
      assert.ok(await restarted.filterFor(repository, target.commit), 'the filter is read back');
      assert.equal(logs.filter((line) => / ready: /.test(line)).length, 1, 'and not built again');
      assert.match(logs.at(-1) ?? '', /^search filter of filtered at [0-9a-f]{12} read from disk: 240 files$/);
      for (const [at, options] of searches.entries()) assertSameGrep(await grepTarget({ ...plain, searchIndexes: restarted }, target, options), expected[at]);

      // A damaged filter is not used: searches read the tree, with the same answers.
      const file = filterFile(filterDir, repo.dir, target.commit);
      await truncate(file, 1000);
      const damaged = indexesWith(0);
      assert.equal(await damaged.filterFor(repository, target.commit), undefined);
      for (const [at, options] of searches.entries()) assert.deepEqual(await grepTarget({ ...plain, searchIndexes: damaged }, target, options), expected[at]);

      // No filter takes the room the data folder keeps free: none is written, and searches read the tree.
      const roomless = await mkdtemp(path.join(tmpdir(), 'filters-'));
      try {
        const spare = new SearchIndexes({ log: (line) => logs.push(line), budgetBytes: 0, filterDir: roomless, filterSpareBytes: Number.MAX_SAFE_INTEGER });
        open.push(spare);
        spare.lookup(target);
        const said = await waitFor(
          () => Promise.resolve(logs.find((line) => line.startsWith('no search filter for'))),
          (line) => line !== undefined,
          { description: 'the log line' },
        );
        // Said before the tree is read: the disk has no room to spare whatever the filter's size.
        assert.match(
          said ?? '',
          /^no search filter for filtered at [0-9a-f]{12}: the data folder's disk has [\d.]+ [KMGT]?B free, and filters are written only while [\d.]+ [KMGT]?B more stay free; searches the index does not answer read every file$/,
        );
        assert.deepEqual(await readdir(roomless, { recursive: true }), []);
        assert.deepEqual(await grepTarget({ ...plain, searchIndexes: spare }, target, searches[0]), expected[0]);
      } finally {
        await rm(roomless, { recursive: true, force: true });
      }

      // A new commit's filter replaces the old one on disk.
      await repo.commit({ message: 'More', files: { 'src/extra.ts': 'zebracorn again\n' } });
      const next: SearchTarget = { ...target, commit: await head(repo) };
      const nextFilter = await readyFilter(indexesWith(0), next);
      assert.equal(nextFilter.paths.length, 241);
      assert.deepEqual(await readdir(path.dirname(file)), [path.basename(filterFile(filterDir, repo.dir, next.commit))]);
      // The old commit's filter is gone from disk under the engine that read it: its searches read the tree.
      for (const [at, options] of searches.entries()) assert.deepEqual(await grepTarget(filtered, target, options), expected[at]);
    } finally {
      for (const indexes of open) indexes.close();
      await repo.remove();
      await rm(filterDir, { recursive: true, force: true });
    }
  });

  it('keeps a filter for trees of up to 65,536 files, reads no list past 256 K entries, and says why a larger tree gets none', async function () {
    this.timeout(180_000);
    const root = await createTempDir('filter-limits-');
    const filterDir = path.join(root, 'filters');
    const logs: string[] = [];
    const open: SearchIndexes[] = [];
    // Every file holds "common text quokka"; one of them also "zebracorn".
    const fileAt = (at: number) => ({
      path: `f/${Math.floor(at / 1000)}/${at}.txt`,
      content: `common text quokka ${at}\n${at === 40_000 ? 'zebracorn\n' : ''}`,
    });
    const repository = async (name: string, make: (dir: string) => Promise<unknown>): Promise<{ target: SearchTarget; plain: ToolContext }> => {
      const dir = path.join(root, name);
      await make(dir);
      const repo = { name, dir, bare: false };
      const commit = (await runGit(['rev-parse', 'HEAD'], { cwd: dir })).stdout.trim();
      const target: SearchTarget = { repo, commit, revision: 'HEAD' };
      const plain: ToolContext = { ...toolContext({ dir } as TestRepo, name), repositories: [repo] };
      return { target, plain };
    };
    try {
      const fits = await repository('fits', (dir) => generateRepository(dir, 65_536, fileAt, { checkout: false }));
      const indexes = new SearchIndexes({ log: (line) => logs.push(line), budgetBytes: 0, filterDir });
      open.push(indexes);
      const filter = await readyFilter(indexes, fits.target);
      assert.equal(filter.paths.length, 65_536);
      const candidates = (pattern: string): Promise<string[] | undefined> => {
        const matcher = lineMatcher([pattern], 'fixed', true, false);
        assert.ok(matcher);
        return filter.candidates(requiredText(matcher), null, Number.MAX_SAFE_INTEGER);
      };
      assert.deepEqual(await candidates('zebracorn'), ['f/40/40000.txt']);
      // Two trigrams in every file: 131,072 entries are read.
      assert.equal((await candidates('quok'))?.length, 65_536);
      // Six trigrams in every file: 393,216 entries would be, past the bound: the search reads the tree.
      assert.equal(await candidates('common text quokka'), undefined);
      for (const options of [grep(['zebracorn'], 'fixed'), grep(['common text quokka 4000'], 'fixed', { linesPerFile: 0 })]) {
        assertSameGrep(
          await grepTarget({ ...fits.plain, searchIndexes: indexes }, fits.target, options),
          await grepTarget(fits.plain, fits.target, options),
          options.patterns[0],
        );
      }

      // The same tree and one file more (65,537), as a commit on top of a clone of the first.
      const larger = await repository('larger', (dir) => extendRepository(fits.target.repo.dir, dir, [fileAt(65_536)]));
      indexes.lookup(larger.target);
      const said = await waitFor(
        () => Promise.resolve(logs.find((line) => line.startsWith('no search filter for larger'))),
        (line) => line !== undefined,
        { description: 'the log line', timeoutMs: 60_000 },
      );
      assert.match(
        said ?? '',
        /^no search filter for larger at [0-9a-f]{12}: the tree has 65537 files, more than a filter holds \(65536\); searches the index does not answer read every file$/,
      );
      assert.equal(await indexes.filterFor(larger.target.repo, larger.target.commit), undefined);
      const options = grep(['zebracorn'], 'fixed');
      assertSameGrep(
        await grepTarget({ ...larger.plain, searchIndexes: indexes }, larger.target, options),
        await grepTarget(larger.plain, larger.target, options),
      );
    } finally {
      for (const indexes of open) indexes.close();
      await removeDir(root);
    }
  });

  it('is built by the engine on the first search, logged, and gives the same answers over MCP', async function () {
    const logs: string[] = [];
    const engine = await startTestEngine({ repos: [world.repo.dir], log: (line) => logs.push(line) });
    const mcp = await McpSession.open(engine.url);
    try {
      const calls: Array<[string, Record<string, unknown>]> = [
        ...['parseConfig', 'PARSECONFIG case:yes', '/function\\s+\\w+Sync/', 'needle', 'lang:python retries', '"alpha beta"'].map(
          (query): [string, Record<string, unknown>] => ['sg_keyword_search', { query }],
        ),
        ['sg_nls_search', { query: 'parse the config file' }],
        ['sg_go_to_definition', { repo: engine.engine.repoNames[0], path: 'src/app.ts', symbol: 'parseConfig' }],
        ['sg_find_references', { repo: engine.engine.repoNames[0], path: 'src/app.ts', symbol: 'parseConfig' }],
      ];
      const answers = async (): Promise<unknown[]> => {
        const all: unknown[] = [];
        for (const [tool, args] of calls) all.push((await mcp.ok(tool, args)).structured);
        return all;
      };
      const before = await answers();
      const ready = await waitFor(
        () => Promise.resolve(logs.find((line) => line.startsWith('search index of'))),
        (line) => line !== undefined,
        { description: 'the index to be ready' },
      );
      assert.match(ready ?? '', / ready: 13 text files, /);
      const after = await answers();
      assert.deepEqual(after, before);
      assert.equal((after[8] as { fileBlocks: unknown[] }).fileBlocks.length, 1, 'the references are found');
      const message = await mcp.fails('sg_keyword_search', { query: '/(a+)+$/' });
      assert.match(message, /needs too much backtracking and was stopped: simplify it/);
    } finally {
      await mcp.close();
      await engine.dispose();
    }
  });
});
