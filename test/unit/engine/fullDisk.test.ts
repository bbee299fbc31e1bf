/**
 * The engine's data folder on a disk that is really full. As root on Linux (CI), each data folder
 * lives on a 2 MiB tmpfs mounted for these tests, filled with a file until the kernel answers
 * ENOSPC, and freed by deleting that file. Where mounting is not allowed (not root), the tests do not
 * skip: they fall back to the store's labelled seam `fullDiskSeamForTests`, which sends the store's
 * writes through `/dev/full`, where the kernel answers ENOSPC just the same (but no temp file can be
 * left behind there, so those checks cannot fail). Either mode prints a note saying which ran; with
 * DEEP_SEARCH_FULL_DISK=tmpfs (as .ci/run sets it) there is no fallback.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, fstatSync, ftruncateSync, open, openSync, readdirSync, readFileSync, rmSync, statfsSync, writeSync } from 'node:fs';
import * as path from 'node:path';
import { DeepSearchClient } from '../../../src/api/client';
import { isRetryable } from '../../../src/api/errors';
import { HttpTransport } from '../../../src/api/http';
import { createDispatcher, undiciTransport } from '../../../src/api/undiciTransport';
import type { WireConversation, WireErrorBody, WireQuestion } from '../../../src/contract/legacyWire';
import { Answerer } from '../../../src/engine/answers/answerer';
import { ConversationService } from '../../../src/engine/conversations/service';
import type { ConversationRecord } from '../../../src/engine/conversations/records';
import { discoverRepositories } from '../../../src/engine/git/repos';
import { resolveVariant } from '../../../src/engine/server';
import { ConversationStorage, fullDiskSeamForTests } from '../../../src/engine/conversations/storage';
import { startTestEngine, waitFor, type TestEngine } from '../../support/engineHarness';
import { createTempDir, createTestRepo, removeDir, type TestRepo } from '../../support/gitRepos';
import { expectError } from '../api/expectError';
import { McpSession } from './mcp/fixture';

/** Room on the disk for one more small file (a block), not for a long answer. */
const ONE_BLOCK = 4096;

interface SmallDisk {
  /** Where the tests put their data folders. */
  dir: string;
  /**
   * Fills the disk, leaving room for writes of at most `spaceLeft` bytes (rounded down to whole
   * blocks on the tmpfs). Synchronous, so that it can run inside an engine hook.
   */
  fill(spaceLeft?: number): void;
  /** Gives the space back. */
  free(): void;
  dispose(): Promise<void>;
}

/** A real 2 MiB tmpfs when this process may mount one; the `/dev/full` seam otherwise. */
async function smallDisk(): Promise<SmallDisk> {
  const dir = await createTempDir('dse-small-disk-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m,mode=0700', 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    // CI asks for the mode in which "no temp file left" can fail (.ci/run): no fallback then.
    if (process.env.DEEP_SEARCH_FULL_DISK === 'tmpfs') {
      await removeDir(dir);
      throw new Error(
        `DEEP_SEARCH_FULL_DISK=tmpfs: these tests must run on a real full disk, but no tmpfs could be mounted (${String(error)}). Run them as root on Linux.`,
      );
    }
    if (!existsSync('/dev/full')) {
      await removeDir(dir);
      throw new Error(`These tests need a full disk: they could neither mount a tmpfs (${String(error)}) nor write through /dev/full.`);
    }
    console.log("    note: cannot mount a tmpfs here (not root?): the full disk is the store's seam writing through /dev/full");
    const free = (): void => {
      delete fullDiskSeamForTests.device;
      delete fullDiskSeamForTests.spaceLeft;
    };
    return {
      dir,
      fill(spaceLeft = 0) {
        fullDiskSeamForTests.device = '/dev/full';
        fullDiskSeamForTests.spaceLeft = spaceLeft;
      },
      free,
      async dispose() {
        free();
        await removeDir(dir);
      },
    };
  }
  console.log('    note: the full disk is a 2 MiB tmpfs mounted for these tests (the mode in which every check can fail)');
  const filler = path.join(dir, 'filler');
  return {
    dir,
    fill(spaceLeft = 0) {
      const fd = openSync(filler, 'a');
      try {
        for (const size of [64 * 1024, 1]) {
          const chunk = Buffer.alloc(size, 0x2e);
          try {
            for (;;) writeSync(fd, chunk);
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
          }
        }
        const block = statfsSync(dir).bsize;
        const blocks = Math.ceil(fstatSync(fd).size / block) - Math.floor(spaceLeft / block);
        ftruncateSync(fd, Math.max(0, blocks) * block);
      } finally {
        closeSync(fd);
      }
      assert.equal(statfsSync(dir).bfree, Math.floor(spaceLeft / statfsSync(dir).bsize), 'the disk is as full as asked');
    },
    free() {
      rmSync(filler, { force: true });
    },
    async dispose() {
      execFileSync('umount', [dir], { stdio: 'pipe' });
      await removeDir(dir);
    },
  };
}

/**
 * Holds every thread of libuv's pool, where Node runs all file-system calls, each on the `open` of a
 * FIFO that no one writes to yet: the file writes asked for after this wait in the pool's queue,
 * while the event loop goes on. `release()` opens the FIFOs' other ends (the blocked opens return,
 * in queue order, before any held write), then the held writes run.
 */
async function holdFileSystemCalls(): Promise<{ release(): Promise<void> }> {
  const dir = await createTempDir('dse-fs-hold-');
  const threads = Math.min(1024, Number(process.env.UV_THREADPOOL_SIZE) || 4);
  const fifos = Array.from({ length: threads }, (_, index) => path.join(dir, `hold-${index}`));
  for (const fifo of fifos) execFileSync('mkfifo', [fifo]);
  const opened = fifos.map((fifo) => new Promise<number>((resolve, reject) => open(fifo, 'r', (error, fd) => (error ? reject(error) : resolve(fd)))));
  let released: Promise<void> | undefined;
  return {
    release() {
      released ??= (async () => {
        for (const fifo of fifos) closeSync(openSync(fifo, 'w')); // blocks until that FIFO's reader opens it
        for (const fd of await Promise.all(opened)) closeSync(fd);
        await removeDir(dir);
      })();
      return released;
    },
  };
}

/**
 * Three files of functions whose quoted lines are long (each function a few calls): the answer is
 * several blocks, the progress less than one.
 */
function longLinesRepo(): Promise<TestRepo> {
  const call = (name: string, line: number): string =>
    `  reportUsage('${name} line ${line}: ${'a long argument that makes the quoted line wide '.repeat(4)}');`;
  const file = (name: string): string =>
    Array.from({ length: 4 }, (_, fn) =>
      [`export function ${name}${fn}(): void {`, ...Array.from({ length: 8 }, (_, line) => call(name, fn * 8 + line)), '}'].join('\n'),
    ).join('\n\n');
  return createTestRepo({
    origin: 'https://github.com/acme/usage.git',
    commits: [{ message: 'usage', files: { 'src/alpha.ts': file('alpha'), 'src/beta.ts': file('beta'), 'src/gamma.ts': file('gamma') } }],
  });
}

describe('engine: a full disk', function () {
  let disk: SmallDisk;
  let repo: TestRepo;
  let engine: TestEngine | undefined;
  let dataDir: string;
  let runs = 0;
  let lines: string[] = [];
  /** Called when a question starts being answered, after its creation was stored. */
  let onQuestionStart: (() => void) | undefined;

  before(async function () {
    disk = await smallDisk();
    repo = await longLinesRepo();
  });
  after(async function () {
    await disk?.dispose();
    await repo?.remove();
  });

  beforeEach(async function () {
    lines = [];
    onQuestionStart = undefined;
    dataDir = path.join(disk.dir, `data-${++runs}`);
    engine = await startTestEngine({
      repos: [repo.dir],
      dataDir,
      log: (line) => lines.push(line),
      faults: {
        question: () => {
          onQuestionStart?.();
          return undefined;
        },
      },
    });
  });
  afterEach(async function () {
    disk?.free();
    await engine?.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const storedFiles = (): string[] => readdirSync(path.join(dataDir, 'conversations')).sort();
  const stored = (id: number): ConversationRecord =>
    (JSON.parse(readFileSync(path.join(dataDir, 'conversations', `${id}.json`), 'utf8')) as { conversation: ConversationRecord }).conversation;
  /** Asks a question and waits until it is answered: the API shows an answer only once it is on disk. */
  async function askAndStore(question: string): Promise<WireConversation> {
    const created = await engine!.ask(question);
    const answered = await engine!.waitUntilFinished(created.id);
    assert.ok(
      answered.questions.every((q) => q.status === 'completed' && q.answer),
      `answered: ${JSON.stringify(answered.questions)}`,
    );
    assert.deepEqual(stored(created.id).questions, answered.questions, 'shown only once stored');
    return answered;
  }

  function assertDiskFullReply(response: { status: number; headers: Headers; text: string; json: WireErrorBody }, outcome: RegExp): void {
    assert.equal(response.status, 507, `507 Insufficient Storage, not ${response.status}: ${response.text}`);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(Object.keys(response.json), ['error'], "the engine's usual error shape");
    assert.match(response.json.error, /^The engine's data folder has no space left/);
    assert.match(response.json.error, outcome);
    assert.match(response.json.error, /nothing was saved for this request\. Free space on that disk/);
    assert.ok(!response.text.includes(disk.dir), 'names no path');
    assert.ok(!/ENOSPC|\bat .*\.ts:\d+/.test(response.text), 'no errno, no stack');
  }

  it('answers a create it cannot store with 507, lists nothing, leaves nothing on disk, and has nothing after a restart', async function () {
    const kept = await askAndStore('Where is `reportUsage` called?');
    const before = storedFiles();
    disk.fill();

    const response = await engine!.api<WireErrorBody>('/', { method: 'POST', body: { question: 'Where is `alpha3` defined?' } });
    assertDiskFullReply(response, /the conversation was not created/);
    const listed = await engine!.api<WireConversation[]>('/');
    assert.deepEqual(
      listed.json.map((conversation) => conversation.id),
      [kept.id],
      'nothing new is listed',
    );
    assert.deepEqual(storedFiles(), before, 'no new conversation file');
    assert.deepEqual(
      readdirSync(dataDir, { recursive: true }).filter((name) => String(name).endsWith('.tmp')),
      [],
      'no temp file left holding space',
    );
    assert.ok(
      lines.some((line) => /data folder is full \(ENOSPC\).*the conversation was not created/.test(line)),
      'one clear log line',
    );
    assert.ok(!lines.some((line) => line.includes('\n')), 'no stack in the log');

    disk.free();
    await engine!.restart();
    const relisted = await engine!.api<WireConversation[]>('/');
    assert.deepEqual(
      relisted.json.map((conversation) => conversation.id),
      [kept.id],
      'nothing turns up after a restart',
    );
  });

  it('answers a follow-up or a link rotation it cannot store with 507 and leaves the conversation as it was, also after a restart', async function () {
    const before = await askAndStore('Where is `reportUsage` called?');
    disk.fill();

    const followup = await engine!.api<WireErrorBody>(`/${before.id}/questions`, {
      method: 'POST',
      body: { conversation_id: before.id, question: 'Where is `beta2` defined?' },
    });
    assertDiskFullReply(followup, /the follow-up was not added/);
    const rotation = await engine!.api<WireErrorBody>(`/${before.id}/rotate-read-token`, { method: 'POST' });
    assertDiskFullReply(rotation, /the read token was not replaced/);
    assert.deepEqual((await engine!.api<WireConversation>(`/${before.id}`)).json, before, 'unchanged in the API');
    assert.equal(stored(before.id).questions.length, 1, 'unchanged on disk');

    disk.free();
    await engine!.restart();
    const reloaded = (await engine!.api<WireConversation>(`/${before.id}`)).json;
    assert.deepEqual({ ...reloaded, share_url: undefined }, { ...before, share_url: undefined }, 'unchanged after a restart');
  });

  it("gives the client an insufficient-storage error with the engine's own message, for a create and for a follow-up", async function () {
    const kept = await askAndStore('Where is `reportUsage` called?');
    const dispatcher = createDispatcher();
    // The client's transport, on the conversation API these 507s come from.
    const transport = new HttpTransport({ transport: undiciTransport(dispatcher) });
    const post = (suffix: string, body: unknown): Promise<unknown> =>
      transport.send({
        method: 'POST',
        url: new URL(engine!.apiUrl + suffix),
        headers: {
          authorization: `token ${engine!.options.users[0].token}`,
          'x-requested-with': 'fullDisk-tests 1.0.0',
          accept: 'application/json',
          'content-type': 'application/json',
        },
        body: JSON.stringify(body),
      });
    try {
      disk.fill();
      const create = await expectError(post('/', { question: 'Where is `alpha3` defined?' }), 'insufficientStorage');
      assert.equal(create.status, 507);
      assert.match(
        create.message,
        /^The engine's data folder has no space left .*: the conversation was not created, and nothing was saved for this request\. Free space on that disk, then ask again\.$/,
      );
      assert.doesNotMatch(create.message, /internal error/);
      assert.equal(isRetryable(create), false);

      const followup = await expectError(
        post(`/${kept.id}/questions`, { conversation_id: kept.id, question: 'Where is `beta2` defined?' }),
        'insufficientStorage',
      );
      assert.match(followup.message, /: the follow-up was not added, and nothing was saved for this request\. Free space on that disk, then ask it again\.$/);
    } finally {
      await dispatcher.destroy();
    }
  });

  it('gives a client of the 7.x API the same insufficient-storage error (a 507, not a rate limit)', async function () {
    const kept = await askAndStore('Where is `reportUsage` called?');
    const dispatcher = createDispatcher();
    const client = new DeepSearchClient({ instanceUrl: engine!.url, token: engine!.options.users[0].token, transport: undiciTransport(dispatcher) });
    try {
      assert.equal(await client.generation(), 'connect');
      disk.fill();
      const create = await expectError(client.createConversation('Where is `alpha3` defined?'), 'insufficientStorage');
      assert.equal(create.status, 507);
      assert.match(create.message, /^The engine's data folder has no space left .*: the conversation was not created/);
      await expectError(client.postFollowup(kept.id, 'Where is `beta2` defined?'), 'insufficientStorage');
    } finally {
      await dispatcher.destroy();
    }
  });

  it("makes sg_deepsearch on a full disk a tool error with the engine's message, not an internal error with a stack", async function () {
    const mcp = await McpSession.open(engine!.url);
    try {
      disk.fill();
      const message = await mcp.fails('sg_deepsearch', { question: 'Where is `reportUsage` called?' });
      assert.match(
        message,
        /^The engine's data folder has no space left .*: the conversation was not created, and nothing was saved for this request\. Free space on that disk, then ask again\.$/,
      );
      assert.doesNotMatch(message, /internal engine error/);
      assert.ok(!lines.some((line) => line.startsWith('mcp ') || line.includes('\n')), `no internal error and no stack in the log: ${JSON.stringify(lines)}`);
      assert.ok(
        lines.some((line) => /data folder is full \(ENOSPC\).*the conversation was not created/.test(line)),
        'the one log line of a full disk',
      );

      disk.free();
      const { structured } = await mcp.ok<{ answer?: string }>('sg_deepsearch', { question: 'Where is `reportUsage` called?' });
      assert.match(structured.answer ?? '', /reportUsage/, 'answers once there is space');
    } finally {
      await mcp.close();
    }
  });

  it('ends a question whose progress cannot be stored as failed, saying the disk is full, in one log line', async function () {
    onQuestionStart = () => disk.fill();
    const created = await engine!.ask('Where is `reportUsage` called?');
    const question = (await engine!.waitUntilFinished(created.id)).questions[0];

    assert.equal(question.answer, undefined);
    assert.equal(question.error?.kind, 'InsufficientStorage');
    assert.equal(question.error?.title, 'The question could not be saved');
    assert.match(
      question.error?.message ?? '',
      /^The engine's data folder has no space left .*progress could not be saved.*Free space on that disk, then ask again\.$/,
    );
    const about = lines.filter((line) => line.startsWith(`question ${question.id}:`));
    assert.deepEqual(about.length, 1, `one log line about the question: ${JSON.stringify(about)}`);
    assert.match(about[0] ?? '', /its progress could not be saved: the data folder is full \(ENOSPC\)/);
    assert.equal(stored(created.id).questions[0]?.status, 'processing', 'the disk still has it as it was last stored');
  });

  it('ends a question whose answer does not fit as failed, with its stored progress, and answers it again after a restart with space', async function () {
    onQuestionStart = () => disk.fill(ONE_BLOCK);
    const created = await engine!.ask('Where is `reportUsage` called?');
    const question = (await engine!.waitUntilFinished(created.id)).questions[0];

    assert.equal(question.answer, undefined, 'no answer that is not stored');
    assert.equal(question.error?.kind, 'InsufficientStorage');
    assert.equal(question.error?.title, 'The answer could not be saved');
    assert.match(question.error?.message ?? '', /the answer that was found could not be saved\. Free space on that disk, then ask again\.$/);
    const onDisk = stored(created.id).questions[0];
    assert.equal(onDisk?.status, 'processing');
    assert.equal(onDisk?.answer, undefined);
    assert.ok((onDisk?.turns?.length ?? 0) > 3, 'the progress that fitted was stored');
    assert.deepEqual(lines.filter((line) => line.startsWith(`question ${question.id}:`)).length, 1, 'one log line');

    onQuestionStart = undefined;
    disk.free();
    await engine!.restart();
    const resumed = (await engine!.waitUntilFinished(created.id)).questions[0];
    assert.equal(resumed?.error, undefined);
    assert.match(resumed?.answer ?? '', /reportUsage/);
    const answered = await waitFor(
      () => Promise.resolve(stored(created.id)),
      (record) => record.questions[0]?.status === 'completed',
    );
    assert.ok(JSON.stringify(answered).length > ONE_BLOCK * 2, 'the answer is larger than the room it had');
  });

  it('shows an answer only once it is stored: not while it is being written, and never when it does not fit', async function () {
    // The service itself, on a store on the small disk, answering with the real answerer: when an
    // answer is ready, the disk is filled or not, and file writes are held until the test has looked.
    const serviceDir = path.join(disk.dir, `service-${runs}`);
    const loaded = await ConversationStorage.open(serviceDir);
    const answerer = new Answerer({ repositories: await discoverRepositories([repo.dir]), instanceUrl: 'http://127.0.0.1:9', paceMs: 0 });
    const serviceLines: string[] = [];
    let fillWhenAnswered = false;
    let hold: { release(): Promise<void> } | undefined;
    let answered: () => void = () => undefined;
    const service = new ConversationService({
      ...loaded,
      answer: async (request) => {
        const answer = await answerer.answer(request);
        if (fillWhenAnswered) disk.fill();
        hold = await holdFileSystemCalls();
        answered();
        return answer;
      },
      instanceUrl: 'http://127.0.0.1:9',
      sharing: true,
      paceMs: 0,
      variant: resolveVariant(),
      faults: {},
      log: (line) => serviceLines.push(line),
    });
    const user = { id: 1, name: 'owner' };
    const storedHere = (id: number): ConversationRecord =>
      (JSON.parse(readFileSync(path.join(serviceDir, 'conversations', `${id}.json`), 'utf8')) as { conversation: ConversationRecord }).conversation;
    try {
      for (const full of [false, true]) {
        fillWhenAnswered = full;
        const ready = new Promise<void>((resolve) => (answered = resolve));
        const created = await service.create(user, 'Where is `reportUsage` called?');
        await ready;
        await new Promise((resolve) => setImmediate(resolve)); // the service has taken the answer and asked to store it
        const whileWriting = service.get(user, created.id).questions[0];
        assert.equal(storedHere(created.id).questions[0]?.status, 'processing', 'the write of the answer is held');
        assert.equal(whileWriting?.status, 'processing', `not shown ended before it is stored (full disk: ${full})`);
        assert.equal(whileWriting?.answer, undefined, `no answer shown before it is stored (full disk: ${full})`);
        assert.equal(service.getQuestion(user, created.id, whileWriting.id).answer, undefined);

        await hold?.release();
        const ended = (
          await waitFor(
            () => Promise.resolve(service.get(user, created.id)),
            (conversation) => conversation.questions.every((question) => question.status !== 'processing'),
            { description: 'the question to end' },
          )
        ).questions[0];
        await loaded.storage.idle();
        if (full) {
          assert.equal(ended?.answer, undefined, 'an answer that did not fit is never shown');
          assert.equal(ended?.error?.title, 'The answer could not be saved');
          assert.equal(storedHere(created.id).questions[0]?.status, 'processing');
          disk.free();
        } else {
          assert.match(ended?.answer ?? '', /reportUsage/);
          assert.deepEqual(storedHere(created.id).questions[0], ended, 'shown as stored');
        }
      }
      assert.equal(serviceLines.length, 1, `one log line, about the answer that did not fit: ${JSON.stringify(serviceLines)}`);
    } finally {
      await hold?.release(); // never leave the pool held, even when an assertion failed
      disk.free();
      await service.shutdown();
      await loaded.storage.idle();
      rmSync(serviceDir, { recursive: true, force: true });
    }
  });

  it('gives back the space of a write that did not fit, and stores again once space is freed, without a restart', async function () {
    await askAndStore('Where is `reportUsage` called?');
    disk.fill(ONE_BLOCK);
    const tooLong = await engine!.api<WireErrorBody>('/', {
      method: 'POST',
      body: { question: `Where is \`reportUsage\` called? ${'Some context that makes this question long. '.repeat(150)}` },
    });
    assertDiskFullReply(tooLong, /the conversation was not created/);

    onQuestionStart = () => disk.free();
    const created = await engine!.api<WireConversation>('/', { method: 'POST', body: { question: 'Where is `reportUsage` called?' } });
    assert.equal(created.status, 200, `a small create fits in the block the failed write gave back: ${created.text}`);
    const answered = await engine!.waitUntilFinished(created.json.id);
    assert.match(answered.questions[0]?.answer ?? '', /reportUsage/);

    const followup = await engine!.api<WireQuestion>(`/${created.json.id}/questions`, {
      method: 'POST',
      body: { conversation_id: created.json.id, question: 'Where is `gamma4` defined?' },
    });
    assert.equal(followup.status, 200);
    await engine!.waitUntilFinished(created.json.id);
    await waitFor(
      () => Promise.resolve(stored(created.json.id)),
      (record) => record.questions.length === 2 && record.questions.every((q) => q.status === 'completed' && q.answer),
      { description: 'both answers on disk' },
    );
  });
});
