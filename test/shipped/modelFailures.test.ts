/**
 * The engine as it ships (`dist/engine.js`, which loads `dist/engineServer.js` and, for a model,
 * `dist/openaiModel.js`: three bundles, each with its own copy of what they share) against a
 * scripted OpenAI-compatible server that misbehaves the way real servers, proxies and gateways do.
 * Behaviour that depends on bundling (an error class compiled into two bundles) passes from the
 * sources and fails here, so this layer runs on `dist/` only (`npm run test:shipped`, after the build).
 *
 * For every failure: the answer's first line names what happened, the engine answers on its own,
 * the tokens and tool calls already spent stay in the stats, and the key is nowhere — not in the
 * answer, the turns, the stats, the engine's output, its data folder or the environment of any
 * process it started.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { API_PATH, type WireConversation, type WireQuestion } from '../../src/contract/legacyWire';
import { CLIENT_HEADER, waitFor } from '../support/engineHarness';
import { createSampleAppRepo, createTempDir, removeDir, SAMPLE_APP_NAME, type TestRepo } from '../support/gitRepos';
import { allText, closedPort, descendantEnvironments, MODEL_FAULTS, SEARCH_TURN } from '../support/modelFaults';
import { FLOOD_LIMIT_BYTES, startScriptedModel, type ScriptedModelServer } from '../support/scriptedModel';

const ENGINE = path.resolve(__dirname, '../../dist/engine.js');
const KEY = 'sk-dist-test-5f0c1e9a7b3d2468';
const KEY_VARIABLE = 'DSE_DIST_MODEL_KEY';
const TOKEN = 'dse_dist_token';
const QUESTION = 'Where is `parseConfig` defined?';

interface Run {
  question: WireQuestion;
  output: string;
  /** Every file of the engine's data folder, as text. */
  stored: string;
  /** The environments of the processes the engine started, as they were while it ran. */
  environments: string[];
}

describe('the shipped engine with a model server that misbehaves (dist/)', function () {
  this.timeout(120_000);
  let repo: TestRepo;
  let scratch: string;
  let model: ScriptedModelServer | undefined;

  before(async function () {
    assert.ok(existsSync(ENGINE), `${ENGINE} is missing: run npm run build first`);
    repo = await createSampleAppRepo();
    scratch = await createTempDir('dse-dist-');
  });
  after(async function () {
    await repo?.remove();
    await removeDir(scratch);
  });
  afterEach(async function () {
    await model?.close();
    model = undefined;
  });

  function spawnEngine(dataName: string, modelArgs: string[], env: NodeJS.ProcessEnv): { child: ChildProcessWithoutNullStreams; output: () => string } {
    const args = [ENGINE, '--repo', repo.dir, '--data', path.join(scratch, dataName), '--token', TOKEN, '--pace', '0', ...modelArgs];
    const child = spawn(process.execPath, args, { env: { ...process.env, NODE_OPTIONS: '', ...env } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    return { child, output: () => output };
  }

  /** Runs the engine with the model at `baseUrl`, asks one question, and collects all it left behind. */
  async function ask(dataName: string, baseUrl: string, extra: string[] = []): Promise<Run> {
    const modelArgs = ['--model-url', baseUrl, '--model', 'scripted-1', '--model-key-env', KEY_VARIABLE, ...extra];
    const { child, output } = spawnEngine(dataName, modelArgs, { [KEY_VARIABLE]: KEY });
    const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
    try {
      const printed = await waitFor(
        async () => output(),
        (text) => /Data: .*\n/.test(text) || child.exitCode !== null,
        { description: 'the engine to say where it listens', timeoutMs: 30_000 },
      );
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(printed)?.[1];
      assert.ok(url, printed);
      const headers = { Authorization: `token ${TOKEN}`, 'X-Requested-With': CLIENT_HEADER, 'Content-Type': 'application/json' };
      const created = (await (
        await fetch(`${url}${API_PATH}/`, { method: 'POST', headers, body: JSON.stringify({ question: QUESTION }) })
      ).json()) as WireConversation;
      const finished = await waitFor(
        async () => (await (await fetch(`${url}${API_PATH}/${created.id}`, { headers })).json()) as WireConversation,
        (conversation) => conversation.questions.every((question) => question.status !== 'processing'),
        { description: 'the answer', timeoutMs: 90_000 },
      );
      const environments = await descendantEnvironments(child.pid!);
      child.kill('SIGINT');
      await closed;
      const question = finished.questions[0];
      assert.ok(question);
      return { question, output: output(), stored: await allText(path.join(scratch, dataName)), environments };
    } finally {
      child.kill('SIGKILL');
    }
  }

  /** The key is nowhere a person or another process could read it. */
  function assertNoKey(run: Run): void {
    const places: Array<[string, string]> = [
      ['the answer, its turns and its stats', JSON.stringify(run.question)],
      ["the engine's output and log", run.output],
      ['the data folder', run.stored],
      ...run.environments.map((environment, index): [string, string] => [`the environment of child process ${index + 1}`, environment]),
    ];
    for (const [where, text] of places) assert.ok(!text.includes(KEY) && !text.includes(KEY.slice(3)), `the key shows in ${where}`);
    assert.ok(run.environments.length > 0, 'the engine started processes whose environment was read');
  }

  /** Waits until the engine has either started (said where its data is) or exited; its exit code then, else null. */
  async function startedOrExited(started: { child: ChildProcessWithoutNullStreams; output: () => string }): Promise<number | null> {
    const exited = new Promise<void>((resolve) => started.child.on('close', () => resolve()));
    await waitFor(
      async () => started.output(),
      (text) => /Data: .*\n/.test(text) || started.child.exitCode !== null,
      { description: 'the engine to start or exit', timeoutMs: 30_000 },
    );
    if (started.child.exitCode === null) {
      started.child.kill('SIGINT');
      await exited;
      return null;
    }
    await exited;
    return started.child.exitCode;
  }

  function firstLine(run: Run): string {
    assert.equal(run.question.status, 'completed', JSON.stringify(run.question.error));
    return (run.question.answer ?? '').split('\n')[0] ?? '';
  }

  /** The engine answered on its own after the failure (its answer names the file), and no stack trace was logged. */
  function assertOwnAnswer(run: Run): void {
    assert.match(run.question.answer ?? '', /This is the engine's own answer, from its search\.\n[\s\S]*src\/config\.ts/);
    assert.doesNotMatch(run.output, /\n\s+at .+:\d+:\d+\)?\n/, 'no stack trace for an expected failure');
    assert.doesNotMatch(run.question.answer ?? '', /unexpected error/);
  }

  for (const scenario of MODEL_FAULTS) {
    it(`names the failure when the server ${scenario.name}, keeps what was spent, and shows the key nowhere`, async function () {
      model = await startScriptedModel(scenario.script);
      const run = await ask(scenario.name.replace(/\W+/g, '-').slice(0, 40), model.baseUrl, scenario.extra);
      assert.match(firstLine(run), scenario.line);
      assertOwnAnswer(run);
      assertNoKey(run);
      if (scenario.spent) {
        assert.ok((run.question.stats?.tool_calls ?? 0) >= 1, 'the tool call made before the failure is counted');
        assert.ok((run.question.stats?.total_input_tokens ?? 0) >= (SEARCH_TURN.usage?.prompt ?? 0), 'the tokens of the turn before the failure are kept');
      }
      if (scenario.script.some((reply) => reply.fault?.startsWith('flood'))) {
        const flooded = model.flooded();
        assert.equal(flooded.stopped, 1, 'the engine closed the flood');
        assert.ok(flooded.bytes < FLOOD_LIMIT_BYTES / 2, `the engine stopped reading at its bound (${flooded.bytes} bytes sent)`);
      }
    });
  }

  it('names a server that is not running', async function () {
    const port = await closedPort();
    const run = await ask('not-running', `http://127.0.0.1:${port}/v1`);
    assert.match(
      firstLine(run),
      new RegExp(`^> The model server at 127\\.0\\.0\\.1:${port} is not running \\(nothing accepts connections there\\): start it, or check --model-url\\. `),
    );
    assertOwnAnswer(run);
    assertNoKey(run);
  });

  it('estimates the tokens of a server that reports no usage from the whole request, instructions and tools included', async function () {
    model = await startScriptedModel([{ text: 'It is defined in src/config.ts.', usage: null }]);
    const run = await ask('no-usage', model.baseUrl);
    assert.equal(run.question.answer?.split('\n')[0], 'It is defined in src/config.ts.');
    const sent = model.requests[0]?.body;
    assert.ok(sent?.tools && sent.tools.length > 0);
    const whole = JSON.stringify(sent.messages).length + JSON.stringify(sent.tools).length;
    const estimated = run.question.stats?.total_input_tokens ?? 0;
    assert.ok(estimated >= whole / 4 - 100, `${estimated} tokens estimated for a request of ${whole} characters`);
    assertNoKey(run);
  });

  it("checks a model's citations in the shipped bundles: a link that holds is kept, one to the wrong lines is moved to the quote, an invented file is made text", async function () {
    const blob = `/${SAMPLE_APP_NAME}/-/blob`;
    const reply = [
      `\`parseConfig\` is in [config](${blob}/src/config.ts?L11), and [this line](${blob}/src/config.ts?L1-1) starts it:`,
      '',
      '```ts',
      'export function parseConfig(text: string): AppConfig {',
      '```',
      '',
      `Its settings are described in [settings](${blob}/src/settings.ts?L1-3).`,
    ].join('\n');
    model = await startScriptedModel([{ text: reply }]);
    const run = await ask('citations', model.baseUrl);
    const answer = run.question.answer ?? '';
    assert.equal(run.question.status, 'completed', JSON.stringify(run.question.error));
    const links = [...answer.matchAll(/\[([^\]]+)\]\(([^)\s]+)\)/g)].map((match) => [match[1], match[2]]);
    const target = (label: string): string | undefined => links.find(([text]) => text === label)?.[1];
    assert.match(target('config') ?? '', /\/github\.com\/acme\/app\/-\/blob\/src\/config\.ts\?L11(-11)?$/, answer);
    assert.match(target('this line') ?? '', /\/github\.com\/acme\/app\/-\/blob\/src\/config\.ts\?L11(-11)?$/, 'moved to the line that holds the quote');
    assert.equal(target('settings'), undefined, 'the invented file is no longer a link');
    assert.match(answer, /described in settings\./);
    assert.match(
      answer,
      /_Citations checked: one link pointed at lines that do not hold what was cited and now points where the code is; one link named a file or lines that do not exist and was removed\._/,
    );
    assertNoKey(run);
  });

  it('refuses a key file of more than one line without showing either line, and warns about a key file others can read', async function () {
    const twoLines = path.join(scratch, 'two-lines.key');
    await writeFile(twoLines, `${KEY}\nsecond-line-of-the-file\n`, { mode: 0o600 });
    const refused = spawnEngine('key-file', ['--model-url', 'http://127.0.0.1:9/v1', '--model', 'm', '--model-key-file', twoLines], {});
    assert.equal(await startedOrExited(refused), 2, refused.output());
    assert.match(refused.output(), /--model-key-file .*two-lines\.key: the file holds more than one line; it should hold the key alone\./);
    assert.ok(!refused.output().includes(KEY) && !refused.output().includes('second-line'), refused.output());

    const shared = path.join(scratch, 'shared.key');
    await writeFile(shared, `${KEY}\n`);
    await chmod(shared, 0o644);
    model = await startScriptedModel([{ text: 'It is defined in src/config.ts.' }]);
    const warned = spawnEngine('key-file-shared', ['--model-url', model.baseUrl, '--model', 'scripted-1', '--model-key-file', shared], {});
    assert.equal(await startedOrExited(warned), null, 'the engine starts with a key file others can read');
    assert.match(
      warned.output(),
      /Warning: the key file .*shared\.key can be read by other users of this machine \(mode 0644\); make it yours alone: chmod 600/,
    );
    assert.ok(!warned.output().includes(KEY));
  });

  it('refuses a key in the query of --model-url, and does not print it', async function () {
    const refused = spawnEngine('key-in-url', ['--model-url', `http://127.0.0.1:9/v1?api-key=${KEY}`, '--model', 'm'], {});
    assert.equal(await startedOrExited(refused), 2, 'the engine refuses to start');
    assert.match(refused.output(), /--model-url must not hold a credential \(its query has "api-key"\): give the key with --model-key-env or --model-key-file/);
    assert.ok(!refused.output().includes(KEY));
  });
});
