import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Answerer } from '../../../../src/engine/answers/answerer';
import { SymbolTables, type SymbolSource } from '../../../../src/engine/code/symbolTable';
import { discoverRepositories } from '../../../../src/engine/git/repos';
import { definitionWords, describeScores, wordsOf } from '../../../../src/engine/repo/definitionText';
import { createTempDir, createTestRepo, removeDir } from '../../../support/gitRepos';

/** A commit's files, given as texts (the engine's source reads them with git: retrieval.ts). */
function sourceOf(key: string, files: Record<string, string>, reads: string[] = []): SymbolSource {
  return {
    key,
    listFiles: () => Promise.resolve(Object.keys(files)),
    readFiles: (paths) => {
      reads.push(...paths);
      return Promise.resolve(new Map(paths.flatMap((file) => (files[file] === undefined ? [] : [[file, files[file]] as [string, string]]))));
    },
  };
}

const FILES = {
  'src/render.ts':
    'export function renderWidgetTree(root: Node): string {\n  return root.name;\n}\n\nexport class WidgetCache {\n  get(key: string) {\n    return key;\n  }\n}\n',
  'lib/util.py': 'def parse_config(text):\n    return text\n',
  'test/render.test.ts': 'function renderWidgetTreeTwice() {}\n',
  'docs/guide.md': '# renderWidgetTree\n',
};

describe('symbol tables', function () {
  let dir: string;
  beforeEach(async function () {
    dir = await createTempDir('dse-symbols-');
  });
  afterEach(async function () {
    await removeDir(dir);
  });

  it("finds the definitions of a commit's implementation files by name and by a word of their names", async function () {
    const reads: string[] = [];
    const tables = new SymbolTables({ log: () => undefined, signal: new AbortController().signal });
    const table = await tables.build(sourceOf('acme@1', FILES, reads));
    assert.ok(table);
    assert.deepEqual(
      table.named('render_widget_tree').map((entry) => `${entry.path}:${entry.line}-${entry.endLine}`),
      ['src/render.ts:1-3'],
      "any case, with or without underscores; the test's function is not in the table",
    );
    assert.deepEqual(
      table.named('parseConfig').map((entry) => entry.path),
      ['lib/util.py'],
    );
    assert.deepEqual(
      table.holding('cache', 10).map((entry) => entry.name),
      ['WidgetCache'],
    );
    assert.deepEqual(reads.sort(), ['lib/util.py', 'src/render.ts'], 'tests, docs and files without a grammar are not read');
    assert.equal(tables.lookup(sourceOf('acme@1', FILES)), table, 'ready once built');
  });

  it('keeps each table on disk (its folder made when first needed) and reads it back after a restart, building nothing', async function () {
    const symbols = path.join(dir, 'symbols');
    const first = new SymbolTables({ dir: symbols, log: () => undefined, signal: new AbortController().signal });
    await first.build(sourceOf('acme@1', FILES));
    const [stored] = await readdir(symbols);
    assert.ok(stored?.endsWith('.json'));
    const reads: string[] = [];
    const second = new SymbolTables({ dir: symbols, log: () => undefined, signal: new AbortController().signal });
    const table = await second.build(sourceOf('acme@1', FILES, reads));
    assert.deepEqual(reads, [], 'read from disk, not parsed again');
    assert.deepEqual(
      table?.named('WidgetCache').map((entry) => [entry.kind, entry.line]),
      [['class', 5]],
    );
    assert.equal(table?.named('get')[0]?.container, 'WidgetCache');
    // Another commit is another table.
    assert.equal(second.lookup(sourceOf('acme@2', FILES)), undefined);
  });

  it('keeps one table per repository on disk, and none where the disk lacks the spare room', async function () {
    const tables = new SymbolTables({ dir, log: () => undefined, signal: new AbortController().signal });
    await tables.build(sourceOf('acme@1', FILES));
    await tables.build(sourceOf('other@1', FILES));
    await tables.build(sourceOf('acme@2', FILES));
    assert.equal((await readdir(dir)).length, 2, 'acme@1 made way for acme@2');
    const reads: string[] = [];
    const again = new SymbolTables({ dir, log: () => undefined, signal: new AbortController().signal });
    await again.build(sourceOf('acme@2', FILES, reads));
    assert.deepEqual(reads, [], 'acme@2 is the one kept');

    const logged: string[] = [];
    const full = await createTempDir('dse-symbols-full-');
    try {
      const cramped = new SymbolTables({
        dir: full,
        log: (line) => logged.push(line),
        signal: new AbortController().signal,
        spareBytes: Number.MAX_SAFE_INTEGER,
      });
      assert.ok(await cramped.build(sourceOf('acme@1', FILES)), 'the table still serves from memory');
      assert.deepEqual(await readdir(full), []);
      assert.match(
        logged.join('\n'),
        /symbol table of acme@1 not kept on disk: the data folder's disk has .* free, and symbol tables are written only while .* more stay free/,
      );
    } finally {
      await removeDir(full);
    }
  });

  it('builds a table again when the one on disk is damaged or of another commit', async function () {
    const first = new SymbolTables({ dir, log: () => undefined, signal: new AbortController().signal });
    await first.build(sourceOf('acme@1', FILES));
    const [stored = ''] = await readdir(dir);
    const file = path.join(dir, stored);
    const text = await readFile(file, 'utf8');
    const table = JSON.parse(text) as Record<string, unknown>;
    const damagedTables = [
      '{not json',
      JSON.stringify({ ...table, key: 'acme@9' }),
      // Rows that point nowhere, paths that are no paths, lines that are no lines: left out.
      JSON.stringify({
        ...table,
        paths: [123, 'a\nb', 'ok.ts'],
        entries: [
          [99, 'x', 'function', null, 1, 1, 1],
          [0, 'x', 'function', null, 1, 1, 1],
          [1, 'x', 'function', null, 1, 1, 1],
          [2, 'x', 'function', null, 3, 1, 1],
          [2, 'x', 'function', null, 0.5, 1, 1],
          'junk',
        ],
      }),
    ];
    for (const damaged of damagedTables) {
      await writeFile(file, damaged);
      const reads: string[] = [];
      const table = await new SymbolTables({ dir, log: () => undefined, signal: new AbortController().signal }).build(sourceOf('acme@1', FILES, reads));
      if (damaged.includes('junk')) {
        assert.deepEqual(reads, [], 'a readable table with bad rows is read, the bad rows left out');
        assert.equal(table?.entries.length, 0);
      } else {
        assert.ok(reads.length > 0, `built again after: ${damaged.slice(0, 20)}`);
        assert.equal(table?.named('renderWidgetTree').length, 1);
      }
    }
  });

  it('shares one build among those who ask at once, and waits for it no longer than asked', async function () {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let lists = 0;
    const slow: SymbolSource = {
      key: 'slow@1',
      listFiles: async () => {
        lists++;
        await gate;
        return Object.keys(FILES);
      },
      readFiles: (paths, signal) => sourceOf('slow@1', FILES).readFiles(paths, signal),
    };
    const tables = new SymbolTables({ log: () => undefined, signal: new AbortController().signal });
    assert.equal(tables.lookup(slow), undefined, 'not ready: its build starts');
    assert.equal(await tables.whenReady(slow, new AbortController().signal, 50), undefined, 'gave up waiting after 50 ms');
    const waiting = tables.whenReady(slow, new AbortController().signal, 60_000);
    release();
    assert.ok((await waiting)?.named('renderWidgetTree').length);
    assert.equal(lists, 1, 'one build');
    await tables.idle();
  });

  it('lets an answer find a definition its name answers when the keyword search ranks its file past the candidates', async function () {
    // Eighty files say "widget tree render" many times; the file that defines renderWidgetTree says it once, in a long
    // file; three hundred others say none of it.
    const noise: Record<string, string> = Object.fromEntries([
      ...Array.from({ length: 80 }, (_, at): [string, string] => [
        `src/noise/n${String(at).padStart(2, '0')}.ts`,
        `export function noise${at}(): void {\n${'  // widget tree render widget tree render\n'.repeat(6)}}\n`,
      ]),
      ...Array.from({ length: 300 }, (_, at): [string, string] => [`src/other/o${at}.ts`, `export const other${at} = ${at};\n`]),
    ]);
    const filler = Array.from({ length: 400 }, (_, at) => `const filler${at} = ${at};`).join('\n');
    const repo = await createTestRepo({
      name: 'widgets',
      commits: [
        {
          message: 'widgets',
          files: { ...noise, 'src/ui/paint.ts': `${filler}\nexport function renderWidgetTree(root: string): string {\n  return root;\n}\n` },
        },
      ],
    });
    try {
      const repositories = await discoverRepositories([repo.dir]);
      const ask = async (withTables: boolean): Promise<string> => {
        const symbolTables = new SymbolTables({ log: () => undefined, signal: new AbortController().signal });
        const answerer = new Answerer({ repositories, instanceUrl: 'http://x', paceMs: 0, ...(withTables ? { symbolTables } : {}) });
        const { answer } = await answerer.answer({
          question: 'How is the widget tree rendered?',
          earlierQuestions: [],
          signal: new AbortController().signal,
          report: async () => undefined,
        });
        return answer;
      };
      assert.doesNotMatch(await ask(false), /src\/ui\/paint\.ts/, 'the keyword search alone never reads it');
      assert.match(await ask(true), /^`renderWidgetTree` \(\[src\/ui\/paint\.ts:401\]/);
    } finally {
      await repo.remove();
    }
  });

  it("counts each word's definitions over every file of the commit, not the files an answer reads, and weighs a description's words by them", async function () {
    // 120 files each define a function whose body says `ledger`; one file defines the function that quarantines.
    const ledgers: Record<string, string> = Object.fromEntries(
      Array.from({ length: 120 }, (_, at): [string, string] => [
        `src/ledger/post${String(at).padStart(3, '0')}.ts`,
        `export function postEntry${at}(entry: string): void {\n  ledger.append(entry, ${at});\n}\n`,
      ]),
    );
    const repo = await createTestRepo({
      name: 'books',
      commits: [
        {
          message: 'books',
          files: {
            ...ledgers,
            'src/review.ts':
              'export function setAside(entry: string): void {\n  quarantine.hold(entry);\n}\n\nexport function flagEntry(entry: string): void {\n  ledger.mark(entry);\n}\n',
            'test/review.test.ts': 'function testQuarantine() { quarantine.hold(1); }\n',
          },
        },
      ],
    });
    try {
      const [repository] = await discoverRepositories([repo.dir]);
      assert.ok(repository);
      const symbolTables = new SymbolTables({ log: () => undefined, signal: new AbortController().signal });
      const answerer = new Answerer({ repositories: [repository], instanceUrl: 'http://x', paceMs: 0, symbolTables });
      await answerer.answer({
        question: 'An entry that looks wrong is put in quarantine rather than written to the ledger, so that a person can review it before it is posted.',
        earlierQuestions: [],
        signal: new AbortController().signal,
        report: async () => undefined,
      });
      await symbolTables.idle();
      const commit = (await repo.git('rev-parse', 'HEAD')).trim();
      const table = symbolTables.lookup({
        key: `${repository.name}@${commit}`,
        listFiles: () => Promise.resolve([]),
        readFiles: () => Promise.resolve(new Map()),
      });
      const words = table?.words;
      assert.ok(words, 'the table the answer built counts words');
      assert.equal(words.definitions, 122, "every implementation definition of the commit (the test's is not one)");
      assert.equal(words.frequency(wordsOf('ledger')[0] ?? ''), 121, 'far more definitions than the 24 files an answer reads');
      assert.equal(words.frequency(wordsOf('quarantine')[0] ?? ''), 1);
      // Two definitions read: each holds one of the description's rarer words; the repository says which is rarer.
      const read = [
        definitionWords({ name: 'flagEntry', documentation: [], body: ['  ledger.mark(entry);'] }),
        definitionWords({ name: 'setAside', documentation: [], body: ['  quarantine.hold(entry);'] }),
      ];
      const asked = wordsOf('quarantine ledger');
      const [alone, amongRead] = describeScores(read, asked);
      assert.equal(alone, amongRead, 'among the definitions read, both words are as rare');
      const [flag, setAside] = describeScores(read, asked, words);
      assert.ok((setAside ?? 0) > 3 * (flag ?? 0), `across the repository, quarantine is the rare one: ${setAside} against ${flag}`);
    } finally {
      await repo.remove();
    }
  });
});
