/**
 * Every client call against the real local engine over loopback HTTP, in each response variant
 * the engine can speak, with real git repositories behind it.
 */
import assert from 'node:assert/strict';
import { startPassThroughProxy } from '../../support/passThroughProxy';
import type { Dispatcher } from 'undici';
import { DeepSearchClient } from '../../../src/api/client';
import { conversationWebUrl } from '../../../src/api/instance';
import type { DeepSearchError } from '../../../src/api/errors';
import { createDispatcher, undiciTransport } from '../../../src/api/undiciTransport';
import { isUnfinished, type Conversation, type SortOrder } from '../../../src/model/conversation';
import { ConversationPoller, type RefreshOutcome } from '../../../src/conversations/poller';
import { WIRE_SORTS, type WireQuestionError } from '../../../src/contract/legacyWire';
import type { EngineFault, EngineVariant } from '../../../src/engine/options';
import { startTestEngine, TEST_TOKENS, TEST_USERS, waitFor, type TestEngine } from '../../support/engineHarness';
import { SAMPLE_APP_NAME } from '../../support/gitRepos';
import { everythingIn, expectError } from './expectError';
import { addFollowup, cancelQuestion, listAllConversations } from '../../support/clientCalls';

const PAGER_TOKEN = 'dse_test_pager_token';
const QUESTION = 'Where is parseConfig defined and what does it check?';
/** Questions starting with this fail with the error kind that follows (via the engine's fault hook). */
const FAIL_PREFIX = 'FAIL:';

function failureFor(text: string): WireQuestionError | undefined {
  if (!text.startsWith(FAIL_PREFIX)) return undefined;
  const kind = text.slice(FAIL_PREFIX.length).split(' ')[0];
  return { kind, title: `${kind} happened`, message: `Injected ${kind}` };
}

/** Polls through the client until no question is pending or processing. */
function untilFinished(client: DeepSearchClient, id: number): Promise<Conversation> {
  return waitFor(
    () => client.getConversation(id),
    (conversation) => !isUnfinished(conversation),
    {
      description: `conversation ${id} to finish`,
      timeoutMs: 15_000,
    },
  );
}

/** The legacy API's variants, on servers that serve only it (6.x): the 7.x API has its own suite (client.connect.test.ts). */
const VARIANTS: Array<[string, EngineVariant]> = [
  ['the default variant (200 create, bare list, Question follow-up, Cancelled error, completed + error, 204 delete)', { conversationApis: 'legacy' }],
  [
    'the other variant (202 create, wrapped list with cursor, Conversation follow-up, canceled status, failed status, 200 delete)',
    {
      conversationApis: 'legacy',
      createStatus: 202,
      listShape: 'wrapped',
      followupReturns: 'conversation',
      cancelStyle: 'status',
      failureStyle: 'status',
      deleteStatus: 200,
    },
  ],
];

describe('client against the local engine, legacy API (6.x)', () => {
  const dispatchers: Dispatcher[] = [];

  /** `legacy`: pinned to the legacy API, so that the requests seen are the call's alone (no probe for the 7.x API first). */
  function clientFor(engine: TestEngine, token: string, tokenType?: 'token' | 'bearer', conversationApi?: 'legacy'): DeepSearchClient {
    const dispatcher = createDispatcher();
    dispatchers.push(dispatcher);
    return new DeepSearchClient({
      instanceUrl: engine.url,
      token,
      tokenType,
      transport: undiciTransport(dispatcher),
      retry: { baseDelayMs: 10 },
      conversationApi,
    });
  }

  after(async () => {
    await Promise.all(dispatchers.map((dispatcher) => dispatcher.destroy()));
  });

  for (const [name, variant] of VARIANTS) {
    describe(`in ${name}`, () => {
      let engine: TestEngine;
      let owner: DeepSearchClient;
      let other: DeepSearchClient;
      let pager: DeepSearchClient;

      before(async () => {
        engine = await startTestEngine({
          variant,
          paceMs: 60,
          users: [...TEST_USERS, { token: PAGER_TOKEN, id: 3, name: 'pager' }],
          faults: { question: failureFor },
        });
        owner = clientFor(engine, TEST_TOKENS[0]);
        other = clientFor(engine, TEST_TOKENS[1]);
        pager = clientFor(engine, PAGER_TOKEN);
      });

      after(async () => {
        await engine.dispose();
      });

      it('creates a conversation that is processing at once, then completes with an answer and sources', async () => {
        const created = await owner.createConversation(QUESTION);
        assert.equal(created.questions.length, 1);
        const [question] = created.questions;
        assert.equal(question.state, 'processing');
        assert.equal(question.text, QUESTION);
        assert.deepEqual(
          question.turns.map((turn) => [turn.role, turn.reasoning]),
          [['user', QUESTION]],
        );
        assert.ok(question.turns[0].time > 1e12, 'turn time is in milliseconds');
        assert.equal(question.stats.totalTokens, 0);
        assert.ok(created.readToken);

        const done = await untilFinished(owner, created.id);
        const answered = done.questions[0];
        assert.equal(answered.state, 'completed');
        assert.ok(answered.title);
        assert.match(answered.answer!, /parseConfig/);
        assert.ok(answered.sources.some((source) => source.repoName === SAMPLE_APP_NAME));
        assert.ok(answered.stats.toolCalls > 0);
        assert.equal(done.isOwner, true);
        assert.equal(done.quota?.limit, undefined, 'the engine reports quota_limit -1: no limit');
        assert.equal(conversationWebUrl(owner.instanceUrl, done), `${engine.url}/deepsearch/${done.readToken}`);
      });

      it('adds a follow-up and returns the whole conversation with the new question', async () => {
        const first = await untilFinished(owner, (await owner.createConversation(QUESTION)).id);
        const withFollowup = await addFollowup(owner, first.id, 'Who calls loadConfig?');
        assert.deepEqual(
          withFollowup.questions.map((question) => question.text),
          [QUESTION, 'Who calls loadConfig?'],
        );
        assert.equal(withFollowup.questions[0].state, 'completed');
        assert.ok(isUnfinished(withFollowup));
        const done = await untilFinished(owner, first.id);
        assert.equal(done.questions[1].state, 'completed');
        assert.equal(done.questions[1].conversationId, first.id);
      });

      it('refuses a follow-up while a question is still processing', async () => {
        const created = await owner.createConversation(QUESTION);
        const error = await expectError(addFollowup(owner, created.id, 'And then?'), 'conflict');
        assert.match(error.message, /still answering/);
        await cancelQuestion(owner, created.id, created.questions[0].id);
      });

      it('cancels a processing question and shows it as canceled', async () => {
        const created = await owner.createConversation(QUESTION);
        const canceled = await cancelQuestion(owner, created.id, created.questions[0].id);
        assert.equal(canceled.questions[0].state, 'canceled');
        assert.equal(canceled.questions[0].answer, undefined);
        assert.equal(isUnfinished(canceled), false);
      });

      for (const kind of ['TokenLimitExceeded', 'RateLimitExceeded', 'InternalError']) {
        it(`shows a question that failed with ${kind} as failed`, async () => {
          const created = await owner.createConversation(`${FAIL_PREFIX}${kind} please`);
          const done = await untilFinished(owner, created.id);
          const question = done.questions[0];
          assert.equal(question.state, 'failed');
          assert.equal(question.error!.kind, kind);
          assert.equal(question.error!.message, `Injected ${kind}`);
        });
      }

      it('deletes a conversation', async () => {
        const created = await owner.createConversation(QUESTION);
        await owner.deleteConversation(created.id);
        await expectError(owner.getConversation(created.id), 'notFound');
        const listed = await listAllConversations(owner, { pageFirst: 100 });
        assert.ok(!listed.some((conversation) => conversation.id === created.id));
        await expectError(owner.deleteConversation(created.id), 'notFound');
      });

      it('opens a conversation shared through its read token for another user, read-only', async () => {
        const mine = await untilFinished(owner, (await owner.createConversation(QUESTION)).id);
        const shared = await other.getConversationByReadToken(mine.readToken!);
        assert.equal(shared.id, mine.id);
        assert.equal(shared.isOwner, false);
        assert.equal(shared.questions[0].answer, mine.questions[0].answer);
        await expectError(other.getConversation(mine.id), 'notFound');
        await expectError(other.deleteConversation(mine.id), 'notFound');
        await expectError(addFollowup(other, mine.id, 'Mine now?'), 'notFound');
        assert.equal((await owner.getConversation(mine.id)).questions.length, 1);
      });

      it('reports an unknown read token as not found', async () => {
        await expectError(other.getConversationByReadToken('00000000-0000-4000-8000-000000000000'), 'notFound');
      });

      it('filters by id and by user', async () => {
        const created = await owner.createConversation(QUESTION);
        const byId = await owner.listConversations({ filterId: created.id });
        assert.deepEqual(
          byId.conversations.map((conversation) => conversation.id),
          [created.id],
        );
        const byUser = await listAllConversations(owner, { filterUserId: 1, pageFirst: 100 });
        assert.ok(byUser.length > 0 && byUser.every((conversation) => conversation.userId === 1));
        assert.deepEqual((await owner.listConversations({ filterUserId: 2 })).conversations, []);
        const notStarred = await listAllConversations(owner, { filterIsStarred: false, pageFirst: 100 });
        assert.ok(notStarred.some((conversation) => conversation.id === created.id));
        assert.deepEqual((await owner.listConversations({ filterIsStarred: true })).conversations, []);
      });

      describe('paging', () => {
        const created: Conversation[] = [];

        before(async () => {
          for (let index = 0; index < 5; index++) {
            created.push(await pager.createConversation(`Question ${index} about parseConfig`));
          }
          for (const conversation of created) await untilFinished(pager, conversation.id);
          // A follow-up moves the first conversation's updated_at past the others; wait again so
          // nothing changes while the tests page.
          await addFollowup(pager, created[0].id, 'And loadConfig?');
          await untilFinished(pager, created[0].id);
        });

        for (const sort of WIRE_SORTS) {
          it(`pages through every conversation sorted by ${sort}`, async () => {
            const everything = (await pager.listConversations({ sort, pageFirst: 100 })).conversations;
            assert.equal(everything.length, 5);
            assertSorted(everything, sort);

            const pages: number[][] = [];
            let pageAfter: string | undefined;
            do {
              const page = await pager.listConversations({ sort, pageFirst: 2, pageAfter });
              pages.push(page.conversations.map((conversation) => conversation.id));
              pageAfter = page.nextCursor;
            } while (pageAfter);
            assert.deepEqual(
              pages.slice(0, 3).map((page) => page.length),
              [2, 2, 1],
            );
            assert.deepEqual(
              pages.flat(),
              everything.map((conversation) => conversation.id),
            );

            const all = await listAllConversations(pager, { sort, pageFirst: 2 });
            assert.deepEqual(
              all.map((conversation) => conversation.id),
              everything.map((conversation) => conversation.id),
            );
          });
        }

        it('uses -updated_at by default', async () => {
          const page = await pager.listConversations();
          assert.equal(page.conversations[0].id, created[0].id);
          assertSorted(page.conversations, '-updated_at');
          const explicit = await pager.listConversations({ sort: '-updated_at' });
          assert.deepEqual(
            page.conversations.map((c) => c.id),
            explicit.conversations.map((c) => c.id),
          );
        });
      });
    });
  }

  describe('authentication', () => {
    let engine: TestEngine;

    before(async () => {
      engine = await startTestEngine({ paceMs: 5 });
    });

    after(async () => {
      await engine.dispose();
    });

    it('asks to sign in again when the token is wrong, without repeating it', async () => {
      const token = 'dse_wrong_token_that_must_not_leak';
      const error = await expectError(clientFor(engine, token).listConversations(), 'unauthorized');
      assert.equal(error.status, 401);
      assert.match(error.message, /sign in again/);
      assert.ok(!everythingIn(error).includes(token));
    });

    it('sends an OAuth token as Bearer, which the engine accepts', async () => {
      // Between client and engine, a proxy that passes requests on as they are and notes how each was authorized.
      const schemes: string[] = [];
      const proxy = await startPassThroughProxy(engine.url, { onRequest: ({ headers }) => schemes.push(String(headers.authorization ?? '').split(' ')[0]) });
      try {
        const dispatcher = createDispatcher();
        dispatchers.push(dispatcher);
        const client = new DeepSearchClient({
          instanceUrl: proxy.url,
          token: TEST_TOKENS[0],
          tokenType: 'bearer',
          transport: undiciTransport(dispatcher),
          retry: { baseDelayMs: 10 },
        });
        const created = await client.createConversation('Where is parseConfig defined?');
        const page = await client.listConversations();
        assert.ok(
          page.conversations.some((conversation) => conversation.id === created.id),
          'the engine took the Bearer token as its user',
        );
        assert.ok(schemes.length >= 2, `requests seen: ${schemes.length}`);
        assert.deepEqual([...new Set(schemes)], ['Bearer']);
      } finally {
        await proxy.close();
      }
    });
  });

  describe('with sharing turned off', () => {
    let engine: TestEngine;

    before(async () => {
      engine = await startTestEngine({ paceMs: 5, sharing: false, variant: { conversationApis: 'legacy' } });
    });

    after(async () => {
      await engine.dispose();
    });

    it("does not open another user's conversation by read token, but still opens one's own", async () => {
      const owner = clientFor(engine, TEST_TOKENS[0]);
      const mine = await owner.createConversation(QUESTION);
      const error = await expectError(clientFor(engine, TEST_TOKENS[1]).getConversationByReadToken(mine.readToken!), 'notFound');
      assert.match(error.message, /sharing is turned off/);
      assert.equal((await owner.getConversationByReadToken(mine.readToken!)).id, mine.id);
    });
  });

  describe('with injected faults', () => {
    let engine: TestEngine;
    let faults: Array<EngineFault | undefined>;
    const seen: string[] = [];

    before(async () => {
      faults = [];
      engine = await startTestEngine({
        paceMs: 5,
        // The transport's retries, seen on the legacy API's paths (client.connect.test.ts has the 7.x API's).
        variant: { conversationApis: 'legacy' },
        faults: {
          request: ({ method, path }) => {
            seen.push(`${method} ${path}`);
            return faults.shift();
          },
        },
      });
    });

    beforeEach(() => {
      faults.length = 0;
      seen.length = 0;
    });

    after(async () => {
      await engine.dispose();
    });

    it('retries a GET through a 503 and a reset', async () => {
      const client = clientFor(engine, TEST_TOKENS[0], undefined, 'legacy');
      const created = await client.createConversation(QUESTION);
      seen.length = 0;
      faults.push({ kind: 'status', status: 503, body: 'overloaded' }, { kind: 'reset' });
      assert.equal((await client.getConversation(created.id)).id, created.id);
      assert.equal(seen.length, 3);
    });

    it('does not retry a POST that hit a 502 from a proxy', async () => {
      faults.push({ kind: 'status', status: 502, body: '<html><title>Bad Gateway</title></html>', contentType: 'text/html' });
      const error: DeepSearchError = await expectError(clientFor(engine, TEST_TOKENS[0], undefined, 'legacy').createConversation(QUESTION), 'server');
      assert.match(error.message, /HTTP 502.*Bad Gateway/);
      assert.deepEqual(seen, ['POST /.api/deepsearch/v1']);
    });

    it('reports a truncated body as an invalid response', async () => {
      const client = clientFor(engine, TEST_TOKENS[0], undefined, 'legacy');
      const created = await client.createConversation(QUESTION);
      faults.push({ kind: 'malformed' });
      await expectError(client.getConversation(created.id), 'invalidResponse');
    });

    it('times out a slow answer', async () => {
      faults.push({ kind: 'delay', ms: 2000 });
      const client = new DeepSearchClient({ instanceUrl: engine.url, token: TEST_TOKENS[0], timeoutMs: 100, retry: { maxAttempts: 1 } });
      await expectError(client.listConversations(), 'timeout');
    });
  });

  describe('with the poller', () => {
    let engine: TestEngine;

    before(async () => {
      engine = await startTestEngine({ paceMs: 20 });
    });

    after(async () => {
      await engine.dispose();
    });

    it('polls a new conversation until it is answered, then stops', async () => {
      const client = clientFor(engine, TEST_TOKENS[0]);
      const created = await client.createConversation(QUESTION);
      const seenStates: string[] = [];
      const poller = new ConversationPoller({
        watchedIntervalMs: 20,
        isWatched: () => true,
        refresh: async (id): Promise<RefreshOutcome> => {
          const conversation = await client.getConversation(id);
          seenStates.push(conversation.questions[0].state);
          return isUnfinished(conversation) ? 'unfinished' : 'finished';
        },
      });
      try {
        poller.track(created.id);
        await waitFor(
          async () => poller.isTracking(created.id),
          (tracking) => !tracking,
          { timeoutMs: 15_000 },
        );
        assert.equal(seenStates[seenStates.length - 1], 'completed');
        assert.deepEqual(poller.trackedIds, []);
      } finally {
        poller.dispose();
      }
    });
  });
});

function assertSorted(conversations: Conversation[], sort: SortOrder): void {
  const descending = sort.startsWith('-');
  const key = sort.replace(/^-/, '');
  const value = (conversation: Conversation): number =>
    key === 'id' ? conversation.id : Date.parse(key === 'created_at' ? conversation.createdAt : conversation.updatedAt);
  for (let index = 1; index < conversations.length; index++) {
    const [a, b] = [conversations[index - 1], conversations[index]];
    const order = (value(a) - value(b) || a.id - b.id) * (descending ? -1 : 1);
    assert.ok(order < 0, `${sort}: ${a.id} should come before ${b.id}`);
  }
}
