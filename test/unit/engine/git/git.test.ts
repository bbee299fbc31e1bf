import assert from 'node:assert/strict';
import { access } from 'node:fs/promises';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { GitError, runGit } from '../../../../src/engine/git/git';
import { ProcessLauncher } from '../../../../src/engine/git/processLauncher';
import { createTestRepo, type TestRepo } from '../../../support/gitRepos';

describe('git runner', function () {
  let repo: TestRepo;
  before(async function () {
    repo = await createTestRepo({
      commits: [{ files: { 'notes.txt': 'one $(touch pwned) two\nthree\n', 'big.txt': 'x'.repeat(100_000) }, message: 'notes' }],
    });
  });
  after(async function () {
    await repo?.remove();
  });

  /** A git "command" that just sleeps, so timeouts and cancellation have something to stop. */
  const NAP_SECONDS = 30;
  const napArgs = ['-c', `alias.nap=!sleep ${NAP_SECONDS}`, 'nap'];

  it('passes arguments to git without a shell', async function () {
    const result = await runGit(['grep', '-F', '-n', '-e', '$(touch pwned)', 'HEAD', '--'], { cwd: repo.dir });
    assert.equal(result.exitCode, 0);
    assert.match(result.stdout, /^HEAD:notes\.txt:1:one \$\(touch pwned\) two$/m);
    await assert.rejects(access(path.join(repo.dir, 'pwned')), 'nothing was executed');
  });

  it('starts git off the engine’s thread, from the engine’s launcher (starting a process there would stall every other request)', async function () {
    const launcher = new ProcessLauncher();
    // The helper itself starts from here, as the engine starts (server.ts); then nothing else does.
    launcher.start();
    const childProcess = createRequire(__filename)('node:child_process') as typeof import('node:child_process');
    const original = childProcess.spawn;
    let startedHere = 0;
    childProcess.spawn = ((...args: Parameters<typeof original>) => {
      startedHere++;
      return original(...args);
    }) as typeof original;
    try {
      const results = await Promise.all([
        runGit(['rev-parse', 'HEAD'], { cwd: repo.dir, launcher }),
        runGit(['cat-file', '-p', 'HEAD:notes.txt'], { cwd: repo.dir, launcher }),
      ]);
      assert.match(results[0].stdout, /^[0-9a-f]{40}\n$/);
      assert.equal(results[1].stdout, 'one $(touch pwned) two\nthree\n');
      assert.equal(startedHere, 0, 'no process was started on this thread');
    } finally {
      childProcess.spawn = original;
      await launcher.close();
    }
  });

  it('treats listed exit codes as success (git grep answers 1 for "no match")', async function () {
    const result = await runGit(['grep', '-e', 'absent-text', 'HEAD', '--'], { cwd: repo.dir, okExitCodes: [0, 1] });
    assert.equal(result.exitCode, 1);
    assert.equal(result.stdout, '');
  });

  it("rejects with git's own message when git fails, without repeating the arguments", async function () {
    await assert.rejects(runGit(['rev-parse', '--verify', 'no-such-branch-xyz'], { cwd: repo.dir }), (error: unknown) => {
      assert.ok(error instanceof GitError);
      assert.equal(error.kind, 'exit');
      assert.equal(error.exitCode, 128);
      assert.match(error.message, /^git rev-parse failed: fatal: /);
      return true;
    });
  });

  it('stops git and rejects with a timeout error', async function () {
    const started = Date.now();
    await assert.rejects(runGit(napArgs, { cwd: repo.dir, timeoutMs: 100 }), (error: unknown) => {
      assert.ok(error instanceof GitError);
      assert.equal(error.kind, 'timeout');
      assert.match(error.message, /^git nap timed out after 100 ms$/);
      return true;
    });
    // Measured against the nap itself, not a time limit: a slow machine cannot stretch 100 ms so far.
    assert.ok(Date.now() - started < (NAP_SECONDS * 1000) / 2, 'did not wait for the sleep');
  });

  it('stops git when the signal aborts, and refuses to start with an aborted signal', async function () {
    const controller = new AbortController();
    const running = runGit(napArgs, { cwd: repo.dir, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(running, (error: unknown) => error instanceof GitError && error.kind === 'aborted');
    await assert.rejects(runGit(['status'], { cwd: repo.dir, signal: controller.signal }), /cancelled before it started/);
  });

  it('fails past the output cap, or returns the truncated output when asked to', async function () {
    await assert.rejects(runGit(['cat-file', 'blob', 'HEAD:big.txt'], { cwd: repo.dir, maxOutputBytes: 1000 }), (error: unknown) => {
      assert.ok(error instanceof GitError);
      assert.equal(error.kind, 'output-limit');
      assert.match(error.message, /more than 1000 bytes/);
      return true;
    });
    const truncated = await runGit(['cat-file', 'blob', 'HEAD:big.txt'], { cwd: repo.dir, maxOutputBytes: 1000, onOutputLimit: 'truncate' });
    assert.equal(truncated.truncated, true);
    assert.equal(truncated.stdout.length, 1000);
  });

  it('does not quote non-ASCII paths (core.quotepath=off)', async function () {
    const unicode = await createTestRepo({ commits: [{ files: { 'docs/café.md': 'menu\n' }, message: 'unicode' }] });
    try {
      const result = await runGit(['ls-tree', '-r', '--name-only', 'HEAD'], { cwd: unicode.dir });
      assert.equal(result.stdout.trim(), 'docs/café.md');
    } finally {
      await unicode.remove();
    }
  });
});
