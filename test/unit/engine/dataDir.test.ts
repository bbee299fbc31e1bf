import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { WireConversation } from '../../../src/contract/legacyWire';
import { DataDirLockedError, lockDataDir } from '../../../src/engine/storage/dataDirLock';
import { startEngine } from '../../../src/engine/server';
import { callApi, startTestEngine, TEST_USERS, type TestEngine } from '../../support/engineHarness';
import { createTempDir, removeDir } from '../../support/gitRepos';

describe('engine: its data folder', function () {
  let engine: TestEngine;
  beforeEach(async function () {
    engine = await startTestEngine();
  });
  afterEach(async function () {
    await engine?.dispose();
  });

  it('refuses a second engine on the same data folder, saying which process holds it', async function () {
    await assert.rejects(
      startEngine({ ...engine.options }),
      (error: Error) => error.message.includes(`process ${process.pid}`) && error.message.includes('--data'),
    );
    await engine.stop();
    const second = await startEngine({ ...engine.options });
    await second.close();
  });

  it('takes over a lock left by a process that is gone', async function () {
    await engine.stop();
    await writeFile(path.join(engine.dataDir, 'engine.lock'), '2147483646\n');
    await engine.restart();
    assert.equal((await engine.api('/')).status, 200);
  });

  it('lets exactly one of several engines starting at once take over a stale lock, every time', async function () {
    this.timeout(60_000);
    await engine.stop();
    const lock = path.join(engine.dataDir, 'engine.lock');
    for (let round = 0; round < 40; round++) {
      await writeFile(lock, '2147483646\n');
      const attempts = await Promise.allSettled(Array.from({ length: 6 }, () => lockDataDir(engine.dataDir)));
      const held = attempts.filter((attempt) => attempt.status === 'fulfilled');
      assert.equal(held.length, 1, `round ${round}: ${held.length} engines hold the lock`);
      for (const attempt of attempts) {
        if (attempt.status === 'rejected') assert.ok(attempt.reason instanceof DataDirLockedError, String(attempt.reason));
      }
      assert.equal(await readFile(lock, 'utf8'), `${process.pid}\n`);
      await held[0].value.release();
    }
  });

  it('starts one engine of several started at once on a folder with a stale lock, the others refused', async function () {
    this.timeout(60_000);
    await engine.stop();
    await writeFile(path.join(engine.dataDir, 'engine.lock'), '2147483646\n');
    const started = await Promise.allSettled(Array.from({ length: 4 }, () => startEngine({ ...engine.options, port: 0 })));
    const running = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    try {
      assert.equal(running.length, 1);
      const created = await callApi<WireConversation>(`${running[0].url}/.api/deepsearch/v1/`, TEST_USERS, {
        method: 'POST',
        body: { question: 'Where is parseConfig?' },
      });
      assert.equal(created.status, 200);
    } finally {
      await Promise.all(running.map((one) => one.close()));
    }
  });

  it('listens on the same port after a restart, so links in stored answers keep working', async function () {
    const before = engine.url;
    await engine.restart();
    assert.equal(engine.url, before);
  });
});

describe('engine: a kill in the middle of writing', function () {
  this.timeout(60_000);
  let dataDir: string;
  let repoEngine: TestEngine;
  before(async function () {
    // Only for its sample repository.
    repoEngine = await startTestEngine();
    await repoEngine.stop();
    dataDir = await createTempDir('dse-kill-');
  });
  after(async function () {
    await repoEngine?.dispose();
    await removeDir(dataDir);
  });

  it('loses no conversation whose creation was acknowledged', async function () {
    const options = { repos: repoEngine.options.repos, users: [...TEST_USERS], dataDir, paceMs: 5 };
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join('test', 'support', 'engineProcess.ts'), JSON.stringify(options)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
      child.once('exit', (code) => reject(new Error(`engine process exited with ${code}`)));
    });
    const acknowledged: number[] = [];
    let unacknowledged = 0;
    let killed = false;
    // Eight writers create conversations back to back until the engine dies under them.
    const writers = Array.from({ length: 8 }, async (_, writer) => {
      for (let index = 0; !killed; index++) {
        try {
          const response = await callApi<WireConversation>(`${url}/.api/deepsearch/v1/`, TEST_USERS, {
            method: 'POST',
            body: { question: `Where is parseConfig used? (${writer}.${index})` },
          });
          if (response.status === 200) acknowledged.push(response.json.id);
        } catch {
          unacknowledged++;
          return;
        }
      }
    });
    while (acknowledged.length < 20) await new Promise((resolve) => setTimeout(resolve, 2));
    child.kill('SIGKILL');
    killed = true;
    await Promise.all(writers);
    assert.ok(unacknowledged > 0, 'the kill landed while creations were in flight');

    const restarted = await startEngine({ ...options, port: 0 });
    try {
      for (const id of acknowledged) {
        const response = await callApi<WireConversation>(`${restarted.url}/.api/deepsearch/v1/${id}`, TEST_USERS, {});
        assert.equal(response.status, 200, `conversation ${id} was acknowledged but is gone`);
        assert.match(response.json.questions[0].question, /Where is parseConfig used\?/);
      }
    } finally {
      await restarted.close();
    }
  });
});
