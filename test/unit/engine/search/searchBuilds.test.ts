/**
 * When a search's index build starts (SearchIndexes.buildAfterward): not beside the search that
 * asked for it, which would share the machine with it, but once the tool call is answered (the tool
 * server calls buildWanted), or after two seconds at the latest. Real repositories, real builds.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { SearchIndexes } from '../../../../src/engine/search/searchIndex';
import type { SearchTarget } from '../../../../src/engine/repo/grep';
import { waitFor } from '../../../support/engineHarness';
import { createTempDir, createTestRepo, removeDir, type TestRepo } from '../../../support/gitRepos';
import { head } from './searchFiles';

describe('search index builds asked for by a search', function () {
  this.timeout(30_000);
  const repos: TestRepo[] = [];
  const dirs: string[] = [];
  let indexes: SearchIndexes | undefined;
  afterEach(async function () {
    indexes?.close();
    await indexes?.idle();
    await Promise.all(repos.splice(0).map((repo) => repo.remove()));
    await Promise.all(dirs.splice(0).map((dir) => removeDir(dir)));
  });

  async function target(name: string): Promise<SearchTarget> {
    const repo = await createTestRepo({
      name,
      commits: [{ message: 'Files', files: { 'src/a.ts': 'export const needle = 1;\n', 'README.md': '# needle\n' } }],
    });
    repos.push(repo);
    return { repo: { name, dir: repo.dir, bare: false }, commit: await head(repo), revision: 'HEAD' };
  }

  it('starts once the tool call is answered, not before', async function () {
    const logs: string[] = [];
    indexes = new SearchIndexes({ log: (line) => logs.push(line) });
    const wanted = await target('wanted');
    indexes.buildAfterward(wanted);
    // Nor a moment later: 'starts after two seconds when no call ends first' measures when it does.
    assert.equal(indexes.isBuilding(wanted) || indexes.lookup(wanted, false) !== undefined, false, 'not beside the search that asked');
    indexes.buildWanted();
    assert.equal(indexes.isBuilding(wanted), true, 'asked for at once when the call is answered');
    await waitFor(
      () => Promise.resolve(indexes?.lookup(wanted, false)),
      (index) => index !== undefined,
      { description: 'the index' },
    );
    assert.ok(
      logs.some((line) => line.startsWith('search index of wanted at ')),
      logs.join('\n'),
    );
  });

  it('goes first: the start-up filter under way gives way (and is built afterwards), those waiting wait', async function () {
    const logs: string[] = [];
    const dir = await createTempDir('filters-');
    dirs.push(dir);
    indexes = new SearchIndexes({ log: (line) => logs.push(line), filterDir: path.join(dir, 'filters') });
    const [first, second, third] = [await target('first'), await target('second'), await target('third')];
    // Queues the three filters; the first one's build starts at once.
    await indexes.prepare([first.repo, second.repo, third.repo]);
    indexes.lookup(second);
    const built = await waitFor(
      () => Promise.resolve(logs.filter((line) => / ready: /.test(line))),
      (lines) => lines.length === 4,
      { description: 'the builds' },
    );
    assert.deepEqual(
      built.map((line) => /^search (index|filter) of (\w+) at /.exec(line)?.slice(1, 3).join(' ')),
      ['index second', 'filter second', 'filter third', 'filter first'],
      'the index first (its filter after it, in its turn), then the filters waiting, then the one that gave way',
    );
    assert.ok(
      logs.some((line) => /^search filter of first at [0-9a-f]{12} put off: an index a search asked for is built first$/.test(line)),
      logs.join('\n'),
    );
    await indexes.idle();
    assert.equal(logs.filter((line) => line.startsWith('search filter of second')).length, 1, `not built twice:\n${logs.join('\n')}`);
  });

  it('starts after two seconds when no call ends first', async function () {
    indexes = new SearchIndexes({ log: () => undefined });
    const late = await target('late');
    const asked = Date.now();
    indexes.buildAfterward(late);
    await waitFor(
      () => Promise.resolve(indexes?.isBuilding(late) || indexes?.lookup(late, false) !== undefined),
      (started) => started,
      {
        description: 'the build',
        intervalMs: 10,
      },
    );
    // Started by itself (nothing called buildWanted), and not before its two seconds: a timer never
    // fires early, so this cannot fail on a slow machine.
    const waited = Date.now() - asked;
    assert.ok(waited >= 1_900, `started ${waited} ms after it was asked for`);
  });
});
