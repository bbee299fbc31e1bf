import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WireConversation, WireErrorBody, WireQuestion } from '../../../src/contract/legacyWire';
import { startTestEngine, type TestEngine } from '../../support/engineHarness';

describe('engine: follow-ups', function () {
  let engine: TestEngine;
  before(async function () {
    engine = await startTestEngine();
  });
  after(async function () {
    await engine?.dispose();
  });

  it('adds a processing follow-up, answers it, and returns the new Question by default', async function () {
    const created = await engine.ask('Where is `parseConfig` defined?');
    const first = await engine.waitUntilFinished(created.id);
    const response = await engine.api<WireQuestion>(`/${created.id}/questions`, {
      method: 'POST',
      body: { conversation_id: created.id, question: 'Where is `loadConfig` used?' },
    });
    assert.equal(response.status, 200);
    const question = response.json;
    assert.equal(question.conversation_id, created.id);
    assert.equal(question.status, 'processing');
    assert.equal(question.question, 'Where is `loadConfig` used?');
    assert.deepEqual(
      question.turns?.map((turn) => turn.role),
      ['user'],
    );
    assert.equal(question.suggested_followups, null);
    assert.ok(question.id > (first.questions[0]?.id ?? 0));

    const finished = await engine.waitUntilFinished(created.id);
    assert.deepEqual(
      finished.questions.map((q) => q.status),
      ['completed', 'completed'],
    );
    assert.match(finished.questions[1]?.answer ?? '', /`loadConfig`/);
    assert.ok(finished.updated_at > first.updated_at);
  });

  it("searches the earlier question's terms when a follow-up names none", async function () {
    const created = await engine.ask('Where is `retry_with_backoff` defined?');
    await engine.waitUntilFinished(created.id);
    await engine.api(`/${created.id}/questions`, { method: 'POST', body: { conversation_id: created.id, question: 'And why?' } });
    const finished = await engine.waitUntilFinished(created.id);
    assert.match(finished.questions[1]?.answer ?? '', /lib\/retry_policy\.py/);
  });

  it("answers 400 when the body's conversation_id is missing or differs from the path", async function () {
    const created = await engine.ask('Where is `startServer` defined?');
    await engine.waitUntilFinished(created.id);
    for (const body of [{ question: 'More?' }, { conversation_id: created.id + 1000, question: 'More?' }]) {
      const response = await engine.api<WireErrorBody>(`/${created.id}/questions`, { method: 'POST', body });
      assert.equal(response.status, 400);
      assert.match(response.json.error, /conversation_id .* must equal the conversation id in the path/);
    }
  });

  it('answers 409 while a question of the conversation is still processing', async function () {
    const slow = await startTestEngine({ paceMs: 400 });
    try {
      const created = await slow.ask('Where is `parseConfig` defined?');
      const response = await slow.api<WireErrorBody>(`/${created.id}/questions`, {
        method: 'POST',
        body: { conversation_id: created.id, question: 'And `loadConfig`?' },
      });
      assert.equal(response.status, 409);
      assert.match(response.json.error, /still answering question \d+: wait until it completes, or cancel it/);
    } finally {
      await slow.dispose();
    }
  });

  it('returns the whole Conversation when the variant says so', async function () {
    const variant = await startTestEngine({ variant: { followupReturns: 'conversation' } });
    try {
      const created = await variant.ask('Where is `parseConfig` defined?');
      await variant.waitUntilFinished(created.id);
      const response = await variant.api<WireConversation>(`/${created.id}/questions`, {
        method: 'POST',
        body: { conversation_id: created.id, question: 'Where is `ConfigError` thrown?' },
      });
      assert.equal(response.status, 200);
      assert.equal(response.json.id, created.id);
      assert.deepEqual(
        response.json.questions.map((q) => q.status),
        ['completed', 'processing'],
      );
    } finally {
      await variant.dispose();
    }
  });
});

describe('engine: cancelling', function () {
  let engine: TestEngine;
  before(async function () {
    engine = await startTestEngine({ paceMs: 300 });
  });
  after(async function () {
    await engine?.dispose();
  });

  it('stops a processing question: completed with a Cancelled error, and no turn after it', async function () {
    const created = await engine.ask('Where is `parseConfig` defined?');
    const questionId = created.questions[0]?.id;
    const response = await engine.api<WireConversation>(`/${created.id}/questions/${questionId}/cancel`, { method: 'POST' });
    assert.equal(response.status, 200);
    const cancelled = response.json.questions[0];
    assert.equal(cancelled?.status, 'completed');
    assert.equal(cancelled?.error?.kind, 'Cancelled');
    assert.equal(typeof cancelled?.error?.title, 'string');
    assert.equal(typeof cancelled?.error?.message, 'string');
    assert.equal(cancelled?.answer, undefined);
    assert.deepEqual(response.json.viewer, { is_owner: true });
    assert.ok(response.json.updated_at > created.updated_at);

    // Three paces is three more steps the answerer would have taken had it not been stopped.
    await sleep(900);
    const later = await engine.api<WireConversation>(`/${created.id}`);
    assert.deepEqual(later.json.questions[0]?.turns, cancelled?.turns);
    assert.equal(later.json.updated_at, response.json.updated_at);
  });

  it('leaves a finished question as it is (200, no change)', async function () {
    const fast = await startTestEngine();
    try {
      const created = await fast.ask('Where is `parseConfig` defined?');
      const finished = await fast.waitUntilFinished(created.id);
      const response = await fast.api<WireConversation>(`/${created.id}/questions/${created.questions[0]?.id}/cancel`, { method: 'POST' });
      assert.equal(response.status, 200);
      assert.deepEqual(response.json, finished);
    } finally {
      await fast.dispose();
    }
  });

  it('answers 404 for a question id the conversation does not have', async function () {
    const created = await engine.ask('Where is `loadConfig` defined?');
    const response = await engine.api<WireErrorBody>(`/${created.id}/questions/987654/cancel`, { method: 'POST' });
    assert.equal(response.status, 404);
    await engine.api(`/${created.id}/questions/${created.questions[0]?.id}/cancel`, { method: 'POST' });
  });

  it('ends with status canceled in the status variant', async function () {
    const variant = await startTestEngine({ paceMs: 300, variant: { cancelStyle: 'status' } });
    try {
      const created = await variant.ask('Where is `parseConfig` defined?');
      const response = await variant.api<WireConversation>(`/${created.id}/questions/${created.questions[0]?.id}/cancel`, { method: 'POST' });
      assert.equal(response.status, 200);
      assert.equal(response.json.questions[0]?.status, 'canceled');
      assert.equal(response.json.questions[0]?.error, undefined);
    } finally {
      await variant.dispose();
    }
  });

  it('allows a follow-up once the processing question is cancelled', async function () {
    const created = await engine.ask('Where is `startServer` defined?');
    await engine.api(`/${created.id}/questions/${created.questions[0]?.id}/cancel`, { method: 'POST' });
    const response = await engine.api<WireQuestion>(`/${created.id}/questions`, {
      method: 'POST',
      body: { conversation_id: created.id, question: 'Where is `loadConfig` defined?' },
    });
    assert.equal(response.status, 200);
    await engine.api(`/${created.id}/questions/${response.json.id}/cancel`, { method: 'POST' });
  });
});

describe('engine: failing questions', function () {
  const failWhen = (text: string) =>
    text.includes('FAIL') ? { title: 'Token limit', kind: 'TokenLimitExceeded', message: 'The question used too many tokens.' } : undefined;

  it('ends a question the fault hook fails as completed with that error by default', async function () {
    const engine = await startTestEngine({ faults: { question: failWhen } });
    try {
      const created = await engine.ask('FAIL please');
      assert.equal(created.questions[0]?.status, 'processing');
      const finished = await engine.waitUntilFinished(created.id);
      const question = finished.questions[0];
      assert.equal(question?.status, 'completed');
      assert.deepEqual(question?.error, { title: 'Token limit', kind: 'TokenLimitExceeded', message: 'The question used too many tokens.' });
      assert.equal(question?.answer, undefined);
      const fine = await engine.waitUntilFinished((await engine.ask('Where is `parseConfig` defined?')).id);
      assert.equal(fine.questions[0]?.error, undefined);
    } finally {
      await engine.dispose();
    }
  });

  it('ends it with status failed (and the error) in the status variant', async function () {
    const engine = await startTestEngine({ faults: { question: failWhen }, variant: { failureStyle: 'status' } });
    try {
      const finished = await engine.waitUntilFinished((await engine.ask('FAIL now')).id);
      assert.equal(finished.questions[0]?.status, 'failed');
      assert.equal(finished.questions[0]?.error?.kind, 'TokenLimitExceeded');
    } finally {
      await engine.dispose();
    }
  });

  it('fails a question with InternalError when answering throws unexpectedly, and keeps serving', async function () {
    const lines: string[] = [];
    const engine = await startTestEngine({
      log: (line) => lines.push(line),
      faults: {
        question: (text) => {
          if (text.includes('explode')) throw new Error('boom in the answerer');
          return undefined;
        },
      },
    });
    try {
      const finished = await engine.waitUntilFinished((await engine.ask('explode')).id);
      const question = finished.questions[0];
      assert.equal(question?.status, 'completed');
      assert.equal(question?.error?.kind, 'InternalError');
      assert.match(question?.error?.message ?? '', /boom in the answerer/);
      assert.ok(lines.some((line) => line.includes('boom in the answerer')));
      const next = await engine.waitUntilFinished((await engine.ask('Where is `parseConfig` defined?')).id);
      assert.equal(next.questions[0]?.status, 'completed');
    } finally {
      await engine.dispose();
    }
  });
});
