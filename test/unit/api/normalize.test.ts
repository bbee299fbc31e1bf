import assert from 'node:assert/strict';
import { DeepSearchError } from '../../../src/api/errors';
import { emptyStats, isUnfinished } from '../../../src/model/conversation';
import { normalizeConversation, normalizeConversationPage, normalizeFollowupResponse, normalizeQuestion } from '../../../src/api/normalize';
import { completedConversation, conversationWithId, firstQuestion, HOST, processingConversation, READ_TOKEN } from './samples';

function assertInvalidResponse(run: () => unknown): void {
  assert.throws(run, (error: unknown) => error instanceof DeepSearchError && error.kind === 'invalidResponse');
}

describe('normalize', () => {
  describe('conversations', () => {
    it('reads the documented processing conversation (id 140, question 163)', () => {
      const conversation = normalizeConversation(processingConversation());
      assert.equal(conversation.id, 140);
      assert.equal(conversation.questions.length, 1);
      const question = conversation.questions[0];
      assert.equal(question.id, 163);
      assert.equal(question.conversationId, 140);
      assert.equal(question.state, 'processing');
      assert.deepEqual(question.turns, [{ role: 'user', reasoning: question.text, time: 1758708000 * 1000 }]);
      assert.deepEqual(question.stats, emptyStats());
      assert.deepEqual(question.suggestedFollowups, []);
      assert.deepEqual(question.sources, []);
      assert.equal(question.answer, undefined);
      assert.equal(question.error, undefined);
      assert.equal(conversation.readToken, READ_TOKEN);
      assert.equal(conversation.isOwner, undefined);
      assert.equal(conversation.quota, undefined);
      assert.ok(isUnfinished(conversation));
    });

    it('reads the documented completed conversation with answer, sources, stats, viewer, quota and share URL', () => {
      const conversation = normalizeConversation(completedConversation());
      const question = conversation.questions[0];
      assert.equal(question.state, 'completed');
      assert.equal(question.title, 'Search indexer and large repositories');
      assert.match(question.answer!, new RegExp(`\\(${HOST}/github.com/org/repo/-/blob/README.md\\)`));
      assert.deepEqual(question.sources, [{ type: 'Repository', link: '/github.com/org/repo', label: 'github.com/org/repo', repoName: 'github.com/org/repo' }]);
      assert.equal(question.stats.timeMillis, 90000);
      assert.equal(question.stats.toolCalls, 7);
      assert.equal(question.stats.totalTokens, 12900);
      assert.equal(question.stats.credits, 4);
      assert.deepEqual(question.suggestedFollowups, ['How are shards merged?', 'Where is the shard size configured?']);
      assert.equal(conversation.isOwner, true);
      assert.equal(conversation.quota!.limit, undefined, 'quota_limit -1 means no limit');
      assert.deepEqual(conversation.quota, { total: 0, resetTime: '2025-10-01T00:00:00Z' });
      assert.equal(conversation.shareUrl, `${HOST}/deepsearch/${READ_TOKEN}`);
      assert.equal(isUnfinished(conversation), false);
    });

    it('keeps a real quota limit', () => {
      const wire = completedConversation();
      wire.quota_usage = { total_quota: 12, quota_limit: 100, reset_time: '2025-10-01T00:00:00Z' };
      assert.deepEqual(normalizeConversation(wire).quota, { total: 12, limit: 100, resetTime: '2025-10-01T00:00:00Z' });
    });

    it('reports viewer.is_owner false as a read-only view', () => {
      const wire = completedConversation();
      wire.viewer = { is_owner: false };
      assert.equal(normalizeConversation(wire).isOwner, false);
    });

    it('accepts ids that arrive as numeric strings', () => {
      const wire = processingConversation();
      wire.id = '140';
      wire.user_id = '7';
      firstQuestion(wire).id = '163';
      firstQuestion(wire).conversation_id = '140';
      const conversation = normalizeConversation(wire);
      assert.equal(conversation.id, 140);
      assert.equal(conversation.userId, 7);
      assert.equal(conversation.questions[0].id, 163);
      assert.equal(conversation.questions[0].conversationId, 140);
    });

    it('tolerates missing optional fields', () => {
      const conversation = normalizeConversation({
        id: 5,
        questions: [{ id: 6, question: 'Why?', status: 'processing' }],
      });
      assert.equal(conversation.createdAt, '');
      assert.equal(conversation.readToken, undefined);
      assert.equal(conversation.shareUrl, undefined);
      const question = conversation.questions[0];
      assert.equal(question.conversationId, 5, 'the question inherits the conversation id');
      assert.deepEqual(question.turns, []);
      assert.deepEqual(question.sources, []);
      assert.deepEqual(question.stats, emptyStats());
      assert.deepEqual(question.suggestedFollowups, []);
    });

    it('fills stats that some servers leave out with zero', () => {
      const wire = processingConversation();
      firstQuestion(wire).stats = { tool_calls: 3 };
      const stats = normalizeConversation(wire).questions[0].stats;
      assert.equal(stats.toolCalls, 3);
      assert.equal(stats.totalTokens, 0);
    });

    it('ignores unknown extra fields', () => {
      const wire = completedConversation();
      wire.some_future_field = { nested: true };
      firstQuestion(wire).another_field = [1, 2, 3];
      const conversation = normalizeConversation(wire);
      assert.deepEqual(conversation, normalizeConversation(completedConversation()));
      assert.equal(Object.hasOwn(conversation, 'some_future_field'), false);
    });

    it('reads the starred flag when a server sends it', () => {
      const wire = completedConversation();
      wire.starred = true;
      assert.equal(normalizeConversation(wire).starred, true);
    });

    it('keeps agent turns of any role and converts their Unix seconds to milliseconds', () => {
      const wire = processingConversation();
      firstQuestion(wire).turns = [
        { role: 'user', reasoning: 'Q', timestamp: 1758708000 },
        { role: 'assistant', reasoning: 'Looking at the indexer…', timestamp: 1758708005 },
        { role: 'tool', reasoning: 'sg_keyword_search', timestamp: 1758708006 },
      ];
      const turns = normalizeConversation(wire).questions[0].turns;
      assert.deepEqual(
        turns.map((turn) => [turn.role, turn.time]),
        [
          ['user', 1758708000000],
          ['assistant', 1758708005000],
          ['tool', 1758708006000],
        ],
      );
    });
  });

  describe('question states', () => {
    it('treats status failed as failed, with a default error when none is sent', () => {
      const wire = completedConversation();
      Object.assign(firstQuestion(wire), { status: 'failed', answer: undefined });
      const question = normalizeConversation(wire).questions[0];
      assert.equal(question.state, 'failed');
      assert.equal(question.error!.kind, '', 'no kind is invented');
      assert.ok(question.error!.title);
    });

    it('treats status failed with an error as failed and keeps the error', () => {
      const wire = processingConversation();
      Object.assign(firstQuestion(wire), {
        status: 'failed',
        error: { title: 'Internal error', kind: 'InternalError', message: 'The agent crashed', details: 'trace 42' },
      });
      const question = normalizeConversation(wire).questions[0];
      assert.equal(question.state, 'failed');
      assert.deepEqual(question.error, { kind: 'InternalError', title: 'Internal error', message: 'The agent crashed', details: 'trace 42' });
    });

    for (const kind of ['TokenLimitExceeded', 'RateLimitExceeded', 'InternalError']) {
      it(`treats completed + error of kind ${kind} as failed, not as an answer`, () => {
        const wire = processingConversation();
        Object.assign(firstQuestion(wire), { status: 'completed', error: { kind, message: `${kind} happened` } });
        const question = normalizeConversation(wire).questions[0];
        assert.equal(question.state, 'failed');
        assert.equal(question.error!.kind, kind);
        assert.equal(question.error!.message, `${kind} happened`);
        assert.ok(question.error!.title, 'a title is filled in when the server sends none');
        assert.equal(isUnfinished(normalizeConversation(wire)), false);
      });
    }

    it('treats completed + error of kind Cancelled as canceled', () => {
      const wire = processingConversation();
      Object.assign(firstQuestion(wire), { status: 'completed', error: { title: 'Cancelled', kind: 'Cancelled', message: 'The user cancelled' } });
      const question = normalizeConversation(wire).questions[0];
      assert.equal(question.state, 'canceled');
      assert.equal(question.error!.kind, 'Cancelled');
    });

    for (const status of ['canceled', 'cancelled']) {
      it(`treats status ${status} as canceled`, () => {
        const wire = processingConversation();
        firstQuestion(wire).status = status;
        const question = normalizeConversation(wire).questions[0];
        assert.equal(question.state, 'canceled');
        assert.equal(question.error, undefined);
      });
    }

    it('treats completed with error null as a normal answer', () => {
      const wire = completedConversation();
      firstQuestion(wire).error = null;
      assert.equal(normalizeConversation(wire).questions[0].state, 'completed');
    });

    it('reads pending as pending', () => {
      const wire = processingConversation();
      firstQuestion(wire).status = 'pending';
      assert.equal(normalizeConversation(wire).questions[0].state, 'pending');
    });

    it('keeps polling a question whose status it does not know', () => {
      const wire = processingConversation();
      firstQuestion(wire).status = 'thinking_hard';
      assert.equal(normalizeConversation(wire).questions[0].state, 'processing');
    });
  });

  describe('sources', () => {
    it('fills repository, revision and path from metadata sent by older servers', () => {
      const wire = completedConversation();
      firstQuestion(wire).sources = [
        {
          type: 'File',
          link: '/github.com/org/repo@abc123/-/blob/cmd/main.go',
          label: 'main.go',
          metadata: { abbreviatedRevision: 'abc123', basePath: 'cmd/main.go', repoName: 'github.com/org/repo', revision: 'abc123def456' },
        },
      ];
      const [source] = normalizeConversation(wire).questions[0].sources;
      assert.deepEqual(source, {
        type: 'File',
        link: '/github.com/org/repo@abc123/-/blob/cmd/main.go',
        label: 'main.go',
        repoName: 'github.com/org/repo',
        revision: 'abc123def456',
        path: 'cmd/main.go',
      });
    });

    it('parses repository, revision and path from the link when there is no metadata', () => {
      const wire = completedConversation();
      firstQuestion(wire).sources = [
        { type: 'File', link: '/github.com/org/repo@v1.2/-/blob/src/a%20b.ts?L10-20', label: 'a b.ts' },
        { type: 'Repository', link: `${HOST}/gitlab.com/team/tool`, label: 'gitlab.com/team/tool' },
      ];
      const [file, repo] = normalizeConversation(wire).questions[0].sources;
      assert.equal(file.repoName, 'github.com/org/repo');
      assert.equal(file.revision, 'v1.2');
      assert.equal(file.path, 'src/a b.ts');
      assert.equal(repo.repoName, 'gitlab.com/team/tool');
      assert.equal(repo.revision, undefined);
      assert.equal(repo.path, undefined);
    });

    it('skips source entries that are not objects', () => {
      const wire = completedConversation();
      firstQuestion(wire).sources = [null, 'x', { type: 'Repository', link: '/r', label: 'r' }];
      assert.equal(normalizeConversation(wire).questions[0].sources.length, 1);
    });
  });

  describe('lists', () => {
    const three = () => [conversationWithId(3), conversationWithId(2), conversationWithId(1)];

    it('reads a bare array', () => {
      const page = normalizeConversationPage(three());
      assert.deepEqual(
        page.conversations.map((conversation) => conversation.id),
        [3, 2, 1],
      );
      assert.equal(page.nextCursor, undefined);
    });

    it('reads {conversations: [...]}', () => {
      const page = normalizeConversationPage({ conversations: three(), total: 3 });
      assert.deepEqual(
        page.conversations.map((conversation) => conversation.id),
        [3, 2, 1],
      );
    });

    it('uses the last id as the cursor when a page without a cursor is full', () => {
      assert.equal(normalizeConversationPage(three(), 3).nextCursor, '1');
      assert.equal(normalizeConversationPage({ conversations: three() }, 3).nextCursor, '1');
    });

    it('has no next cursor when a page without a cursor is short', () => {
      assert.equal(normalizeConversationPage(three(), 5).nextCursor, undefined);
    });

    const cursorShapes: Array<[string, Record<string, unknown>]> = [
      ['next_cursor', { next_cursor: 'abc' }],
      ['nextCursor', { nextCursor: 'abc' }],
      ['page_info.end_cursor', { page_info: { end_cursor: 'abc', has_next_page: true } }],
      ['pageInfo.endCursor', { pageInfo: { endCursor: 'abc', hasNextPage: true } }],
    ];
    for (const [name, shape] of cursorShapes) {
      it(`reads the cursor from ${name}`, () => {
        assert.equal(normalizeConversationPage({ conversations: three(), ...shape }, 3).nextCursor, 'abc');
      });
    }

    it('trusts a wrapped list that says there is no next page', () => {
      assert.equal(normalizeConversationPage({ conversations: three(), next_cursor: null }, 3).nextCursor, undefined);
      assert.equal(normalizeConversationPage({ conversations: three(), page_info: { end_cursor: 'x', has_next_page: false } }, 3).nextCursor, undefined);
    });

    it('rejects a list that is neither an array nor wrapped', () => {
      assertInvalidResponse(() => normalizeConversationPage({ items: [] }));
      assertInvalidResponse(() => normalizeConversationPage('<html>'));
    });
  });

  describe('follow-ups', () => {
    it('reads a follow-up answered with the new Question alone', () => {
      const answer = normalizeFollowupResponse(
        { id: 164, conversation_id: 140, question: 'And small ones?', status: 'processing', suggested_followups: null },
        140,
      );
      assert.equal(answer.kind, 'question');
      assert.equal(answer.kind === 'question' && answer.question.id, 164);
    });

    it('reads a follow-up answered with the whole Conversation', () => {
      const wire = completedConversation();
      (wire.questions as unknown[]).push({ id: 164, conversation_id: 140, question: 'And small ones?', status: 'processing' });
      const answer = normalizeFollowupResponse(wire, 140);
      assert.equal(answer.kind, 'conversation');
      assert.deepEqual(answer.kind === 'conversation' && answer.conversation.questions.map((question) => question.id), [163, 164]);
    });

    it('rejects a follow-up question that belongs to another conversation', () => {
      assertInvalidResponse(() => normalizeFollowupResponse({ id: 164, conversation_id: 999, question: 'x', status: 'processing' }, 140));
    });
  });

  describe('garbage', () => {
    const garbage: Array<[string, unknown]> = [
      ['null', null],
      ['a string', 'Service Unavailable'],
      ['a number', 42],
      ['an array', []],
      ['an object without id', { questions: [] }],
      ['an id that is not a number', { id: 'abc', questions: [] }],
      ['questions that are not a list', { id: 1, questions: 'none' }],
      ['a question that is not an object', { id: 1, questions: [7] }],
      ['a question without id', { id: 1, questions: [{ status: 'completed' }] }],
    ];
    for (const [name, value] of garbage) {
      it(`rejects ${name} as an invalid response`, () => {
        assertInvalidResponse(() => normalizeConversation(value));
      });
    }

    it('rejects a question that does not know its conversation', () => {
      assertInvalidResponse(() => normalizeQuestion({ id: 1, status: 'processing' }));
    });
  });
});
