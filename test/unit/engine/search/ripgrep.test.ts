/**
 * ripgrep answering for git grep while a repository has no search index, with VS Code's own
 * ripgrep (the one `npm run setup:vscode` installs) on real repositories: every grep the tools run
 * gives exactly git grep's result over the commit, and ripgrep did answer it (the engine's count of
 * its answers goes up; nothing is mocked). Where the working tree is not byte for byte the commit
 * (a change, a staged change, an assume-unchanged file, a checkout that converts line endings, a
 * revision other than HEAD), git grep answers. Over HTTP, an engine given ripgrep answers its first
 * search with it, and the same as an engine without it.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFile, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { ToolContext } from '../../../../src/engine/repo/context';
import { grepTarget, type GrepOptions, type GrepResult, type SearchTarget } from '../../../../src/engine/repo/grep';
import { ripgrepInVSCode } from '../../../../src/vscode/engine/ripgrepPath';
import { keywordSearch } from '../../../../src/engine/tools/search';
import { SearchIndexes } from '../../../../src/engine/search/searchIndex';
import { startTestEngine } from '../../../support/engineHarness';
import { createTempDir, createTestRepo, removeDir, type TestRepo } from '../../../support/gitRepos';
import { vscodeRipgrep } from '../../../support/vscodeRipgrep';
import { McpSession } from '../mcp/fixture';
import { CAP_CASES, grep, head, sharedFiles, toolContext, writeByteFiles } from './searchFiles';

/** A repository with what git grep and ripgrep would each treat their own way. */
async function createAwkwardRepo(): Promise<TestRepo> {
  const repo = await createTestRepo({
    name: 'awkward',
    commits: [
      {
        message: 'Code, docs and data',
        files: {
          ...sharedFiles('Awkward', '// needle in a comment'),
          'docs/unicode.md': 'ÉCOLE\nécole\nécOLE\nnaïve café needle\n',
          // A UTF-8 byte order mark: ripgrep would strip it unless told not to transcode.
          'docs/bom.md': '\uFEFFneedle on the first line\nparseConfig\n',
          'docs/naïve notes.md': 'needle in a file whose name has a space and an ï\n',
          '-dash.txt': 'needle in a file whose name starts with a dash\n',
          '.hidden/settings.txt': 'needle in a hidden folder\n',
          // ripgrep's own ignore files: they must not hide tracked files.
          '.rgignore': 'src/\n',
          '.ignore': 'lib/\n',
        },
      },
    ],
  });
  // Ignored but tracked (added with -f): git grep searches it, so ripgrep must be given it.
  await writeFile(path.join(repo.dir, '.gitignore'), 'ignored.txt\n');
  await writeFile(path.join(repo.dir, 'ignored.txt'), 'needle in an ignored but tracked file\n');
  await mkdir(path.join(repo.dir, 'assets'));
  // Binary (a NUL first), with a 100 KB line that matches: more than ripgrep prints past a small cap.
  await writeFile(path.join(repo.dir, 'assets', 'big.bin'), Buffer.concat([Buffer.from([0]), Buffer.from(`bulkyterm ${'b'.repeat(100_000)}\n`)]));
  await writeFile(path.join(repo.dir, 'docs', 'big.md'), 'bulkyterm in a text file after it\n');
  await writeByteFiles(repo.dir);
  // Symbolic links, one out of the repository: git grep searches neither, and ripgrep must not follow them.
  await writeFile(path.join(path.dirname(repo.dir), 'outside.txt'), 'needle outside the repository\n');
  await symlink('../outside.txt', path.join(repo.dir, 'link-out'));
  await symlink('src/app.ts', path.join(repo.dir, 'link-to-app'));
  await repo.git('add', '--all');
  await repo.git('add', '-f', 'ignored.txt');
  await repo.commit({ message: 'Binary, Latin-1, links and an ignored file', files: {} });
  // Not tracked: neither searches it.
  await writeFile(path.join(repo.dir, 'untracked.txt'), 'needle that nobody committed\n');
  return repo;
}

interface World {
  repo: TestRepo;
  target: SearchTarget;
  logs: string[];
  /** git grep only. */
  plain: ToolContext;
  /** ripgrep given; no index is ever ready (the size limit is 0 bytes), so every grep goes to ripgrep first. */
  early: ToolContext;
  indexes: SearchIndexes;
}

async function createWorld(repo: TestRepo): Promise<World> {
  const logs: string[] = [];
  const indexes = new SearchIndexes({ log: (line) => logs.push(line), budgetBytes: 0, ripgrepPath: vscodeRipgrep() });
  const plain = toolContext(repo, 'github.com/acme/awkward');
  const early = toolContext(repo, 'github.com/acme/awkward', indexes);
  const target: SearchTarget = { repo: plain.repositories[0], commit: await head(repo), revision: 'HEAD' };
  return { repo, target, logs, plain, early, indexes };
}

/** git grep's result and the early one, and whether ripgrep answered the early one. */
async function both(
  world: World,
  options: GrepOptions,
  target = world.target,
): Promise<{ expected: GrepResult; actual: GrepResult; answered: boolean; declined: boolean }> {
  const expected = await grepTarget(world.plain, target, options);
  const stats = world.indexes.ripgrep?.stats;
  assert.ok(stats, 'the engine has its ripgrep');
  const before = { ...stats };
  const actual = await grepTarget(world.early, target, options);
  return { expected, actual, answered: stats.answered === before.answered + 1, declined: stats.declined === before.declined + 1 };
}

describe('ripgrep before the search index is ready', function () {
  this.timeout(60_000);

  describe('gives exactly what git grep gives, and answers itself', function () {
    let world: World;
    before(async function () {
      world = await createWorld(await createAwkwardRepo());
    });
    after(async function () {
      world?.indexes.close();
      await world?.repo.remove();
    });

    const cases: Array<[string, GrepOptions, (result: GrepResult) => void]> = [
      ['a literal', grep(['parseConfig'], 'fixed'), (result) => assert.deepEqual([...result.files.keys()], ['docs/README.md', 'docs/bom.md', 'src/app.ts'])],
      ['a literal, case-insensitive', grep(['PARSEconfig'], 'fixed', { caseSensitive: false }), (result) => assert.equal(result.counts.get('src/app.ts'), 5)],
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
        'a regular expression with classes',
        grep(['function\\s+\\w+Sync\\s*\\('], 'perl'),
        (result) =>
          assert.deepEqual(
            result.files.get('src/util.js')?.map((line) => line.line),
            [1, 2, 5],
          ),
      ],
      [
        'character classes and ranges, case-insensitive',
        grep(['[A-Z][a-z]+config\\b', '[^a-z ]{4,}'], 'perl', { caseSensitive: false }),
        (result) => assert.ok(result.files.has('src/app.ts')),
      ],
      [
        'alternation in one pattern',
        grep(['^export (function|CONST)'], 'perl', { caseSensitive: false }),
        (result) => assert.equal(result.counts.get('src/app.ts'), 2),
      ],
      [
        'alternation of several patterns',
        grep(['alpha\\s+beta', 'retry_with_\\w+'], 'perl'),
        (result) => assert.deepEqual([...result.files.keys()], ['lib/retry.py', 'src/util.js']),
      ],
      ['$ before a carriage return', grep(['end$', 'settings\\.$'], 'perl'), (result) => assert.equal(result.files.size, 0)],
      ['anchors and empty lines', grep(['^[^a-z]+$', '^$', 'x{y', 'a+?b'], 'perl'), (result) => assert.ok(result.files.has('src/app.ts'))],
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
      [
        'pathspecs by extension',
        grep(['needle'], 'fixed', { pathspecs: ['*.txt', '*.md'] }),
        (result) => assert.ok(!result.files.has('src/util.js') && result.files.has('docs/bom.md')),
      ],
      [
        'the files git searches: tracked, regular, text (not binary, -diff, untracked, linked, or only ignored by ripgrep)',
        grep(['needle'], 'fixed'),
        (result) =>
          assert.deepEqual(
            [...result.files.keys()],
            [
              '-dash.txt',
              '.hidden/settings.txt',
              'data/late-nul.txt',
              'data/no-final-newline.txt',
              'docs/bom.md',
              'docs/latin1.txt',
              'docs/naïve notes.md',
              'docs/unicode.md',
              'ignored.txt',
              'src/util.js',
            ],
          ),
      ],
      [
        'a byte order mark kept as bytes',
        grep(['needle on'], 'fixed'),
        (result) => assert.equal(result.files.get('docs/bom.md')?.[0]?.text, '\uFEFFneedle on the first line'),
      ],
      ['Latin-1 bytes', grep(['caf.'], 'perl'), (result) => assert.equal(result.files.get('docs/latin1.txt')?.[0]?.text, 'caf\uFFFD na\uFFFDve needle')],
      ...CAP_CASES,
    ];
    for (const [name, options, check] of cases) {
      it(name, async function () {
        const { expected, actual, answered } = await both(world, options);
        assert.deepEqual(actual, expected);
        assert.ok(answered, 'ripgrep answered');
        check(actual);
      });
    }

    it('leaves to git grep what ripgrep cannot settle: a lookahead, a directory pathspec, binary lines that fill its share of the output', async function () {
      for (const options of [
        grep(['parse(?=Config)'], 'perl'),
        grep(['parseConfig'], 'fixed', { pathspecs: ['src/'] }),
        grep(['bulkyterm'], 'fixed', { maxOutputBytes: 200 }),
      ]) {
        const { expected, actual, answered } = await both(world, options);
        assert.deepEqual(actual, expected);
        assert.ok(!answered, `git grep answered ${JSON.stringify(options.patterns)}`);
      }
    });

    it('is not used for a revision other than HEAD: the working tree is HEAD’s', async function () {
      const stats = { ...world.indexes.ripgrep?.stats };
      const target: SearchTarget = { ...world.target, revision: 'main~1', commit: (await world.repo.git('rev-parse', 'main~1')).trim() };
      const { expected, actual } = await both(world, grep(['needle'], 'fixed'), target);
      assert.deepEqual(actual, expected);
      assert.deepEqual(world.indexes.ripgrep?.stats, stats, 'ripgrep was not asked');
    });

    it('gives the same tool answers as git grep: keyword search with literals, case, regular expressions, alternation and filters', async function () {
      const queries = [
        'parseConfig',
        'PARSECONFIG',
        'parseConfig case:yes',
        '/function\\s+\\w+Sync\\s*\\(/',
        '/[A-Z][a-z]+Config/',
        'alpha OR beta',
        '/(alpha|retry)_?\\w*/',
        'needle file:\\.txt$',
        'needle -file:^data/',
        'lang:python retries',
        '"alpha beta"',
      ];
      const stats = world.indexes.ripgrep?.stats;
      const answeredBefore = stats?.answered ?? 0;
      for (const query of queries) {
        const expected = await keywordSearch(world.plain, { query });
        const actual = await keywordSearch(world.early, { query });
        assert.deepEqual(actual, expected, query);
      }
      assert.ok((stats?.answered ?? 0) - answeredBefore >= queries.length, 'ripgrep answered every pattern of every query');
    });
  });

  describe('leaves to git grep a working tree that is not the commit', function () {
    let world: World;
    beforeEach(async function () {
      world = await createWorld(await createAwkwardRepo());
    });
    afterEach(async function () {
      world?.indexes.close();
      await world?.repo.remove();
    });

    it('a file changed after a search: git grep answers from the commit, and ripgrep again once the file is restored', async function () {
      const options = grep(['needle'], 'fixed');
      const clean = await both(world, options);
      assert.ok(clean.answered, 'ripgrep answers while the working tree is the commit');
      // Changed after ripgrep found the tree clean: the check after its reads catches it.
      await appendFile(path.join(world.repo.dir, 'src', 'app.ts'), 'const needle = "only in the working tree";\n');
      const changed = await both(world, options);
      assert.deepEqual(changed.actual, changed.expected);
      assert.ok(!changed.actual.files.has('src/app.ts'), 'the commit has no needle in src/app.ts');
      assert.ok(changed.declined, 'ripgrep declined');
      assert.ok(
        world.logs.some((line) =>
          /^ripgrep does not search github\.com\/acme\/awkward at [0-9a-f]{12}: the working tree differs from [0-9a-f]{12}; git grep answers$/.test(line),
        ),
        world.logs.join('\n'),
      );
      const again = await both(world, options);
      assert.deepEqual(again.actual, again.expected);
      assert.ok(again.declined, 'still declined');
      await world.repo.git('checkout', '--', 'src/app.ts');
      const restored = await both(world, options);
      assert.deepEqual(restored.actual, restored.expected);
      assert.ok(restored.answered, 'ripgrep answers again');
    });

    it('read ahead at start: a clean tree is ready; a file changed after that is still caught, and git grep answers', async function () {
      await world.indexes.prepare([world.target.repo]);
      assert.ok(world.logs.includes(`ripgrep is ready for github.com/acme/awkward at ${world.target.commit.slice(0, 12)}`), world.logs.join('\n'));
      await appendFile(path.join(world.repo.dir, 'src', 'app.ts'), 'const needle = "only in the working tree";\n');
      const { expected, actual, declined } = await both(world, grep(['needle'], 'fixed'));
      assert.deepEqual(actual, expected);
      assert.ok(!actual.files.has('src/app.ts'), 'the commit has no needle in src/app.ts');
      assert.ok(declined, 'ripgrep declined');
    });

    it('read ahead at start: a tree that differs is said so, and left to git grep', async function () {
      await appendFile(path.join(world.repo.dir, 'src', 'app.ts'), 'const needle = "only in the working tree";\n');
      await world.indexes.prepare([world.target.repo]);
      assert.ok(
        world.logs.includes(
          `ripgrep will not search github.com/acme/awkward at ${world.target.commit.slice(0, 12)}: the working tree differs from ${world.target.commit.slice(0, 12)} (for now)`,
        ),
        world.logs.join('\n'),
      );
      const { expected, actual, declined } = await both(world, grep(['needle'], 'fixed'));
      assert.deepEqual(actual, expected);
      assert.ok(declined, 'ripgrep declined at once');
    });

    it('a staged change', async function () {
      await writeFile(path.join(world.repo.dir, 'lib', 'retry.py'), 'needle = "staged"\n');
      await world.repo.git('add', 'lib/retry.py');
      const { expected, actual, declined } = await both(world, grep(['needle'], 'fixed'));
      assert.deepEqual(actual, expected);
      assert.ok(!actual.files.has('lib/retry.py'));
      assert.ok(declined);
    });

    it('a file git takes on trust (assume-unchanged), changed', async function () {
      await world.repo.git('update-index', '--assume-unchanged', 'lib/retry.py');
      await writeFile(path.join(world.repo.dir, 'lib', 'retry.py'), 'needle = "git does not look"\n');
      assert.equal(await world.repo.git('diff-index', 'HEAD', '--'), '', 'git itself sees no change');
      const { expected, actual, declined } = await both(world, grep(['needle'], 'fixed'));
      assert.deepEqual(actual, expected);
      assert.ok(!actual.files.has('lib/retry.py'));
      assert.ok(declined);
      assert.ok(
        world.logs.some((line) => line.includes('assume-unchanged or skip-worktree')),
        world.logs.join('\n'),
      );
    });

    it('a file swapped for a symbolic link to a file outside', async function () {
      assert.ok((await both(world, grep(['needle'], 'fixed'))).answered, 'ripgrep answers while the working tree is the commit');
      const file = path.join(world.repo.dir, 'lib', 'retry.py');
      await rm(file);
      await symlink(path.join(path.dirname(world.repo.dir), 'outside.txt'), file);
      const { expected, actual, declined } = await both(world, grep(['needle'], 'fixed'));
      assert.deepEqual(actual, expected);
      assert.ok(!actual.files.has('lib/retry.py'), 'nothing from outside the repository');
      assert.ok(declined);
    });
  });

  it('leaves to git grep a checkout that converts line endings (core.autocrlf)', async function () {
    const repo = await createTestRepo({
      name: 'crlf',
      commits: [{ message: 'LF files', files: { 'a.txt': 'needle at the end\nand more\n', 'b.txt': 'no match\n' } }],
    });
    const world = await createWorld(repo);
    try {
      await repo.git('config', 'core.autocrlf', 'true');
      await rm(path.join(repo.dir, 'a.txt'));
      // Plain git: the test helper's own runs turn autocrlf off.
      execFileSync('git', ['checkout', '--', 'a.txt'], { cwd: repo.dir });
      assert.equal((await readFile(path.join(repo.dir, 'a.txt'), 'utf8')).split('\r\n').length, 3, 'checked out with CRLF');
      assert.equal(execFileSync('git', ['status', '--porcelain'], { cwd: repo.dir, encoding: 'utf8' }), '', 'git sees no change');
      const { expected, actual, declined } = await both(world, grep(['end$'], 'perl'));
      assert.deepEqual(actual, expected);
      assert.deepEqual([...actual.files.keys()], ['a.txt'], 'the commit’s LF line ends with "end"');
      assert.ok(declined);
      assert.ok(
        world.logs.some((line) => line.includes('the checkout converts files')),
        world.logs.join('\n'),
      );
    } finally {
      world.indexes.close();
      await repo.remove();
    }
  });

  it('over HTTP: an engine given ripgrep answers its first search with it, and the same as an engine without', async function () {
    const repo = await createAwkwardRepo();
    const logs: string[] = [];
    // No trigram filter at start: it would answer the first search (filtersAtStart.test.ts).
    const withRipgrep = await startTestEngine({ repos: [repo.dir], ripgrepPath: vscodeRipgrep(), log: (line) => logs.push(line), filtersAtStart: false });
    const without = await startTestEngine({ repos: [repo.dir], filtersAtStart: false });
    const sessions = [await McpSession.open(withRipgrep.url), await McpSession.open(without.url)] as const;
    try {
      for (const query of ['needle', '/function\\s+\\w+Sync/', 'alpha OR beta', 'needle file:\\.md$']) {
        const [early, plain] = await Promise.all(sessions.map((session) => session.ok('sg_keyword_search', { query })));
        assert.deepEqual(early?.structured, plain?.structured, query);
      }
      assert.ok(
        logs.some((line) => /^ripgrep answers searches of \S+ at [0-9a-f]{12} while it has no search index$/.test(line)),
        `ripgrep answered the first search:\n${logs.join('\n')}`,
      );
      assert.ok(
        logs.some((line) => /^ripgrep is ready for \S+ at [0-9a-f]{12}$/.test(line)),
        `the engine read ahead for ripgrep as it started:\n${logs.join('\n')}`,
      );
    } finally {
      await Promise.all(sessions.map((session) => session.close()));
      await withRipgrep.dispose();
      await without.dispose();
      await repo.remove();
    }
  });
});

describe('ripgrep in a VS Code install', function () {
  let root: string;
  beforeEach(async function () {
    root = await createTempDir('dse-vscode-');
  });
  afterEach(async function () {
    await removeDir(root);
  });

  async function place(...parts: string[]): Promise<string> {
    const file = path.join(root, ...parts);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, '');
    return file;
  }

  it('is found where desktop VS Code keeps it, in older versions next to the asar archive, and where code-server does', async function () {
    assert.equal(ripgrepInVSCode(root, 'linux', 'x64'), undefined, 'none yet');
    await mkdir(path.join(root, 'node_modules', '@vscode', 'ripgrep', 'bin', 'rg'), { recursive: true });
    assert.equal(ripgrepInVSCode(root, 'linux', 'x64'), undefined, 'a folder is not an executable');
    const universal = await place('node_modules', '@vscode', 'ripgrep-universal', 'bin', 'darwin-arm64', 'rg');
    assert.equal(ripgrepInVSCode(root, 'darwin', 'arm64'), universal);
    assert.equal(ripgrepInVSCode(root, 'linux', 'x64'), undefined, 'another platform’s binary is not taken');
    const unpacked = await place('node_modules.asar.unpacked', '@vscode', 'ripgrep', 'bin', 'rg.exe');
    assert.equal(ripgrepInVSCode(root, 'win32', 'x64'), unpacked);
    await rm(path.join(root, 'node_modules', '@vscode', 'ripgrep', 'bin', 'rg'), { recursive: true });
    const desktop = await place('node_modules', '@vscode', 'ripgrep', 'bin', 'rg');
    assert.equal(ripgrepInVSCode(root, 'linux', 'x64'), desktop);
  });

  it('is found in the VS Code that setup:vscode installs, and runs', function () {
    const found = vscodeRipgrep();
    assert.match(execFileSync(found, ['--version'], { encoding: 'utf8' }), /^ripgrep \d+\.\d+/);
  });
});

describe('the engine CLI’s --ripgrep', function () {
  it('is parsed, once', async function () {
    const { parseArgs } = await import('../../../../src/engine/cliArgs');
    assert.deepEqual(parseArgs(['--ripgrep', '/opt/rg']), {
      kind: 'run',
      config: { repos: [], tokens: [], dataDir: '.engine-data', sharing: true, limits: {}, oauth: true, oauthClients: [], ripgrepPath: '/opt/rg' },
    });
    const twice = parseArgs(['--ripgrep=/a/rg', '--ripgrep', '/b/rg']);
    assert.equal(twice.kind, 'error');
    assert.match(twice.kind === 'error' ? twice.message : '', /--ripgrep was given twice/);
  });

  it('must name a file: the CLI exits with a usage error otherwise', async function () {
    const repo = await createTestRepo({ commits: [{ message: 'One', files: { 'a.txt': 'a\n' } }] });
    const data = await createTempDir('dse-cli-rg-');
    try {
      const cli = path.resolve(__dirname, '../../../../src/engine/cli.ts');
      let failure: { status: number | null; stderr: string } | undefined;
      try {
        execFileSync(
          process.execPath,
          ['--require', require.resolve('tsx/cjs'), cli, '--repo', repo.dir, '--data', data, '--port', '0', '--ripgrep', path.join(data, 'no-rg')],
          {
            env: { ...process.env, NODE_OPTIONS: '' },
            stdio: 'pipe',
            timeout: 30_000,
          },
        );
      } catch (error) {
        const { status, stderr } = error as { status: number | null; stderr: Buffer };
        failure = { status, stderr: stderr.toString() };
      }
      assert.equal(failure?.status, 2);
      assert.match(failure?.stderr ?? '', /--ripgrep \S+no-rg is not a file: give the path of a ripgrep executable/);
    } finally {
      await removeDir(data);
      await repo.remove();
    }
  });
});
