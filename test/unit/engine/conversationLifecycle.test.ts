import assert from 'node:assert/strict';
import type { WireConversation, WireQuestion } from '../../../src/contract/legacyWire';
import { startTestEngine, waitFor, type TestEngine } from '../../support/engineHarness';
import { SAMPLE_APP_FILES, SAMPLE_APP_NAME } from '../../support/gitRepos';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const STAT_NAMES = [
  'time_millis',
  'tool_calls',
  'total_input_tokens',
  'cached_tokens',
  'cache_creation_input_tokens',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'credits',
];

function onlyQuestion(conversation: WireConversation): WireQuestion {
  assert.equal(conversation.questions.length, 1);
  const question = conversation.questions[0];
  assert.ok(question);
  return question;
}

describe('engine: a conversation from creation to answer', function () {
  let engine: TestEngine;
  before(async function () {
    engine = await startTestEngine();
  });
  after(async function () {
    await engine?.dispose();
  });

  it('answers a create at once with a processing question, one user turn, zeroed stats and null follow-ups', async function () {
    const before = Math.floor(Date.now() / 1000);
    const response = await engine.api<WireConversation>('/', { method: 'POST', body: { question: 'Where is `parseConfig` defined?' } });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    const conversation = response.json;
    const question = onlyQuestion(conversation);
    assert.equal(question.status, 'processing');
    assert.equal(question.question, 'Where is `parseConfig` defined?');
    assert.equal(question.conversation_id, conversation.id);
    assert.equal(question.turns?.length, 1);
    assert.equal(question.turns?.[0]?.role, 'user');
    assert.equal(question.turns?.[0]?.reasoning, 'Where is `parseConfig` defined?');
    assert.ok((question.turns?.[0]?.timestamp ?? 0) >= before);
    assert.deepEqual(Object.keys(question.stats ?? {}).sort(), [...STAT_NAMES].sort());
    for (const name of STAT_NAMES) assert.equal((question.stats as Record<string, number>)[name], 0, name);
    assert.equal(question.suggested_followups, null);
    assert.equal(conversation.user_id, 1);
    assert.match(conversation.read_token ?? '', UUID);
    assert.equal(conversation.share_url, `${engine.url}/deepsearch/${conversation.read_token}`);
    assert.ok(!Number.isNaN(Date.parse(conversation.created_at)));
    assert.ok(conversation.created_at.endsWith('Z'));
    assert.equal(conversation.viewer, undefined, 'no viewer while processing');
    assert.equal(conversation.quota_usage, undefined, 'no quota while processing');
  });

  it('completes with a title, a Markdown answer, file sources, follow-ups, stats, viewer and quota', async function () {
    const created = await engine.ask('Where is `parseConfig` defined?');
    const conversation = await engine.waitUntilFinished(created.id);
    const question = onlyQuestion(conversation);
    assert.equal(question.status, 'completed');
    assert.equal(question.error, undefined);
    assert.equal(question.title, 'Where is parseConfig defined');
    assert.match(question.answer ?? '', /^`parseConfig` \(\[src\/config\.ts:11\]/);
    assert.match(question.answer ?? '', /```typescript\n\/\*\* Reads the JSON settings file and checks its fields\. \*\/\nexport function parseConfig/);
    assert.equal(question.sources?.[0]?.type, 'File');
    assert.equal(question.sources?.[0]?.link, `/${SAMPLE_APP_NAME}/-/blob/src/config.ts`);
    assert.ok(Array.isArray(question.suggested_followups) && question.suggested_followups.length > 0);
    assert.ok(question.suggested_followups.includes('How is `loadConfig` reached?'), question.suggested_followups.join(' | '));
    const stats = question.stats ?? {};
    assert.ok((stats.tool_calls ?? 0) >= 2, 'git was run');
    assert.ok((stats.time_millis ?? 0) > 0);
    assert.equal(stats.total_tokens, 0, 'no model: no tokens claimed');
    assert.equal(stats.total_input_tokens, 0);
    assert.equal(stats.credits, 0);
    assert.deepEqual(conversation.viewer, { is_owner: true });
    assert.equal(conversation.quota_usage?.total_quota, 0);
    assert.equal(conversation.quota_usage?.quota_limit, -1);
    const reset = new Date(conversation.quota_usage?.reset_time ?? '');
    assert.equal(reset.getUTCDate(), 1);
    assert.ok(reset.getTime() > Date.now());
    assert.ok(conversation.updated_at > created.updated_at, 'updated_at advanced');
  });

  it('links every excerpt to instance blob URLs whose lines really contain a searched term', async function () {
    const created = await engine.ask('How does `loadConfig` read the settings?');
    const question = onlyQuestion(await engine.waitUntilFinished(created.id));
    const answer = question.answer ?? '';
    const link = new RegExp(`\\]\\((${escapeRegExp(engine.url)}/([^)]+?)/-/blob/([^?)]+)\\?L(\\d+)-(\\d+))\\)`, 'g');
    const links = [...answer.matchAll(link)];
    assert.ok(links.length >= 2, `expected blob links in:\n${answer}`);
    for (const [, , repo, encodedPath, start, end] of links) {
      assert.equal(repo, SAMPLE_APP_NAME);
      const file = SAMPLE_APP_FILES[decodeURIComponent(encodedPath ?? '')];
      assert.ok(file !== undefined, `link to an existing file: ${encodedPath}`);
      const lines = file.split('\n').slice(Number(start) - 1, Number(end));
      assert.ok(Number(start) <= Number(end) && lines.length > 0);
      assert.ok(
        lines.some((line) => /loadconfig|load|config/i.test(line)),
        `lines ${start}-${end} of ${encodedPath} mention a term`,
      );
    }
  });

  it('answers honestly when no file matches and suggests other terms', async function () {
    const created = await engine.ask('Where is `zyxwvutQuark` implemented?');
    const question = onlyQuestion(await engine.waitUntilFinished(created.id));
    assert.equal(question.status, 'completed');
    assert.match(question.answer ?? '', /no file at HEAD mentions it\./);
    assert.match(question.answer ?? '', /Try other terms/);
    assert.deepEqual(question.sources, []);
    assert.deepEqual(question.suggested_followups, []);
  });

  it('serves one question by id, and 404 for a question that is not in the conversation', async function () {
    const created = await engine.ask('What does `startServer` do?');
    const questionId = onlyQuestion(created).id;
    const found = await engine.api<WireQuestion>(`/${created.id}/questions/${questionId}`);
    assert.equal(found.status, 200);
    assert.equal(found.json.id, questionId);
    assert.equal(found.json.question, 'What does `startServer` do?');
    const missing = await engine.api<{ error: string }>(`/${created.id}/questions/999999`);
    assert.equal(missing.status, 404);
    assert.match(missing.json.error, /no question with id 999999/);
    await engine.waitUntilFinished(created.id);
  });

  it('rotates the read token, changing the share URL and advancing updated_at', async function () {
    const created = await engine.ask('Where is `ConfigError` thrown?');
    const finished = await engine.waitUntilFinished(created.id);
    const rotated = await engine.api<{ read_token: string }>(`/${created.id}/rotate-read-token`, { method: 'POST' });
    assert.equal(rotated.status, 200);
    assert.match(rotated.json.read_token, UUID);
    assert.notEqual(rotated.json.read_token, finished.read_token);
    const after = await engine.api<WireConversation>(`/${created.id}`);
    assert.equal(after.json.read_token, rotated.json.read_token);
    assert.equal(after.json.share_url, `${engine.url}/deepsearch/${rotated.json.read_token}`);
    assert.ok(after.json.updated_at > finished.updated_at);
  });
});

describe('engine: turns while processing', function () {
  let engine: TestEngine;
  before(async function () {
    engine = await startTestEngine({ paceMs: 150 });
  });
  after(async function () {
    await engine?.dispose();
  });

  it('appends assistant turns describing each step before the question completes', async function () {
    const created = await engine.ask('Where is `parseConfig` defined?');
    const midway = await waitFor(
      () => engine.api<WireConversation>(`/${created.id}`),
      (response) => (response.json.questions[0]?.turns?.length ?? 0) >= 2,
      { description: 'a second turn' },
    );
    const seen = midway.json.questions[0];
    assert.equal(seen?.status, 'processing', 'turns appear while still processing');
    assert.ok(midway.json.updated_at > created.updated_at, 'a new turn advances updated_at');

    const final = onlyQuestion(await engine.waitUntilFinished(created.id));
    const reasonings = (final.turns ?? []).map((turn) => turn.reasoning);
    assert.equal(final.turns?.[0]?.role, 'user');
    assert.ok(final.turns?.slice(1).every((turn) => turn.role === 'assistant'));
    assert.ok(
      reasonings.some((text) => /^Searching 1 repository for `parseConfig`/.test(text)),
      reasonings.join('\n'),
    );
    assert.ok(
      reasonings.some((text) => /^Reading \d+ candidate files? and their definitions: src\/config\.ts/.test(text)),
      reasonings.join('\n'),
    );
    assert.ok(reasonings.includes('Found `parseConfig` in src/config.ts'), reasonings.join('\n'));
    assert.deepEqual(
      reasonings.slice(0, seen?.turns?.length),
      seen?.turns?.map((turn) => turn.reasoning),
      'turns are only appended',
    );
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
