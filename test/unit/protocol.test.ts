/**
 * The host trusts nothing from the webview: every message is checked before the host acts on it;
 * after a snapshot only the questions that changed are sent.
 */
import assert from 'node:assert/strict';
import { emptyStats, type Conversation, type Question } from '../../src/model/conversation';
import { changedQuestions, isWebviewMessage, type WebviewMessage } from '../../src/protocol';

function question(id: number, overrides: Partial<Question> = {}): Question {
  return {
    id,
    conversationId: 7,
    text: `Question ${id}`,
    createdAt: '2025-01-01T00:00:00Z',
    updatedAt: '2025-01-01T00:00:00Z',
    state: 'processing',
    sources: [],
    turns: [],
    stats: emptyStats(),
    suggestedFollowups: [],
    ...overrides,
  };
}

function conversation(questions: Question[]): Conversation {
  return { id: 7, questions, createdAt: '2025-01-01T00:00:00Z', updatedAt: '2025-01-01T00:00:00Z' };
}

describe('isWebviewMessage', () => {
  const valid: WebviewMessage[] = [
    { type: 'ready' },
    { type: 'askFollowup', requestId: 1, text: 'And then?' },
    { type: 'askFollowup', requestId: 2, text: '' },
    { type: 'cancel', requestId: 3, questionId: 3 },
    { type: 'openLink', href: '/github.com/acme/app/-/blob/a.ts?L1' },
    { type: 'copyText', text: 'const x = 1;' },
    { type: 'action', action: 'copyShareLink' },
    { type: 'action', action: 'openInBrowser' },
    { type: 'action', action: 'export' },
    { type: 'action', action: 'delete' },
  ];
  for (const message of valid) {
    it(`accepts ${JSON.stringify(message)}`, () => {
      assert.equal(isWebviewMessage(message), true);
    });
  }

  it('accepts a valid message with extra fields', () => {
    assert.equal(isWebviewMessage({ type: 'ready', extra: 1 }), true);
  });

  it('rejects values that are not objects', () => {
    for (const value of [undefined, null, 0, 1, true, 'ready', '{"type":"ready"}', Symbol('ready'), () => undefined]) {
      assert.equal(isWebviewMessage(value), false, String(typeof value));
    }
  });

  it('rejects objects without a string type, and unknown types', () => {
    for (const value of [
      {},
      [],
      { type: 1 },
      { type: null },
      { type: ['ready'] },
      { type: 'READY' },
      { type: 'navigate', href: 'x' },
      { type: '' },
      { type: 'toString' },
      { type: '__proto__' },
    ]) {
      assert.equal(isWebviewMessage(value), false, JSON.stringify(value));
    }
  });

  it('rejects messages with a missing or wrongly typed field', () => {
    for (const value of [
      { type: 'askFollowup' },
      { type: 'askFollowup', requestId: 1, text: 42 },
      { type: 'askFollowup', requestId: 1, text: null },
      { type: 'askFollowup', text: 'no request id' },
      { type: 'askFollowup', requestId: '1', text: 'a string id' },
      { type: 'askFollowup', requestId: 0, text: 'ids start at 1' },
      { type: 'askFollowup', requestId: 1.5, text: 'a fraction' },
      { type: 'cancel' },
      { type: 'cancel', requestId: 1, questionId: '3' },
      { type: 'cancel', questionId: 3 },
      { type: 'openLink' },
      { type: 'openLink', href: { toString: () => 'https://evil.example' } },
      { type: 'copyText' },
      { type: 'copyText', text: ['a'] },
      { type: 'action' },
      { type: 'action', action: 5 },
    ]) {
      assert.equal(isWebviewMessage(value), false, JSON.stringify(value));
    }
  });

  it('rejects unknown actions', () => {
    for (const action of ['deleteAll', 'Delete', '', 'runCommand', 'toString']) {
      assert.equal(isWebviewMessage({ type: 'action', action }), false, action);
    }
  });
});

describe('changedQuestions', () => {
  it('returns every question when there was nothing before', () => {
    const next = conversation([question(1), question(2)]);
    assert.deepEqual(
      changedQuestions(undefined, next).map((q) => q.id),
      [1, 2],
    );
  });

  it('returns nothing when nothing changed', () => {
    const previous = conversation([question(1, { state: 'completed', answer: 'A' }), question(2)]);
    assert.deepEqual(changedQuestions(previous, structuredClone(previous)), []);
  });

  it('returns only the questions that changed', () => {
    const previous = conversation([question(1, { state: 'completed', answer: 'A' }), question(2)]);
    const next = conversation([
      question(1, { state: 'completed', answer: 'A' }),
      question(2, { turns: [{ role: 'assistant', reasoning: 'Searching…', time: 1 }] }),
    ]);
    const changed = changedQuestions(previous, next);
    assert.deepEqual(
      changed.map((q) => q.id),
      [2],
    );
    assert.equal(changed[0], next.questions[1], 'the new version is returned');
  });

  it('returns an added follow-up', () => {
    const previous = conversation([question(1, { state: 'completed' })]);
    const next = conversation([question(1, { state: 'completed' }), question(2)]);
    assert.deepEqual(
      changedQuestions(previous, next).map((q) => q.id),
      [2],
    );
  });

  it('notices a change in any field, including nested ones', () => {
    const previous = conversation([question(1)]);
    for (const change of [
      { state: 'completed' as const },
      { answer: 'Now answered' },
      { sources: [{ type: 'repository', link: '/github.com/acme/app', label: 'app' }] },
      { stats: { ...emptyStats(), toolCalls: 1 } },
      { suggestedFollowups: ['What next?'] },
    ]) {
      assert.deepEqual(
        changedQuestions(previous, conversation([question(1, change)])).map((q) => q.id),
        [1],
        JSON.stringify(change),
      );
    }
  });
});
