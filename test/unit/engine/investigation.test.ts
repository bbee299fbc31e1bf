/**
 * The engine investigating with the user's model (issue 24), end to end over HTTP: a real engine on
 * a real repository asks a scripted OpenAI-compatible server (test/support/scriptedModel.ts: a model
 * cannot run here) through the official client, runs the tools it calls, shows each call as a turn,
 * checks the answer's citations, and falls back to its own answer when the model fails.
 */
import assert from 'node:assert/strict';
import type { WireQuestion } from '../../../src/contract/legacyWire';
import { blobUrl } from '../../../src/engine/answers/answerWriter';
import type { InvestigationLimits } from '../../../src/engine/models/chatModel';
import { createOpenAiModel } from '../../../src/engine/models/openaiModel';
import { startTestEngine, waitFor, type TestEngine } from '../../support/engineHarness';
import { createTestRepo, SAMPLE_APP_NAME } from '../../support/gitRepos';
import { startScriptedModel, type ScriptedModelServer, type ScriptedReply } from '../../support/scriptedModel';

const KEY = 'sk-scripted-secret-4711';
const PARSE_LINE = 'export function parseConfig(text: string): AppConfig {';

describe('investigating with an OpenAI-compatible model', function () {
  this.timeout(60_000);
  let model: ScriptedModelServer | undefined;
  let engine: TestEngine | undefined;

  afterEach(async function () {
    await engine?.dispose();
    await model?.close();
    engine = undefined;
    model = undefined;
  });

  async function start(
    script: ScriptedReply[] | Parameters<typeof startScriptedModel>[0],
    limits: Partial<InvestigationLimits> = {},
    repos?: string[],
  ): Promise<TestEngine> {
    model = await startScriptedModel(script);
    const chat = createOpenAiModel({ baseUrl: model.baseUrl, model: 'scripted-1', apiKey: KEY, keySource: '$SCRIPTED_KEY' });
    engine = await startTestEngine({ paceMs: 0, model: () => chat, investigationLimits: limits, ...(repos ? { repos } : {}) });
    return engine;
  }

  async function answered(question: string): Promise<WireQuestion> {
    const created = await engine!.ask(question);
    const finished = await engine!.waitUntilFinished(created.id);
    const last = finished.questions.at(-1)!;
    assert.equal(last.status, 'completed', JSON.stringify(last.error));
    return last;
  }

  function link(path: string, start: number, end: number): string {
    return blobUrl(engine!.url, SAMPLE_APP_NAME, path, { start, end });
  }

  it('calls the tools the model asks for, shows each call as a turn, and answers with its citations, sources, follow-ups and real token counts', async function () {
    await start((_request, index) => {
      if (index === 0)
        return {
          text: 'Let me find where the settings are parsed.',
          toolCalls: [{ name: 'keyword_search', arguments: { query: 'parseConfig' } }],
          usage: { prompt: 1000, completion: 20 },
        };
      if (index === 1)
        return {
          toolCalls: [{ name: 'read_file', arguments: { repo: SAMPLE_APP_NAME, path: 'src/config.ts', startLine: 10, endLine: 15 } }],
          usage: { prompt: 1500, completion: 25 },
        };
      return {
        text: `\`parseConfig\` reads the settings: [src/config.ts:11-14](${link('src/config.ts', 11, 14)})\n\n\`\`\`ts\n${PARSE_LINE}\n\`\`\`\n\nIt is reached from \`loadConfig\`.\n\nFollow-up questions:\n- Who calls loadConfig?\n- What happens when port is missing?`,
        usage: { prompt: 2500, completion: 120 },
      };
    });
    const question = await answered('How are the settings parsed?');
    const turns = (question.turns ?? []).map((turn) => turn.reasoning);
    assert.ok(turns.includes('Searching for `parseConfig`'), turns.join(' | '));
    assert.ok(turns.includes(`Reading src/config.ts 10–15 in ${SAMPLE_APP_NAME}`), turns.join(' | '));
    assert.ok(turns.includes('Let me find where the settings are parsed.'), turns.join(' | '));
    assert.ok(
      question.answer?.startsWith(`\`parseConfig\` reads the settings: [src/config.ts:11-14](${link('src/config.ts', 11, 14)})`),
      question.answer ?? '',
    );
    assert.ok(!question.answer?.includes('Follow-up questions'), 'the follow-up list is taken out of the answer');
    assert.deepEqual(question.suggested_followups, ['Who calls loadConfig?', 'What happens when port is missing?']);
    assert.deepEqual(
      question.sources?.map((source) => source.label),
      ['src/config.ts'],
    );
    assert.deepEqual(
      [question.stats?.prompt_tokens, question.stats?.completion_tokens, question.stats?.total_tokens, question.stats?.tool_calls],
      [5000, 165, 5165, 2],
    );
    // What the model was sent: the key in the header only, the engine's tools less Deep Search itself, the results of its calls.
    const requests = model!.requests;
    assert.equal(requests.length, 3);
    assert.equal(requests[0]?.authorization, `Bearer ${KEY}`);
    const offered = requests[0]?.body.tools?.map((tool) => tool.function.name) ?? [];
    assert.ok(offered.includes('keyword_search') && offered.includes('read_file') && offered.includes('find_references'), offered.join(', '));
    assert.ok(!offered.includes('deepsearch') && !offered.includes('deepsearch_read'), offered.join(', '));
    const searchResult = requests[1]?.body.messages.find((message) => message.role === 'tool');
    assert.match(searchResult?.content ?? '', /src\/config\.ts/);
    const readResult = requests[2]?.body.messages.filter((message) => message.role === 'tool').at(-1);
    assert.match(readResult?.content ?? '', /11: export function parseConfig/);
    assert.ok(!JSON.stringify(question).includes(KEY), 'the key is nowhere in the conversation');
  });

  it('repairs a link to an invented file to where the quoted code is, removes one to code that exists nowhere, and says so', async function () {
    await start((_request, index) =>
      index === 0
        ? { toolCalls: [{ name: 'read_file', arguments: { repo: SAMPLE_APP_NAME, path: 'src/config.ts' } }] }
        : {
            text:
              `It is parsed in [src/parser.ts:1-3](${link('src/parser.ts', 1, 3)}):\n\n\`\`\`ts\n${PARSE_LINE}\n\`\`\`\n\n` +
              `and validated by [src/validate.ts:9](${link('src/validate.ts', 9, 9)}):\n\n\`\`\`ts\nvalidateEverything(config);\n\`\`\``,
          },
    );
    const question = await answered('Where are the settings parsed?');
    assert.ok(question.answer?.includes(`[src/parser.ts:1-3](${link('src/config.ts', 11, 11)})`), question.answer ?? '');
    assert.ok(question.answer?.includes('and validated by src/validate.ts:9:'), question.answer ?? '');
    assert.ok(!question.answer?.includes('src/validate.ts?L'), 'the link to a file that does not exist is gone');
    assert.match(
      question.answer ?? '',
      /_Citations checked: one link pointed at lines that do not hold what was cited and now points where the code is; one link named a file or lines that do not exist and was removed\._$/,
    );
    // Sources are what the investigation read, not what the model claimed.
    assert.deepEqual(
      question.sources?.map((source) => source.label),
      ['src/config.ts'],
    );
  });

  it('answers on its own when the model server refuses the key, and says what happened without the key', async function () {
    await start([{ status: 401, error: 'Incorrect API key provided' }]);
    const question = await answered('Where is `parseConfig` defined?');
    const answer = question.answer ?? '';
    assert.match(
      answer,
      /^> The model server at 127\.0\.0\.1:\d+ refused the key \(401\) \(Incorrect API key provided\): check \$SCRIPTED_KEY\. This is the engine's own answer, from its search\./,
    );
    assert.ok(answer.includes(link('src/config.ts', 10, 17).replace(/\?L.*$/, '')), 'the engine still answers, with its own links');
    assert.ok(!JSON.stringify(question).includes(KEY));
    assert.ok(
      (question.turns ?? []).some(
        (turn) => turn.reasoning.startsWith('The model server at 127.0.0.1') && turn.reasoning.endsWith("answering from the engine's own search"),
      ),
    );
  });

  it('stops a model that answers too slowly at the time limit, and answers on its own', async function () {
    await start([{ delayMs: 30_000, text: 'too late' }], { timeoutMs: 1_000 });
    const question = await answered('Where is `parseConfig` defined?');
    assert.match(question.answer ?? '', /^> scripted-1 at \S+ sent no answer in 1 s, the time a question may take\./);
  });

  it('stops a model that only repeats the calls it already made', async function () {
    await start([{ toolCalls: [{ name: 'keyword_search', arguments: { query: 'parseConfig' } }] }]);
    const question = await answered('Where is `parseConfig` defined?');
    assert.match(question.answer ?? '', /^> scripted-1 at \S+ could not finish this answer: it kept repeating tool calls it had already made\./);
    // The search ran once; the repeats were answered from the record, not run again.
    assert.equal((question.turns ?? []).filter((turn) => turn.reasoning === 'Searching for `parseConfig`').length, 1);
    assert.equal(model!.requests.length, 3);
    assert.match(model!.requests[2]?.body.messages.at(-1)?.content ?? '', /This exact call was already made \(step 1\)/);
  });

  it('asks for the answer without tools once the steps are used up', async function () {
    const queries = ['config', 'server', 'retry'];
    await start(
      (request, index) =>
        request.body.tools
          ? { toolCalls: [{ name: 'nls_search', arguments: { query: queries[index % 3] } }] }
          : { text: 'From what I read: the settings come from app.json.' },
      { maxSteps: 2 },
    );
    const question = await answered('Where do the settings come from?');
    assert.equal(question.answer, 'From what I read: the settings come from app.json.');
    const requests = model!.requests;
    assert.equal(requests.length, 3);
    assert.equal(requests[2]?.body.tools, undefined);
    assert.match(requests[2]?.body.messages.at(-1)?.content ?? '', /You have used every investigation step/);
  });

  it('tells the model when its arguments are not JSON, and it can correct them', async function () {
    await start([
      { toolCalls: [{ name: 'read_file', arguments: '{"repo": "x", ' }] },
      { toolCalls: [{ name: 'list_files', arguments: { repo: SAMPLE_APP_NAME } }] },
      { text: 'The repository holds src/ and lib/.' },
    ]);
    const question = await answered('What is in the repository?');
    assert.equal(question.answer, 'The repository holds src/ and lib/.');
    assert.match(model!.requests[1]?.body.messages.at(-1)?.content ?? '', /^The arguments of read_file are not a JSON object/);
    assert.match(model!.requests[2]?.body.messages.at(-1)?.content ?? '', /src\//);
  });

  it('shows and counts a call only once its arguments fit the tool, and counts the same refused call made again as repetition', async function () {
    await start([{ toolCalls: [{ name: 'keyword_search', arguments: { querry: 'parseConfig' } }] }]);
    const question = await answered('Where is `parseConfig` defined?');
    assert.match(question.answer ?? '', /^> scripted-1 at \S+ could not finish this answer: it kept repeating tool calls it had already made\./);
    assert.equal(model!.requests.length, 3, 'refused once, then twice more unchanged: looping');
    assert.match(model!.requests[1]?.body.messages.at(-1)?.content ?? '', /^The arguments of keyword_search do not fit its schema: /);
    assert.match(model!.requests[2]?.body.messages.at(-1)?.content ?? '', /made again unchanged/);
    // The turns of the investigation, before the engine answers on its own (whose own steps follow).
    const turns = question.turns ?? [];
    const modelTurns = turns.slice(
      0,
      turns.findIndex((turn) => turn.reasoning.endsWith("answering from the engine's own search")),
    );
    assert.ok(modelTurns.length > 0 && !modelTurns.some((turn) => /^Searching/.test(turn.reasoning)), 'a refused call is not shown as a step');
  });

  it('runs again a call whose result was left out to make room, as the model is told it may', async function () {
    const lines = Array.from({ length: 400 }, (_, index) => `line ${String(index + 1).padStart(3, '0')} ${'x'.repeat(90)}`);
    const big = await createTestRepo({
      commits: [{ files: { 'big.txt': `${lines.join('\n')}\n` }, message: 'big' }],
      origin: 'https://github.com/acme/big.git',
    });
    try {
      // Eight reads a turn of about 12,000 characters each: the fourth turn's history is past the bound.
      const read = (turn: number, index: number): { name: string; arguments: unknown } => ({
        name: 'read_file',
        arguments: { repo: 'github.com/acme/big', path: 'big.txt', startLine: 1 + turn * 8 + index, endLine: 400 },
      });
      await start(
        (_request, index) =>
          index < 4
            ? { toolCalls: Array.from({ length: 8 }, (_, call) => read(index, call)) }
            : index === 4
              ? { toolCalls: [read(0, 0)] }
              : { text: 'Read it all.' },
        { maxSteps: 10 },
        [big.dir],
      );
      const question = await answered('What does big.txt hold?');
      assert.equal(question.answer?.split('\n')[0], 'Read it all.');
      const fifth = model!.requests[4]?.body.messages ?? [];
      assert.ok(
        fifth.some((message) => message.role === 'tool' && /was left out to make room/.test(message.content ?? '')),
        'the oldest results were left out before the fifth turn',
      );
      const again = model!.requests[5]?.body.messages.at(-1)?.content ?? '';
      assert.match(again, /line 001 x{90}/, 'the call made again was run again');
      assert.doesNotMatch(again, /already made/);
      assert.equal(question.stats?.tool_calls, 33);
    } finally {
      await big.remove();
    }
  });

  it("keeps everything a turn sends within the bound: texts, results and the calls' arguments", async function () {
    // Every turn: eight calls of about 15,000 characters of arguments each (refused by the schema, carried in the history).
    const long = (turn: number, call: number): { name: string; arguments: unknown } => ({
      name: 'keyword_search',
      arguments: { query: `${turn}-${call} ${'y'.repeat(15_000)}`, unknown: true },
    });
    await start(
      (_request, index) => (index < 6 ? { text: 'z'.repeat(5_000), toolCalls: Array.from({ length: 8 }, (_, call) => long(index, call)) } : { text: 'Done.' }),
      { maxSteps: 10 },
    );
    await answered('Where is `parseConfig` defined?');
    const sizes = model!.requests.map((request) => JSON.stringify(request.body.messages).length);
    assert.ok(sizes.length >= 7, `${sizes.length} turns`);
    // The bound is 240,000 characters of text; JSON's quoting and the instructions add a little.
    for (const size of sizes) assert.ok(size < 280_000, `a turn sent ${size} characters: ${sizes.join(', ')}`);
  });

  it("lists the files read under the repository's own name and the normalised path, however the model spelled them", async function () {
    await start([
      { toolCalls: [{ name: 'read_file', arguments: { repo: 'https://GitHub.com/ACME/app.git', path: './src//config.ts' } }] },
      { text: 'It is in src/config.ts.' },
    ]);
    const question = await answered('Where is `parseConfig` defined?');
    assert.deepEqual(
      question.sources?.map((source) => [source.metadata?.repoName, source.label]),
      [[SAMPLE_APP_NAME, 'src/config.ts']],
    );
  });

  it('carries the earlier question and answer into a follow-up', async function () {
    await start((request) => ({ text: `Answer number ${request.body.messages.filter((message) => message.role === 'user').length}.` }));
    const first = await engine!.ask('Where are the settings read?');
    await engine!.waitUntilFinished(first.id);
    const followup = await engine!.api(`/${first.id}/questions`, { method: 'POST', body: { conversation_id: first.id, question: 'And who calls it?' } });
    assert.ok(followup.status >= 200 && followup.status < 300, followup.text);
    const finished = await engine!.waitUntilFinished(first.id);
    assert.equal(finished.questions[1]?.answer, 'Answer number 2.');
    const sent = model!.requests[1]?.body.messages.map((message) => `${message.role}: ${message.content ?? ''}`);
    assert.deepEqual(sent?.slice(1), ['user: Where are the settings read?', 'assistant: Answer number 1.', 'user: And who calls it?']);
  });

  it('stops asking the model at once when the question is cancelled', async function () {
    await start([{ delayMs: 30_000, text: 'never' }]);
    const created = await engine!.ask('Where is `parseConfig` defined?');
    await waitFor(
      async () => model!.requests.length,
      (count) => count > 0,
      { description: 'the model to be asked' },
    );
    const questionId = created.questions[0]?.id;
    const cancel = await engine!.api(`/${created.id}/questions/${questionId}/cancel`, { method: 'POST' });
    assert.ok(cancel.status < 300, cancel.text);
    const finished = await engine!.waitUntilFinished(created.id);
    assert.equal(finished.questions[0]?.error?.kind ?? finished.questions[0]?.status, 'Cancelled');
    // The engine dropped the model's connection rather than waiting the 30 s out.
    await waitFor(
      async () => model!.dropped(),
      (count) => count === 1,
      { description: 'the engine to drop the model request' },
    );
  });
});
