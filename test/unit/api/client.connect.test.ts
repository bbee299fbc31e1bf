/**
 * The client against servers of every generation, played by the real local engine over loopback:
 * a 6.x server (legacy API only), a 7.x server (both APIs; the client prefers the new one) and a
 * server with the new API only — detection, every call, paging and filters, every error state.
 */
import assert from 'node:assert/strict';
import type { Dispatcher } from 'undici';
import { DeepSearchClient } from '../../../src/api/client';
import { GENERATION_TTL_MS, ServerMemory } from '../../../src/api/serverMemory';
import { createDispatcher, undiciTransport } from '../../../src/api/undiciTransport';
import { isUnfinished, type Conversation } from '../../../src/model/conversation';
import { CONNECT_SERVICE_PATH } from '../../../src/contract/connectWire';
import type { EngineVariant, InjectedQuestionError } from '../../../src/engine/options';
import { startTestEngine, TEST_TOKENS, waitFor, type TestEngine } from '../../support/engineHarness';
import { expectError } from './expectError';
import { addFollowup, cancelQuestion } from '../../support/clientCalls';

const QUESTION = 'Where is parseConfig defined and what does it check?';
const FAIL_PREFIX = 'FAIL:';
const RETRY_TIME = '2031-01-02T03:04:05Z';

/** `FAIL:<Kind> …` questions fail with that kind; quota failures say when the user may ask again. */
function failureFor(text: string): InjectedQuestionError | undefined {
  if (!text.startsWith(FAIL_PREFIX)) return undefined;
  const kind = text.slice(FAIL_PREFIX.length).split(' ')[0];
  return { kind, title: `${kind} happened`, message: `Injected ${kind}`, ...(kind === 'QuotaExceeded' ? { retry_time: RETRY_TIME } : {}) };
}

describe('client against servers of each generation', () => {
  const dispatchers: Dispatcher[] = [];
  const engines: TestEngine[] = [];
  /** Requests the engines saw, as `METHOD path`. */
  const seen: string[] = [];

  async function engineWith(variant: EngineVariant): Promise<TestEngine> {
    const engine = await startTestEngine({
      variant,
      paceMs: 20,
      faults: { question: failureFor, request: ({ method, path }) => void seen.push(`${method} ${path}`) },
    });
    engines.push(engine);
    return engine;
  }

  /** What the clients of one test learned about the servers, shared as a window's connections share it. */
  let memory = new ServerMemory();

  function clientFor(engine: TestEngine, token: string = TEST_TOKENS[0], now?: () => number): DeepSearchClient {
    const dispatcher = createDispatcher();
    dispatchers.push(dispatcher);
    return new DeepSearchClient({
      instanceUrl: engine.url,
      token,
      transport: undiciTransport(dispatcher),
      memory,
      retry: { baseDelayMs: 10 },
      ...(now ? { timers: { now } } : {}),
    });
  }

  function untilFinished(client: DeepSearchClient, id: number): Promise<Conversation> {
    return waitFor(
      () => client.getConversation(id),
      (conversation) => !isUnfinished(conversation),
      { description: `conversation ${id} to finish`, timeoutMs: 15_000 },
    );
  }

  beforeEach(() => {
    seen.length = 0;
    memory = new ServerMemory();
  });
  after(async () => {
    await Promise.all(engines.map((engine) => engine.dispose()));
    await Promise.all(dispatchers.map((dispatcher) => dispatcher.destroy()));
  });

  describe('finding the API', () => {
    it('speaks the 7.x API to a server that has both, found with one call and remembered for the instance', async () => {
      const engine = await engineWith({ conversationApis: 'both' });
      const client = clientFor(engine);
      assert.equal(await client.generation(), 'connect');
      await client.createConversation(QUESTION);
      assert.ok(
        seen.every((request) => request.startsWith(`POST ${CONNECT_SERVICE_PATH}/`)),
        seen.join('\n'),
      );
      seen.length = 0;
      await clientFor(engine).listConversations();
      assert.deepEqual(seen, [`POST ${CONNECT_SERVICE_PATH}/ListConversationSummaries`], 'a second client of the instance does not probe again');
    });

    it('falls back to the legacy API on a 6.x server, and remembers that too', async () => {
      const engine = await engineWith({ conversationApis: 'legacy' });
      const client = clientFor(engine);
      const created = await client.createConversation(QUESTION);
      assert.equal(await client.generation(), 'legacy');
      assert.ok(created.readToken, 'legacy conversations carry their read token');
      seen.length = 0;
      await clientFor(engine).getConversation(created.id);
      assert.deepEqual(seen, [`GET /.api/deepsearch/v1/${created.id}`]);
      const error = await expectError(client.listConversations({ contentQuery: 'config' }), 'unsupported');
      assert.match(error.message, /cannot search the text of conversations: that needs Sourcegraph 7\.0 or later/);
    });

    it('uses the 7.x API on a server that has only it, and says plainly what needs the legacy one', async () => {
      const engine = await engineWith({ conversationApis: 'connect' });
      const client = clientFor(engine);
      const done = await untilFinished(client, (await client.createConversation(QUESTION)).id);
      assert.ok(done.questions[0]?.answer);
      await expectError(client.getConversationByReadToken('00000000-0000-4000-8000-000000000000'), 'notFound');
    });

    it('does not remember a server whose new API refused the token: another token may be allowed it', async () => {
      const engine = await engineWith({ conversationApis: 'both' });
      await expectError(clientFor(engine, 'dse_not_a_known_token_12345').listConversations(), 'unauthorized');
      seen.length = 0;
      assert.equal(await clientFor(engine).generation(), 'connect');
      assert.deepEqual(seen, [`POST ${CONNECT_SERVICE_PATH}/ListConversationSummaries`], 'probed again with the next client');
    });
  });

  describe('remembering what it found', () => {
    const probes = () => seen.filter((request) => request === `POST ${CONNECT_SERVICE_PATH}/ListConversationSummaries`).length;

    it('asks the instance again once what it found is older than GENERATION_TTL_MS (an upgraded server is noticed)', async () => {
      const engine = await engineWith({ conversationApis: 'legacy' });
      let clock = 1_000_000;
      const client = clientFor(engine, TEST_TOKENS[0], () => clock);
      await client.listConversations();
      await client.listConversations();
      assert.equal(probes(), 1, 'one probe while the finding is fresh');
      clock += GENERATION_TTL_MS - 1;
      await client.listConversations();
      assert.equal(probes(), 1);
      clock += 2;
      await client.listConversations();
      assert.equal(probes(), 2, 'probed again once the finding expired');
    });

    it('remembers, in the client, a token the new API refuses: the legacy API is used without a probe per call', async () => {
      const refusing = await startTestEngine({
        variant: { conversationApis: 'both' },
        paceMs: 20,
        faults: {
          request: ({ method, path }) => {
            seen.push(`${method} ${path}`);
            return path.startsWith(CONNECT_SERVICE_PATH) ? { kind: 'status', status: 403 } : undefined;
          },
        },
      });
      engines.push(refusing);
      let clock = 1_000_000;
      const client = clientFor(refusing, TEST_TOKENS[0], () => clock);
      for (let call = 0; call < 3; call++) await client.listConversations();
      assert.equal(probes(), 1, seen.join('\n'));
      assert.equal(seen.filter((request) => request.startsWith('GET /.api/deepsearch/v1')).length, 3);
      clock += GENERATION_TTL_MS + 1;
      await client.listConversations();
      assert.equal(probes(), 2, 'a refusal is asked about again later too (scopes change)');
    });
  });

  describe('on the 7.x API', () => {
    let engine: TestEngine;
    let client: DeepSearchClient;
    before(async () => {
      engine = await engineWith({ conversationApis: 'connect' });
      client = clientFor(engine);
    });

    it('asks, polls to the answer with its sources and follow-ups, adds a follow-up, and deletes', async () => {
      const created = await client.createConversation(QUESTION);
      assert.equal(created.questions[0]?.state, 'processing');
      assert.equal(created.questions[0]?.text, QUESTION);
      const done = await untilFinished(client, created.id);
      const first = done.questions[0];
      assert.equal(first.state, 'completed');
      assert.match(first.answer ?? '', /parseConfig/);
      assert.ok(first.sources.length > 0 && first.suggestedFollowups.length > 0, 'the rich fields are read when the server sends them');
      assert.ok(done.title && done.webUrl?.startsWith(engine.url));

      const followed = await addFollowup(client, created.id, 'What calls it?');
      assert.deepEqual(
        followed.questions.map((question) => [question.id, question.text]),
        [
          [1, QUESTION],
          [2, 'What calls it?'],
        ],
      );
      await expectError(addFollowup(client, created.id, 'And then?'), 'conflict');
      assert.equal((await untilFinished(client, created.id)).questions[1]?.state, 'completed');

      await client.deleteConversation(created.id);
      await expectError(client.getConversation(created.id), 'notFound');
    });

    it('cancels a running question', async () => {
      const created = await client.createConversation(QUESTION);
      const canceled = await cancelQuestion(client, created.id, created.questions[0].id);
      assert.equal(canceled.questions[0]?.state, 'canceled');
    });

    it('pages through summaries with the page token, without duplicates, and filters by starred and by content', async () => {
      const mine = await Promise.all(['alpha retry', 'beta poller', 'gamma retry'].map((text) => client.createConversation(`About ${text}`)));
      const ids: number[] = [];
      let pageAfter: string | undefined;
      for (let pages = 0; pages < 20; pages++) {
        const page = await client.listConversations({ pageFirst: 2, pageAfter });
        assert.ok(page.conversations.every((conversation) => conversation.summaryOnly && conversation.questions.length === 0));
        ids.push(...page.conversations.map((conversation) => conversation.id));
        if (!page.nextCursor) break;
        pageAfter = page.nextCursor;
      }
      assert.equal(new Set(ids).size, ids.length, 'no duplicates');
      for (const conversation of mine) assert.ok(ids.includes(conversation.id));

      const found = await client.listConversations({ contentQuery: 'RETRY' });
      assert.deepEqual(found.conversations.map((conversation) => conversation.id).sort(), [mine[0].id, mine[2].id].sort());
      assert.deepEqual((await client.listConversations({ filterIsStarred: true })).conversations, []);
    });

    it('shows every failure the state can carry, the quota with the time the user may ask again', async () => {
      const cases: Array<[string, string, string | undefined]> = [
        ['QuotaExceeded', 'QuotaExceeded', RETRY_TIME],
        ['TokenLimitExceeded', 'TokenLimitExceeded', undefined],
        ['EntitlementExceeded', 'EntitlementExceeded', undefined],
        ['InternalError', 'InternalError', undefined],
      ];
      for (const [injected, kind, retryAt] of cases) {
        const done = await untilFinished(client, (await client.createConversation(`${FAIL_PREFIX}${injected} please`)).id);
        const question = done.questions[0];
        assert.equal(question.state, 'failed', injected);
        assert.equal(question.error?.kind, kind, injected);
        assert.equal(question.error?.retryAt && Date.parse(question.error.retryAt), retryAt && Date.parse(retryAt), injected);
        assert.ok(question.error?.title, injected);
      }
    });

    it('reads the documented minimal question shape, with nothing invented', async () => {
      const minimal = await engineWith({ conversationApis: 'connect', connectQuestions: 'minimal' });
      const minimalClient = clientFor(minimal);
      const done = await untilFinished(minimalClient, (await minimalClient.createConversation(QUESTION)).id);
      const question = done.questions[0];
      assert.equal(question.state, 'completed');
      assert.match(question.answer ?? '', /parseConfig/);
      assert.deepEqual([question.sources, question.turns, question.suggestedFollowups], [[], [], []]);
      assert.equal(question.title, undefined);
    });

    it('never repeats a write, and retries a read through a 503', async () => {
      const flaky = await startTestEngine({
        variant: { conversationApis: 'connect' },
        paceMs: 5,
        faults: {
          request: ({ method, path }) => {
            seen.push(`${method} ${path}`);
            return path.endsWith('/CreateConversation') ||
              (path.endsWith('/GetConversation') && seen.filter((line) => line.endsWith('/GetConversation')).length === 1)
              ? { kind: 'status', status: 503, body: JSON.stringify({ code: 'unavailable', message: 'overloaded' }), contentType: 'application/json' }
              : undefined;
          },
        },
      });
      engines.push(flaky);
      const flakyClient = clientFor(flaky);
      await expectError(flakyClient.createConversation(QUESTION), 'server');
      assert.equal(seen.filter((line) => line.endsWith('/CreateConversation')).length, 1, 'a create is sent once');
      await expectError(flakyClient.getConversation(1), 'notFound');
      assert.equal(seen.filter((line) => line.endsWith('/GetConversation')).length, 2, 'a read is retried after the 503');
    });
  });
});
