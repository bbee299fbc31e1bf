import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { startTestEngine, TEST_TOKENS, TEST_USERS, waitFor, type TestEngine } from '../../support/engineHarness';
import { createTempDir, removeDir } from '../../support/gitRepos';
import { isAlive } from '../../support/processes';
import { callEngineTool } from '../../support/toolCalls';

/** One tool call over the engine's tool server; the reply's `isError`. */
async function callTool(engine: TestEngine, name: string, args: Record<string, unknown>): Promise<boolean | undefined> {
  const reply = await callEngineTool(engine.url, TEST_TOKENS[0], name, args);
  assert.equal(reply.status, 200);
  assert.ok(reply.result, 'the call has a result');
  return reply.result.isError;
}

describe('engine: two engines in one process own their caches, workers and process launchers', function () {
  this.timeout(60_000);
  let first: TestEngine;
  let second: TestEngine;

  before(async function () {
    first = await startTestEngine();
    second = await startTestEngine();
  });

  after(async function () {
    await first?.dispose();
    await second?.dispose();
  });

  it("keeps one engine's reading caches and regular-expression worker apart from the other's, and closing one stops only its own worker", async function () {
    const a = first.engine.owned;
    const b = second.engine.owned;
    assert.notEqual(a.caches, b.caches);
    assert.notEqual(a.regex, b.regex);
    // A search with a file: filter runs the filter in the regular-expression worker; a natural-language search keeps definitions.
    assert.equal(await callTool(first, 'sg_keyword_search', { query: 'parseConfig file:\\.ts$' }), undefined);
    assert.equal(await callTool(first, 'sg_nls_search', { query: 'where is the configuration parsed' }), undefined);
    assert.equal(a.regex.running, true, "the first engine's worker runs");
    assert.ok(a.caches.sizes().definitions > 0, 'the first engine keeps definitions');
    assert.equal(b.regex.running, false, "the second engine's worker did not start");
    assert.deepEqual(b.caches.sizes(), { definitions: 0, attributes: 0, listings: 0, allowedLists: 0 }, 'the second engine keeps nothing of the first');

    assert.equal(await callTool(second, 'sg_keyword_search', { query: 'parseConfig file:\\.ts$' }), undefined);
    assert.equal(b.regex.running, true, "the second engine's worker runs");
    await first.stop();
    assert.equal(a.regex.running, false, 'closing the first engine stopped its worker');
    assert.equal(b.regex.running, true, "the second engine's worker still runs");
    assert.equal(await callTool(second, 'sg_keyword_search', { query: 'parseConfig file:\\.ts$' }), undefined, 'the second engine still searches');
  });

  it('gives each engine a process launcher of its own, whose helper stops when that engine closes and not before', async function () {
    const third = await startTestEngine();
    const fourth = await startTestEngine();
    try {
      const helper = third.engine.owned.launcher.pid;
      const other = fourth.engine.owned.launcher.pid;
      assert.ok(helper !== undefined && other !== undefined, 'both helpers run');
      assert.notEqual(helper, other, 'two helpers, one per engine');
      assert.equal(await callTool(third, 'sg_keyword_search', { query: 'parseConfig' }), undefined);
      await third.stop();
      await waitFor(
        () => Promise.resolve(isAlive(helper)),
        (living) => !living,
        { description: "the closed engine's helper to exit" },
      );
      assert.equal(isAlive(other), true, "the other engine's helper still runs");
      assert.equal(await callTool(fourth, 'sg_keyword_search', { query: 'parseConfig' }), undefined, 'the other engine still runs git');
      assert.equal(fourth.engine.owned.launcher.pid, other, 'through the same helper');
    } finally {
      await third.dispose();
      await fourth.dispose();
    }
  });

  it('closes engine after engine in a process with nothing else to do, as the bench runs them, instead of ending the process mid-close', async function () {
    // Their worker and helper are unreferenced when idle: a close that waited on them without holding the process open ended it there, silently.
    const repoEngine = await startTestEngine();
    await repoEngine.stop();
    const scratch = await createTempDir('dse-in-turn-');
    try {
      const options = { repos: repoEngine.options.repos, users: [...TEST_USERS], dataDir: path.join(scratch, 'data'), port: 0, paceMs: 0 };
      const child = spawn(
        process.execPath,
        ['--require', 'tsx/cjs', path.join(__dirname, '..', '..', 'support', 'enginesInTurn.ts'), JSON.stringify(options), '2'],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
      assert.equal(stderr, '', 'the script reported no error');
      assert.deepEqual(stdout.trim().split('\n'), ['closed 1', 'closed 2', 'done'], 'each close finished and the next engine ran');
      assert.equal(code, 0);
    } finally {
      await repoEngine.dispose();
      await removeDir(scratch);
    }
  });
});
