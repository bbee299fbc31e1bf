/**
 * The engine's start-up work beyond ripgrep's read-ahead: it builds the trigram filter of each
 * repository's HEAD as it starts, before any search, so that the first search reads only the files
 * that can match (not ripgrep over the tree); the filter is kept on disk, read back by the next
 * start and not built again; and the build gives way to searches (below normal priority, on its own
 * thread only). Real repositories, VS Code's ripgrep, the engine over HTTP.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SearchIndexes } from '../../../../src/engine/search/searchIndex';
import { startTestEngine, waitFor } from '../../../support/engineHarness';
import { createTempDir, createTestRepo, generateRepository, removeDir } from '../../../support/gitRepos';
import { vscodeRipgrep } from '../../../support/vscodeRipgrep';
import { McpSession } from '../mcp/fixture';

/** 240 files of about 2 KB; "zebracorn" is in two of them, far apart. */
function manyFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let at = 0; at < 240; at++) {
    const name = `src/part${String(at).padStart(3, '0')}.${at % 2 === 0 ? 'ts' : 'md'}`;
    files[name] =
      `${`export const value${at} = compute(${at}); // line of part ${at}\n`.repeat(40)}${at === 10 || at === 200 ? 'the ZebraCorn is here\n' : ''}`;
  }
  return files;
}

const READY = /^search filter of filtered at [0-9a-f]{12} ready: 240 files, [\d.]+ (KB|MB) on disk, \d+\.\d s$/;

describe('search filters built at start', function () {
  this.timeout(120_000);

  it('builds the HEAD’s filter before any search; the first search reads the files it leaves, with the answer of an engine without; a restart reads it back', async function () {
    const repo = await createTestRepo({ name: 'filtered', commits: [{ message: 'Files', files: manyFiles() }] });
    const dataDir = await createTempDir('dse-data-');
    const logs: string[] = [];
    const started = () => startTestEngine({ repos: [repo.dir], dataDir, ripgrepPath: vscodeRipgrep(), log: (line) => logs.push(line) });
    let engine = await started();
    const plain = await startTestEngine({ repos: [repo.dir], filtersAtStart: false });
    const sessions: McpSession[] = [];
    try {
      await waitFor(
        () => Promise.resolve(logs.find((line) => READY.test(line))),
        (line) => line !== undefined,
        { description: 'the filter built at start' },
      );
      assert.equal(
        (await readdir(path.join(dataDir, 'search-filters'), { recursive: true })).filter((name) => name.endsWith('.grams')).length,
        1,
        'kept on disk',
      );
      assert.ok(
        logs.some((line) => /^ripgrep is ready for filtered at /.test(line)),
        'ripgrep could have answered',
      );

      const [session, plainSession] = [await McpSession.open(engine.url), await McpSession.open(plain.url)];
      sessions.push(session, plainSession);
      for (const query of ['zebracorn', 'ZebraCorn case:yes', '"compute(17)"', 'zebracorn file:\\.md$']) {
        const [first, expected] = await Promise.all([session.ok('sg_keyword_search', { query }), plainSession.ok('sg_keyword_search', { query })]);
        assert.deepEqual(first.structured, expected.structured, query);
        assert.equal(first.text, expected.text, query);
      }
      assert.ok(
        !logs.some((line) => line.startsWith('ripgrep answers searches of')),
        `the filter's candidates answered, not ripgrep over the tree:\n${logs.join('\n')}`,
      );

      await session.close();
      sessions.length = 0;
      await engine.dispose();
      logs.length = 0;
      engine = await started();
      await waitFor(
        () => Promise.resolve(logs.find((line) => line.startsWith('search filter of'))),
        (line) => line !== undefined,
        { description: 'the filter read back' },
      );
      assert.match(logs.find((line) => line.startsWith('search filter of')) ?? '', /^search filter of filtered at [0-9a-f]{12} read from disk: 240 files$/);
      const again = await McpSession.open(engine.url);
      sessions.push(again);
      assert.match((await again.ok('sg_keyword_search', { query: 'zebracorn' })).text, /^2 files match "zebracorn"/);
      assert.ok(!logs.some((line) => READY.test(line)), `not built again:\n${logs.join('\n')}`);
    } finally {
      await Promise.all(sessions.map((session) => session.close()));
      await engine.dispose();
      await plain.dispose();
      await repo.remove();
      await removeDir(dataDir);
    }
  });

  it('builds nothing at start when told not to: the first search builds the index, then the filter', async function () {
    const repo = await createTestRepo({ name: 'filtered', commits: [{ message: 'Files', files: manyFiles() }] });
    const logs: string[] = [];
    const engine = await startTestEngine({ repos: [repo.dir], ripgrepPath: vscodeRipgrep(), log: (line) => logs.push(line), filtersAtStart: false });
    const session = await McpSession.open(engine.url);
    try {
      await waitFor(
        () => Promise.resolve(logs.find((line) => line.startsWith('ripgrep is ready'))),
        (line) => line !== undefined,
        { description: 'the read-ahead' },
      );
      // Built at start, this filter would be ready well within a second.
      await sleep(1000);
      assert.ok(!logs.some((line) => line.startsWith('search filter of')), logs.join('\n'));
      assert.match((await session.ok('sg_keyword_search', { query: 'zebracorn' })).text, /^2 files match "zebracorn"/);
      assert.ok(
        logs.some((line) => line.startsWith('ripgrep answers searches of filtered')),
        `ripgrep answered the first search:\n${logs.join('\n')}`,
      );
      const built = await waitFor(
        () => Promise.resolve(logs.filter((line) => /^search (index|filter) of filtered at .* ready/.test(line))),
        (lines) => lines.length === 2,
        {
          description: 'the index, then the filter',
          timeoutMs: 30_000,
        },
      );
      assert.match(built[0] ?? '', /^search index of/);
      assert.match(built[1] ?? '', READY);
    } finally {
      await session.close();
      await engine.dispose();
      await repo.remove();
    }
  });

  it('builds a filter on its own thread below normal priority (Linux), the engine’s own thread left as it was', async function () {
    assert.equal(process.platform, 'linux', 'this machine keeps a nice value per thread');
    const root = await createTempDir('filter-priority-');
    const dir = path.join(root, 'repo');
    const logs: string[] = [];
    const indexes = new SearchIndexes({ log: (line) => logs.push(line), budgetBytes: 0, filterDir: path.join(root, 'filters') });
    try {
      // Enough text that the build lasts long enough to be seen (a hundred milliseconds or more: the
      // loop below reads the threads' nice values without pausing).
      await generateRepository(dir, 5_000, (at) => ({ path: `d${at % 100}/f${at}.txt`, content: `line ${at} of generated text\n`.repeat(40) }), {
        checkout: false,
      });
      const repo = { name: 'generated', dir, bare: false };
      const own = niceOf('self');
      assert.ok(own < 10, `the test runs at nice ${own}: a build could not go lower than that`);
      const seen = new Set<number>();
      void indexes.prepare([repo]);
      while (!logs.some((line) => /^(search filter of|no search filter for)/.test(line))) {
        for (const task of readdirSync('/proc/self/task')) {
          const nice = taskNice(task);
          if (nice !== undefined) seen.add(nice);
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      assert.match(logs.find((line) => line.startsWith('search filter of')) ?? logs.join('\n'), /ready: 5000 files/);
      assert.ok(seen.has(10), `a thread ran at nice 10 while the filter was built (seen: ${[...seen].join(', ')})`);
      assert.equal(niceOf('self'), own, 'the engine’s thread keeps its priority');
    } finally {
      indexes.close();
      await indexes.idle();
      await removeDir(root);
    }
  });
});

/** The nice value of the process's main thread (`self`), from /proc. */
function niceOf(pid: 'self'): number {
  return statNice(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/** A thread's nice value, or undefined when it ended while being read. */
function taskNice(task: string): number | undefined {
  try {
    return statNice(readFileSync(`/proc/self/task/${task}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Field 19 of /proc/…/stat (the 17th after the command's closing parenthesis and the state). */
function statNice(stat: string): number {
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}
