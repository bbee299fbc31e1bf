/**
 * The search worker as it ships: its bundle (`dist/searchWorkerThread.js`, built here), started as
 * the engine starts it, reads a real repository's tree with its own git and answers scans, reads,
 * term counts and rankings; and builds a tree's filter. The searches through the engine are tested
 * from the sources (searchIndex.test.ts); this checks that the bundle holds everything it runs.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { gitCommand } from '../../../../src/engine/git/git';
import type { WorkerInit, WorkerMessage, WorkerRequest } from '../../../../src/engine/search/searchWorker';
import { createTestRepo, type TestRepo } from '../../../support/gitRepos';

const ROOT = path.join(__dirname, '..', '..', '..', '..');
const BUNDLE = path.join(ROOT, 'dist', 'searchWorkerThread.js');

describe('the search worker bundle (dist/)', function () {
  this.timeout(60_000);
  let repo: TestRepo;
  let commit: string;
  const workers: Worker[] = [];

  before(async function () {
    execFileSync(process.execPath, ['esbuild.mjs', '--only', 'searchWorkerThread'], { cwd: ROOT, stdio: 'pipe' });
    repo = await createTestRepo({
      name: 'bundled',
      commits: [
        {
          message: 'Files',
          files: {
            'src/config.ts': 'export function parseConfig(text: string) {\n  return JSON.parse(text);\n}\n',
            'src/server.ts': 'import { parseConfig } from "./config";\nconst config = parseConfig("{}");\n',
            'notes.txt': 'no match here',
            'logo.bin': 'PNG\0\0binary',
          },
        },
      ],
    });
    commit = (await repo.git('rev-parse', 'HEAD')).trim();
  });
  after(async function () {
    await Promise.all(workers.map((worker) => worker.terminate()));
    await repo?.remove();
  });

  function start(task: WorkerInit['task']): { worker: Worker; next: () => Promise<WorkerMessage> } {
    const init: WorkerInit = {
      task,
      git: { ...gitCommand([]), cwd: repo.dir, timeoutMs: 15_000 },
      commit,
      room: 1024 * 1024,
      listingMaxBytes: 1024 * 1024,
    };
    const worker = new Worker(BUNDLE, { workerData: init });
    workers.push(worker);
    return { worker, next: async () => ((await once(worker, 'message')) as [WorkerMessage])[0] };
  }

  it('builds the index of a commit with its own git and answers scans, reads, term counts and rankings', async function () {
    const { worker, next } = start('index');
    const ready = await next();
    assert.equal(ready.type, 'ready', JSON.stringify(ready));
    if (ready.type !== 'ready') return;
    // Tree order; the binary file is left out, the last line without a newline gets one.
    assert.deepEqual(ready.paths.split('\0'), ['notes.txt', 'src/config.ts', 'src/server.ts']);
    assert.equal(ready.lines, 1 + 3 + 2);
    const ask = async (request: WorkerRequest): Promise<WorkerMessage> => {
      worker.postMessage(request);
      return next();
    };

    const scan = await ask({
      kind: 'scan',
      id: 1,
      matcher: { kind: 'literal', needle: 'parseConfig', wholeWord: true },
      allowed: null,
      required: { kind: 'literal', text: 'parseconfig' },
      keep: 10,
      maxBytes: 1024 * 1024,
      timeoutMs: 5000,
    });
    assert.equal(scan.type, 'scan');
    if (scan.type !== 'scan' || !scan.ok) return assert.fail(JSON.stringify(scan));
    assert.deepEqual([...scan.files], [1, 2, 2]);
    assert.deepEqual([...scan.lines], [1, 1, 2]);
    assert.equal(scan.texts[2], 'const config = parseConfig("{}");');
    assert.deepEqual([...scan.counts], [1, 1, 2, 2]);

    const read = await ask({ kind: 'read', id: 2, file: 0, size: 'no match here'.length });
    assert.deepEqual(read, { type: 'read', id: 2, text: 'no match here' });

    const terms = await ask({ kind: 'terms', id: 3, terms: ['parseconfig', 'match', 'zebracorn'] });
    assert.deepEqual(terms, { type: 'terms', id: 3, files: [2, 1, 0] });

    const ranked = await ask({
      kind: 'rank',
      id: 4,
      terms: [{ text: 'parseconfig', weight: 1 }],
      documentFrequencies: [2],
      documentCount: 3,
      averageLength: 60,
      allowed: null,
      selecting: [0],
      limit: 5,
      keyPrefix: 'bundled\0',
    });
    assert.equal(ranked.type, 'rank');
    if (ranked.type !== 'rank') return;
    assert.equal(ranked.total, 2);
    assert.deepEqual([...ranked.frequencies].sort(), [1, 2]);
  });

  it("builds a tree's filter with its own git: every regular file, binary ones too", async function () {
    const { next } = start('filter');
    const filter = await next();
    assert.equal(filter.type, 'filter', JSON.stringify(filter));
    if (filter.type !== 'filter') return;
    assert.deepEqual(filter.paths.split('\0'), ['logo.bin', 'notes.txt', 'src/config.ts', 'src/server.ts']);
    assert.ok(filter.postings.length > 0);
  });

  it('says why it failed when git fails: a commit the repository does not have', async function () {
    const worker = new Worker(BUNDLE, {
      workerData: {
        task: 'index',
        git: { ...gitCommand([]), cwd: repo.dir, timeoutMs: 15_000 },
        commit: '1'.repeat(40),
        room: 1024,
        listingMaxBytes: 1024,
      } satisfies WorkerInit,
    });
    workers.push(worker);
    const [message] = (await once(worker, 'message')) as [WorkerMessage];
    assert.equal(message.type, 'failed');
    if (message.type === 'failed') assert.match(message.message, /^git ls-tree failed: /);
  });
});
