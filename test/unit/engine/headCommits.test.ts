import assert from 'node:assert/strict';
import { resolveHead } from '../../../src/engine/conversations/codeSearch';
import { HeadCommits } from '../../../src/engine/conversations/headCommits';
import { discoverRepositories, type ServedRepository } from '../../../src/engine/repos';
import { SpawnTurns } from '../../../src/engine/conversations/spawnTurns';
import { createTestRepo, type TestRepo } from '../../support/gitRepos';

describe('HEAD commits of answers', function () {
  let repo: TestRepo;
  let served: ServedRepository;
  let other: TestRepo;
  let otherServed: ServedRepository;
  /** Repository folders, one per `git rev-parse` run. */
  let runs: string[];
  const git = { signal: new AbortController().signal, timeoutMs: 20_000 };

  before(async function () {
    repo = await createTestRepo({ commits: [{ files: { 'a.txt': 'one\n' }, message: 'one' }] });
    other = await createTestRepo({ name: 'other', commits: [{ files: { 'b.txt': 'b\n' }, message: 'b' }] });
    [served, otherServed] = (await discoverRepositories([repo.dir, other.dir])) as [ServedRepository, ServedRepository];
  });
  after(async function () {
    await repo?.remove();
    await other?.remove();
  });
  beforeEach(function () {
    runs = [];
  });

  function heads(turns = new SpawnTurns()): HeadCommits {
    return new HeadCommits(turns, (target) => {
      runs.push(target.dir);
      return resolveHead(target, git);
    });
  }

  const head = async (target: TestRepo): Promise<string> => (await target.git('rev-parse', 'HEAD')).trim();

  it('resolves HEAD to its commit', async function () {
    assert.equal(await heads().resolve(served, new AbortController().signal), await head(repo));
    assert.deepEqual(runs, [served.dir]);
  });

  it('shares one git run among those who asked before it started, per repository', async function () {
    const turns = new SpawnTurns();
    await turns.take(); // this turn is taken: the resolutions below wait for the next one
    const commits = heads(turns);
    const signal = new AbortController().signal;
    const answers = await Promise.all([
      commits.resolve(served, signal),
      commits.resolve(served, signal),
      commits.resolve(otherServed, signal),
      commits.resolve(served, signal),
    ]);
    assert.deepEqual(answers, [await head(repo), await head(repo), await head(other), await head(repo)]);
    assert.deepEqual(runs, [served.dir, otherServed.dir]);
  });

  it('starts a new run for whoever asks once the shared one has started, so a new commit is seen', async function () {
    const commits = heads();
    const signal = new AbortController().signal;
    const before = await head(repo);
    const first = commits.resolve(served, signal);
    await new Promise((resolve) => setImmediate(resolve)); // the first run has started git by now
    await repo.commit({ files: { 'a.txt': 'two\n' }, message: 'two' });
    const after = await head(repo);
    assert.notEqual(after, before);
    assert.equal(await commits.resolve(served, signal), after);
    await first;
    assert.deepEqual(runs, [served.dir, served.dir]);
  });

  it('rejects an asker whose signal aborts, while the others get the commit', async function () {
    const turns = new SpawnTurns();
    await turns.take();
    const commits = heads(turns);
    const controller = new AbortController();
    const cancelled = commits.resolve(served, controller.signal);
    const kept = commits.resolve(served, new AbortController().signal);
    controller.abort();
    await assert.rejects(cancelled, (error: unknown) => error instanceof Error && error.name === 'AbortError');
    assert.equal(await kept, await head(repo));
    assert.deepEqual(runs, [served.dir]);
  });

  it('rejects at once, without running git, when the signal has already aborted', async function () {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(heads().resolve(served, controller.signal), (error: unknown) => error instanceof Error && error.name === 'AbortError');
    assert.deepEqual(runs, []);
  });
});
