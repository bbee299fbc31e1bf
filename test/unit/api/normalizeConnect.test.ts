/**
 * 7.x conversation API answers into the domain model, on the shapes of the public documentation:
 * the one-of state, answer blocks, resource names, summaries — and without the fields it does not
 * promise.
 */
import assert from 'node:assert/strict';
import { isDeepSearchError } from '../../../src/api/errors';
import { connectState, normalizeConnectConversation, normalizeConnectSummaryPage } from '../../../src/api/normalizeConnect';

const minimal = {
  name: 'users/~self/conversations/140',
  state: { processing: {} },
  createTime: '2026-08-01T10:00:00Z',
  updateTime: '2026-08-01T10:00:05Z',
  title: 'Where is the poller?',
  url: 'https://sourcegraph.example.com/deepsearch/abc',
  questions: [
    {
      input: [{ question: { text: 'Where is the poller?' } }],
      answer: [{ markdown: { text: 'In `poller.ts`.' } }, { markdown: { text: 'It backs off.' } }],
      createTime: '2026-08-01T10:00:00Z',
    },
    { input: [{ question: { text: 'And the store?' } }], createTime: '2026-08-01T10:00:04Z' },
  ],
};

describe('normalizing the 7.x conversation API', () => {
  it('reads a conversation of the documented shape: id from the name, positions as question ids, blocks joined', () => {
    const conversation = normalizeConnectConversation(minimal);
    assert.equal(conversation.id, 140);
    assert.equal(conversation.title, 'Where is the poller?');
    assert.equal(conversation.webUrl, 'https://sourcegraph.example.com/deepsearch/abc');
    assert.deepEqual(
      conversation.questions.map((question) => question.id),
      [1, 2],
    );
    assert.equal(conversation.questions[0]?.answer, 'In `poller.ts`.\n\nIt backs off.');
    assert.equal(conversation.questions[0]?.state, 'completed', 'an earlier question with an answer is finished');
    assert.equal(conversation.questions[1]?.state, 'processing', "the latest question has the conversation's state");
    assert.equal(conversation.questions[1]?.text, 'And the store?');
    assert.deepEqual(conversation.questions[1]?.sources, []);
    assert.deepEqual(conversation.questions[1]?.suggestedFollowups, []);
  });

  it('ends an earlier question that has neither an answer nor a state of its own: only the latest can run', () => {
    const conversation = normalizeConnectConversation({
      ...minimal,
      state: { completed: {} },
      questions: [
        { input: [{ question: { text: 'Cancelled before an answer' } }] },
        { input: [{ question: { text: 'Answered' } }], answer: [{ markdown: { text: 'Yes.' } }] },
      ],
    });
    assert.deepEqual(
      conversation.questions.map((question) => question.state),
      ['failed', 'completed'],
    );
    assert.equal(conversation.questions[0]?.error?.title, 'This question ended without an answer');
  });

  it('maps every error code of the state, with the retry time in both spellings', () => {
    const cases: Array<[object, string, string | undefined]> = [
      [{ error: { code: 'ERROR_QUOTA_EXCEEDED', message: 'Quota used', retryTime: '2026-08-02T00:00:00Z' } }, 'QuotaExceeded', '2026-08-02T00:00:00Z'],
      [{ error: { code: 'ERROR_QUOTA_EXCEEDED', message: 'Quota used', retry_time: '2026-08-03T00:00:00Z' } }, 'QuotaExceeded', '2026-08-03T00:00:00Z'],
      [{ error: { code: 'ERROR_ENTITLEMENT_EXCEEDED', message: 'Plan' } }, 'EntitlementExceeded', undefined],
      [{ error: { code: 'ERROR_TOKEN_LIMIT_EXCEEDED', message: 'Too long' } }, 'TokenLimitExceeded', undefined],
      [{ error: { code: 'ERROR_INTERNAL', message: 'Oops' } }, 'InternalError', undefined],
      [{ error: { code: 'ERROR_SOMETHING_NEW', message: 'New' } }, 'ERROR_SOMETHING_NEW', undefined],
    ];
    for (const [state, kind, retryAt] of cases) {
      const reading = connectState(state);
      assert.equal(reading.state, 'failed');
      assert.equal(reading.error?.kind, kind);
      assert.equal(reading.error?.retryAt, retryAt);
      assert.ok(reading.error?.title, 'a title a person can read');
    }
    assert.equal(connectState({ error: { code: 'ERROR_QUOTA_EXCEEDED', retryTime: 'not a date' } }).error?.retryAt, undefined);
    assert.equal(connectState({ canceled: {} }).state, 'canceled');
    assert.equal(connectState({ completed: {} }).state, 'completed');
    assert.equal(connectState({ somethingNew: {} }).state, 'processing', 'an unknown state keeps polling');
  });

  it('uses the fields the documentation does not promise when a server sends them', () => {
    const rich = {
      ...minimal,
      state: { completed: {} },
      questions: [
        {
          ...minimal.questions[0],
          state: { completed: {} },
          title: 'The poller',
          sources: [{ type: 'FileDiff', link: '/github.com/acme/app/-/blob/poller.ts', label: 'poller.ts' }],
          turns: [{ role: 'assistant', reasoning: 'Looking', time: '2026-08-01T10:00:01Z' }],
          suggestedFollowups: ['How long does it wait?'],
          stats: { timeMillis: 1200, toolCalls: 3 },
        },
      ],
    };
    const question = normalizeConnectConversation(rich).questions[0];
    assert.equal(question.title, 'The poller');
    assert.equal(question.sources[0]?.label, 'poller.ts');
    assert.equal(question.turns[0]?.time, Date.parse('2026-08-01T10:00:01Z'));
    assert.deepEqual(question.suggestedFollowups, ['How long does it wait?']);
    assert.equal(question.stats.toolCalls, 3);
  });

  it('reads summaries as list entries whose questions are not loaded, with the next page token', () => {
    const page = normalizeConnectSummaryPage({
      conversationSummaries: [{ name: 'users/~self/conversations/7', title: 'Seven', createTime: '2026-08-01T00:00:00Z', updateTime: '2026-08-01T00:01:00Z' }],
      nextPageToken: 'abc',
    });
    assert.equal(page.nextCursor, 'abc');
    assert.deepEqual(
      page.conversations.map((conversation) => [conversation.id, conversation.title, conversation.summaryOnly, conversation.questions.length]),
      [[7, 'Seven', true, 0]],
    );
    assert.equal(normalizeConnectSummaryPage({ conversationSummaries: [] }).nextCursor, undefined);
  });

  it('refuses what is not a conversation, and a web URL that is not http(s)', () => {
    for (const bad of [
      null,
      [],
      { ...minimal, name: 'conversations/1' },
      { ...minimal, name: 'users/~self/conversations/x' },
      { ...minimal, state: undefined },
    ]) {
      assert.throws(
        () => normalizeConnectConversation(bad),
        (error: unknown) => isDeepSearchError(error) && error.kind === 'invalidResponse',
      );
    }
    assert.equal(normalizeConnectConversation({ ...minimal, url: 'javascript:alert(1)' }).webUrl, undefined);
  });
});
