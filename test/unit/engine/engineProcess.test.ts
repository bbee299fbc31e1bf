/**
 * The local engine as the extension runs it: a child process of its own (the real bundle,
 * `dist/engineHosted.js`, built here), started with its options over IPC, answering HTTP on
 * loopback from a real git repository; stopped cleanly, killed, refused, orphaned.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { API_PATH, type WireConversation } from '../../../src/contract/legacyWire';
import type { ModelDescription, ModelTurnRequest } from '../../../src/contract/modelWire';
import { EngineProcess, EngineProcessError, type EngineModelRunner } from '../../../src/vscode/engine/engineProcess';
import { CLIENT_HEADER, waitFor } from '../../support/engineHarness';
import { createSampleAppRepo, createTempDir, removeDir, type TestRepo } from '../../support/gitRepos';
import { isAlive } from '../../support/processes';

const ROOT = path.join(__dirname, '..', '..', '..');
const SCRIPT = path.join(ROOT, 'dist', 'engineHosted.js');
const TOKEN = 'dse_engine_process_test_token_5f3a9c';

describe('the local engine in its own process', function () {
  this.timeout(60_000);
  let repo: TestRepo;
  let dataRoot: string;
  let runs = 0;
  const started: EngineProcess[] = [];
  const logs: string[] = [];

  before(async function () {
    for (const bundle of ['engineServer', 'engineHosted']) execFileSync(process.execPath, ['esbuild.mjs', '--only', bundle], { cwd: ROOT, stdio: 'pipe' });
    repo = await createSampleAppRepo();
    dataRoot = await createTempDir('dse-engine-process-');
  });
  afterEach(async function () {
    await Promise.all(started.splice(0).map((engine) => engine.stop()));
    logs.length = 0;
  });
  after(async function () {
    await repo?.remove();
    await removeDir(dataRoot);
  });

  async function start(repos = [repo.dir], dataDir = path.join(dataRoot, `data-${++runs}`)): Promise<EngineProcess> {
    const engine = await EngineProcess.start({
      script: SCRIPT,
      engine: { repos, token: TOKEN, dataDir },
      log: (line, level) => logs.push(`${level}: ${line}`),
    });
    started.push(engine);
    return engine;
  }

  const api = (engine: EngineProcess, suffix: string, init: RequestInit = {}) =>
    fetch(`${engine.url}${API_PATH}${suffix}`, {
      ...init,
      headers: { Authorization: `token ${TOKEN}`, 'X-Requested-With': CLIENT_HEADER, 'Content-Type': 'application/json' },
    });

  it('runs as a process of its own, says where it listens, answers with the token it was given, and sends its log lines', async function () {
    const engine = await start();
    assert.ok(engine.pid && engine.pid !== process.pid && isAlive(engine.pid));
    assert.match(engine.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(engine.repoNames.length, 1);
    const listed = await api(engine, '/');
    assert.equal(listed.status, 200);
    const anonymous = await fetch(`${engine.url}${API_PATH}/`, { headers: { 'X-Requested-With': CLIENT_HEADER } });
    assert.equal(anonymous.status, 401);
    await waitFor(
      async () => logs.filter((line) => line.includes(`GET ${API_PATH}/`)),
      (lines) => lines.length > 0,
      { description: 'the request in the log' },
    );
  });

  it('never shows the token in its command line or environment', async function () {
    const engine = await start();
    const cmdline = readFileSync(`/proc/${engine.pid}/cmdline`, 'utf8');
    const environ = readFileSync(`/proc/${engine.pid}/environ`, 'utf8');
    assert.ok(!cmdline.includes(TOKEN) && !environ.includes(TOKEN));
    assert.ok(cmdline.includes('engineHosted.js'), 'read the right process');
  });

  it('stops cleanly when asked: the question it took is on disk, the folder unlocked, the process gone', async function () {
    const dataDir = path.join(dataRoot, 'clean-stop');
    const engine = await start([repo.dir], dataDir);
    const asked = (await (
      await api(engine, '/', { method: 'POST', body: JSON.stringify({ question: 'Where is parseConfig defined?' }) })
    ).json()) as WireConversation;
    await engine.stop();
    assert.ok(!isAlive(engine.pid!), 'the process is gone');
    assert.ok(
      readdirSync(path.join(dataDir, 'conversations')).some((file) => file.startsWith(`${asked.id}.`)),
      'the conversation is stored',
    );
    assert.ok(!existsSync(path.join(dataDir, 'engine.lock')), 'the data folder is unlocked');
    const again = await start([repo.dir], dataDir);
    const conversation = (await (await api(again, `/${asked.id}`)).json()) as WireConversation;
    assert.equal(conversation.questions[0]?.question, 'Where is parseConfig defined?');
  });

  it('tells its owner once when it dies without being asked to', async function () {
    const engine = await start();
    const reasons: string[] = [];
    engine.onUnexpectedExit((reason) => reasons.push(reason));
    process.kill(engine.pid!, 'SIGKILL');
    await waitFor(
      async () => reasons,
      (seen) => seen.length > 0,
      { description: 'the unexpected exit' },
    );
    assert.deepEqual(reasons, ['was stopped by SIGKILL']);
    assert.equal(engine.running, false);
  });

  it('refuses to start on a folder that is not a git repository, saying so, as a problem starting again will not mend', async function () {
    const notARepo = await createTempDir('dse-not-a-repo-');
    try {
      const error = await EngineProcess.start({
        script: SCRIPT,
        engine: { repos: [notARepo], token: TOKEN, dataDir: path.join(dataRoot, 'refused') },
        log: () => undefined,
      }).then(
        () => assert.fail('it started'),
        (reason: unknown) => reason,
      );
      assert.ok(error instanceof EngineProcessError);
      assert.equal(error.usage, true);
      assert.match(error.message, /git repositor/);
    } finally {
      await removeDir(notARepo);
    }
  });

  it('stops by itself when the process that started it goes away', async function () {
    // A stand-in for the extension host: a Node process that forks the engine and is then killed.
    const parent = spawn(
      process.execPath,
      [
        '-e',
        `const child = require('node:child_process').fork(${JSON.stringify(SCRIPT)}, [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
         child.on('message', (m) => { if (m.type === 'listening') console.log(JSON.stringify({ pid: child.pid, url: m.url })); });
         child.send({ type: 'start', options: { repos: [${JSON.stringify(repo.dir)}], token: ${JSON.stringify(TOKEN)}, dataDir: ${JSON.stringify(path.join(dataRoot, 'orphan'))} } });`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const { pid } = await new Promise<{ pid: number; url: string }>((resolve, reject) => {
      parent.stdout.once('data', (chunk: Buffer) => resolve(JSON.parse(chunk.toString()) as { pid: number; url: string }));
      parent.once('exit', (code) => reject(new Error(`the stand-in exited with ${code}`)));
    });
    assert.ok(isAlive(pid));
    parent.kill('SIGKILL');
    await waitFor(
      async () => isAlive(pid),
      (alive) => !alive,
      { description: 'the orphaned engine to stop', timeoutMs: 20_000 },
    );
    assert.ok(!existsSync(path.join(dataRoot, 'orphan', 'engine.lock')), 'it stopped cleanly, unlocking its folder');
  });

  describe('with a model the host runs', function () {
    async function startWithModel(models: EngineModelRunner, model: ModelDescription | undefined): Promise<EngineProcess> {
      const engine = await EngineProcess.start({
        script: SCRIPT,
        engine: { repos: [repo.dir], token: TOKEN, dataDir: path.join(dataRoot, `data-${++runs}`), ...(model ? { model } : {}) },
        models,
        log: (line, level) => logs.push(`${level}: ${line}`),
      });
      started.push(engine);
      return engine;
    }

    async function ask(engine: EngineProcess, question: string): Promise<WireConversation> {
      const created = (await (await api(engine, '/', { method: 'POST', body: JSON.stringify({ question }) })).json()) as WireConversation;
      return waitFor(
        async () => (await (await api(engine, `/${created.id}`)).json()) as WireConversation,
        (conversation) => conversation.questions.every((question) => question.status !== 'processing'),
        { description: 'the answer' },
      );
    }

    it('sends each turn to the host over IPC, runs the tools the host model calls, and answers with its words', async function () {
      const requests: ModelTurnRequest[] = [];
      const engine = await startWithModel(
        {
          turn: async (request) => {
            requests.push(request);
            return requests.length === 1
              ? {
                  text: '',
                  toolCalls: [{ id: 'c1', name: 'keyword_search', arguments: '{"query":"loadConfig"}' }],
                  usage: { inputTokens: 300, outputTokens: 10 },
                }
              : { text: 'loadConfig reads app.json.', toolCalls: [], usage: { inputTokens: 500, outputTokens: 8 } };
          },
        },
        { label: 'Scripted (test)' },
      );
      const conversation = await ask(engine, 'Where are the settings loaded?');
      const question = conversation.questions[0];
      assert.equal(question?.answer, 'loadConfig reads app.json.');
      assert.deepEqual([question?.stats?.total_tokens, question?.stats?.tool_calls], [818, 1]);
      assert.ok(question?.turns?.some((turn) => turn.reasoning === 'Investigating with Scripted (test)'));
      assert.ok(question?.turns?.some((turn) => turn.reasoning === 'Searching for `loadConfig`'));
      assert.match(requests[1]?.messages.at(-1)?.role === 'tool' ? (requests[1].messages.at(-1) as { text: string }).text : '', /src\/server\.ts/);
    });

    it('answers on its own without a model, and investigates once the host names one', async function () {
      let turns = 0;
      const engine = await startWithModel(
        {
          turn: async () => {
            turns++;
            return { text: 'From the model.', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 } };
          },
        },
        undefined,
      );
      const alone = await ask(engine, 'Where is `parseConfig` defined?');
      assert.equal(turns, 0);
      assert.match(alone.questions[0]?.answer ?? '', /parseConfig/);
      engine.chooseModel({ label: 'Scripted (test)' }, { maxSteps: 3 });
      const investigated = await waitFor(
        () => ask(engine, 'Where is `parseConfig` defined?'),
        (conversation) => conversation.questions[0]?.answer === 'From the model.',
        { description: 'an answer from the model once it was named' },
      );
      assert.equal(investigated.questions[0]?.answer, 'From the model.');
    });

    it('withdraws a turn from the host when the question is cancelled', async function () {
      let asked = false;
      let aborted = false;
      const engine = await startWithModel(
        {
          turn: (_request, signal) =>
            new Promise((_resolve, reject) => {
              asked = true;
              signal.addEventListener('abort', () => {
                aborted = true;
                reject(new Error('cancelled'));
              });
            }),
        },
        { label: 'Scripted (test)' },
      );
      const created = (await (
        await api(engine, '/', { method: 'POST', body: JSON.stringify({ question: 'Where is `parseConfig` defined?' }) })
      ).json()) as WireConversation;
      const questionId = created.questions[0]?.id;
      await waitFor(
        async () => asked,
        (done) => done,
        { description: 'the host to be asked for a turn' },
      );
      await api(engine, `/${created.id}/questions/${questionId}/cancel`, { method: 'POST' });
      await waitFor(
        async () => aborted,
        (done) => done,
        { description: 'the host to be told to stop the turn' },
      );
    });

    it('ends in its own answer, saying why, when the host model fails', async function () {
      const engine = await startWithModel({ turn: () => Promise.reject(new Error('GPT (test) may not be used by Deep Search')) }, { label: 'GPT (test)' });
      const conversation = await ask(engine, 'Where is `parseConfig` defined?');
      assert.match(
        conversation.questions[0]?.answer ?? '',
        /^> GPT \(test\) could not finish this answer: GPT \(test\) may not be used by Deep Search\. This is the engine's own answer/,
      );
    });
  });
});
