/**
 * The engine's 7.x conversation API (`/api/deepsearch.v1.Service/<Method>`, Connect unary JSON) over
 * real HTTP: every method, one store shared with the legacy API, paging and filters, the Connect
 * errors and statuses, the state one-of for every ending, the two question shapes, and the server
 * generations that serve one API, the other or both.
 */
import assert from 'node:assert/strict';
import type { WireConversation, WireQuestion } from '../../../src/contract/legacyWire';
import {
  CONNECT_HTTP_STATUS,
  CONNECT_SERVICE_PATH,
  conversationIdOfName,
  type ConnectConversation,
  type ConnectErrorBody,
  type ConnectErrorCode,
  type ConnectListResponse,
  type ConnectQuestion,
} from '../../../src/contract/connectWire';
import { ECHO_LIMIT } from '../../../src/engine/http/echo';
import { MAX_BODY_BYTES } from '../../../src/engine/http/http';
import type { EngineFault, EngineOptions, InjectedQuestionError } from '../../../src/engine/options';
import type { ConversationRecord } from '../../../src/engine/conversations/records';
import { fullDiskSeamForTests } from '../../../src/engine/conversations/storage';
import { overrideHeaders, readApiResponse, startTestEngine, TEST_TOKENS, waitFor, type ApiResponse, type TestEngine } from '../../support/engineHarness';
import { createTempDir, removeDir } from '../../support/gitRepos';
import { answeredConversation, storeConversations } from '../../support/storedConversations';

interface ConnectInit {
  /** Which test user calls (0 or 1), or null for no Authorization header. Default 0. */
  user?: 0 | 1 | null;
  /** Extra or overriding headers; null removes one. */
  headers?: Record<string, string | null>;
  /** Default POST. */
  httpMethod?: string;
}

/** One Connect call as a 7.x client makes it (no X-Requested-With); a string body is sent as is. */
async function connect<T>(engine: TestEngine, method: string, body: unknown, init: ConnectInit = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', 'Connect-Protocol-Version': '1' };
  const user = init.user === undefined ? 0 : init.user;
  if (user !== null) headers.Authorization = `token ${TEST_TOKENS[user]}`;
  overrideHeaders(headers, init.headers);
  const httpMethod = init.httpMethod ?? 'POST';
  return readApiResponse<T>(
    await fetch(`${engine.url}${CONNECT_SERVICE_PATH}/${method}`, {
      method: httpMethod,
      headers,
      body: httpMethod === 'GET' || httpMethod === 'HEAD' ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );
}

function createBody(text: string): unknown {
  return { parent: 'users/~self', conversation: { questions: [{ input: [{ question: { text } }] }] } };
}

async function create(engine: TestEngine, text: string, user: 0 | 1 = 0): Promise<ConnectConversation> {
  const response = await connect<ConnectConversation>(engine, 'CreateConversation', createBody(text), { user });
  assert.equal(response.status, 200, response.text);
  return response.json;
}

async function get(engine: TestEngine, name: string, user: 0 | 1 = 0): Promise<ApiResponse<ConnectConversation>> {
  return connect<ConnectConversation>(engine, 'GetConversation', { name }, { user });
}

/** Polls GetConversation until the conversation is no longer processing. */
async function settled(engine: TestEngine, name: string): Promise<ConnectConversation> {
  const response = await waitFor(
    () => get(engine, name),
    (latest) => latest.status === 200 && !('processing' in latest.json.state),
    { description: `${name} to settle` },
  );
  return response.json;
}

/** Asserts a Connect error: the status Connect gives the code (or `status`), and a message. */
function assertConnectError(response: ApiResponse<unknown>, code: ConnectErrorCode, status: number = CONNECT_HTTP_STATUS[code]): ConnectErrorBody {
  assert.equal(response.status, status, response.text);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  const body = response.json as ConnectErrorBody;
  assert.deepEqual(Object.keys(body).sort(), ['code', 'message'], response.text);
  assert.equal(body.code, code, response.text);
  assert.ok(body.message.length > 0);
  return body;
}

function idOf(name: string): number {
  const id = conversationIdOfName(name);
  assert.ok(id !== undefined, `not a conversation name: ${name}`);
  return id;
}

const RETRY_TIME = '2026-09-01T00:00:00Z';

/** Questions that fail, by a marker in their text, with each kind of error the engine knows. */
const FAILURES: Record<string, InjectedQuestionError> = {
  'QUOTA-FAIL': { title: 'Rate limited', kind: 'RateLimitExceeded', message: 'Too many questions this month.', retry_time: RETRY_TIME },
  'TOKENS-FAIL': { title: 'Token limit', kind: 'TokenLimitExceeded', message: 'The question used too many tokens.' },
  'ENTITLEMENT-FAIL': { title: 'Not entitled', kind: 'EntitlementExceeded', message: 'Deep Search is not part of your plan.' },
  'BROKEN-FAIL': { title: 'Internal error', kind: 'InternalError', message: 'Something broke.' },
};

function failures(text: string): InjectedQuestionError | undefined {
  return Object.entries(FAILURES).find(([marker]) => text.includes(marker))?.[1];
}

const RICH_QUESTION_KEYS = ['answer', 'createTime', 'input', 'sources', 'state', 'stats', 'suggestedFollowups', 'title', 'turns', 'updateTime'];

describe('engine: the Connect conversation API (7.x)', function () {
  let engine: TestEngine;
  let nextFault: EngineFault | undefined;
  before(async function () {
    engine = await startTestEngine({
      paceMs: 0,
      faults: {
        question: failures,
        request: () => {
          const fault = nextFault;
          nextFault = undefined;
          return fault;
        },
      },
    });
  });
  after(async function () {
    await engine?.dispose();
  });

  it('creates a conversation and answers it: name, state, times, title, url and rich questions', async function () {
    const created = await create(engine, 'Where is `parseConfig` defined?');
    const id = idOf(created.name);
    assert.equal(created.name, `users/~self/conversations/${id}`);
    assert.deepEqual(created.state, { processing: {} });
    assert.equal(created.title, 'Where is `parseConfig` defined?');
    assert.ok(!Number.isNaN(Date.parse(created.createTime)) && !Number.isNaN(Date.parse(created.updateTime)));
    assert.equal(created.questions.length, 1);
    assert.deepEqual(created.questions[0]?.input, [{ question: { text: 'Where is `parseConfig` defined?' } }]);
    assert.equal(created.questions[0]?.answer, undefined, 'no answer yet');
    assert.deepEqual(created.questions[0]?.state, { processing: {} });

    const done = await settled(engine, created.name);
    assert.deepEqual(done.state, { completed: {} });
    assert.equal(done.createTime, created.createTime);
    assert.ok(Date.parse(done.updateTime) > Date.parse(created.updateTime));
    const question = done.questions[0];
    assert.deepEqual(Object.keys(question).sort(), RICH_QUESTION_KEYS);
    assert.equal(question.answer?.length, 1);
    assert.match(question.answer?.[0]?.markdown.text ?? '', /parseConfig/);
    assert.deepEqual(question.state, { completed: {} });
    assert.equal(done.title, question.title, 'the conversation is titled by its first answer');
    assert.ok((question.sources?.length ?? 0) > 0 && question.sources?.every((source) => typeof source.link === 'string'));
    assert.equal(question.turns?.[0]?.role, 'user');
    assert.ok(!Number.isNaN(Date.parse(question.turns?.[0]?.time ?? '')));
    assert.ok(Array.isArray(question.suggestedFollowups));
    assert.equal(typeof question.stats?.timeMillis, 'number');

    // The url is the conversation's page on the engine.
    assert.ok(done.url?.startsWith(`${engine.url}/deepsearch/`), done.url);
    const page = await fetch(done.url ?? '');
    assert.equal(page.status, 200);
    assert.match(await page.text(), /parseConfig/);
  });

  it('serves one store: created through Connect, read through the legacy API, and the other way round', async function () {
    const viaConnect = await create(engine, 'Where is `loadConfig` defined?');
    const id = idOf(viaConnect.name);
    const legacy = await engine.api<WireConversation>(`/${id}`);
    assert.equal(legacy.status, 200);
    assert.equal(legacy.json.id, id, "the name's number is the legacy id");
    assert.equal(legacy.json.questions[0]?.question, 'Where is `loadConfig` defined?');
    assert.equal(legacy.json.share_url, viaConnect.url);
    await settled(engine, viaConnect.name);

    const viaLegacy = await engine.ask('Where is `startServer` defined?');
    const read = await get(engine, `users/~self/conversations/${viaLegacy.id}`);
    assert.equal(read.status, 200);
    assert.equal(read.json.name, `users/~self/conversations/${viaLegacy.id}`);
    assert.equal(
      read.json.questions[0]?.input[0] && 'question' in read.json.questions[0].input[0] ? read.json.questions[0].input[0].question.text : '',
      'Where is `startServer` defined?',
    );
    const listed = await connect<ConnectListResponse>(engine, 'ListConversationSummaries', { parent: 'users/~self' });
    assert.ok(listed.json.conversationSummaries.some((summary) => summary.name === read.json.name));
    const legacyList = await engine.api<WireConversation[]>('/');
    assert.ok(legacyList.json.some((conversation) => conversation.id === id));
    await engine.waitUntilFinished(viaLegacy.id);
  });

  it('adds a question once the conversation is answered, answering the Question, seen by both APIs', async function () {
    const created = await create(engine, 'Where is `parseConfig` defined?');
    await settled(engine, created.name);
    const added = await connect<ConnectQuestion>(engine, 'AddConversationQuestion', {
      parent: created.name,
      question: { input: [{ question: { text: 'Where is `loadConfig` used?' } }] },
    });
    assert.equal(added.status, 200, added.text);
    assert.deepEqual(added.json.input, [{ question: { text: 'Where is `loadConfig` used?' } }]);
    assert.deepEqual(added.json.state, { processing: {} });
    assert.ok(added.json.createTime);
    assert.equal('questions' in (added.json as object), false, 'the Question, not the Conversation');

    const done = await settled(engine, created.name);
    assert.equal(done.questions.length, 2);
    assert.match(done.questions[1]?.answer?.[0]?.markdown.text ?? '', /loadConfig/);
    const legacy = await engine.api<WireConversation>(`/${idOf(created.name)}`);
    assert.deepEqual(
      legacy.json.questions.map((question) => question.question),
      ['Where is `parseConfig` defined?', 'Where is `loadConfig` used?'],
    );
  });

  it('deletes a conversation, answering {}; then neither API finds it', async function () {
    const created = await create(engine, 'Where is `startServer` defined?');
    await settled(engine, created.name);
    const deleted = await connect(engine, 'DeleteConversation', { name: created.name });
    assert.equal(deleted.status, 200);
    assert.deepEqual(deleted.json, {});
    assertConnectError(await get(engine, created.name), 'not_found');
    assert.equal((await engine.api(`/${idOf(created.name)}`)).status, 404);
    assertConnectError(await connect(engine, 'DeleteConversation', { name: created.name }), 'not_found');
  });

  it('maps each failure kind to the error state, with retryTime when the error knows it', async function () {
    const expected: Array<[string, string, string | undefined]> = [
      ['QUOTA-FAIL', 'ERROR_QUOTA_EXCEEDED', RETRY_TIME],
      ['TOKENS-FAIL', 'ERROR_TOKEN_LIMIT_EXCEEDED', undefined],
      ['ENTITLEMENT-FAIL', 'ERROR_ENTITLEMENT_EXCEEDED', undefined],
      ['BROKEN-FAIL', 'ERROR_INTERNAL', undefined],
    ];
    for (const [marker, code, retryTime] of expected) {
      const created = await create(engine, `Where is \`parseConfig\` defined? ${marker}`);
      const done = await settled(engine, created.name);
      assert.ok('error' in done.state, `${marker}: ${JSON.stringify(done.state)}`);
      const { error } = done.state;
      assert.equal(error.code, code, marker);
      assert.equal(error.message, FAILURES[marker]?.message);
      if (retryTime === undefined) assert.equal(error.retryTime, undefined, marker);
      else assert.equal(Date.parse(error.retryTime ?? ''), Date.parse(retryTime), marker);
      assert.deepEqual(done.questions[0]?.state, done.state, 'the question carries the same state');
      assert.equal(done.questions[0]?.answer, undefined);
    }
  });

  it('takes the state from the latest question: a failed conversation completes with an answered follow-up', async function () {
    const created = await create(engine, 'Where is `parseConfig` defined? TOKENS-FAIL');
    assert.ok('error' in (await settled(engine, created.name)).state);
    const added = await connect(engine, 'AddConversationQuestion', {
      parent: created.name,
      question: { input: [{ question: { text: 'Where is `loadConfig` defined?' } }] },
    });
    assert.equal(added.status, 200);
    const done = await settled(engine, created.name);
    assert.deepEqual(done.state, { completed: {} });
    assert.ok(done.questions[0]?.state && 'error' in done.questions[0].state, 'the first question keeps its error');
  });

  it('accepts Bearer tokens, a charset, requests without Connect-Protocol-Version, and needs no X-Requested-With', async function () {
    const response = await connect<ConnectListResponse>(
      engine,
      'ListConversationSummaries',
      { parent: 'users/~self', pageSize: 1 },
      {
        user: null,
        headers: { Authorization: `Bearer ${TEST_TOKENS[0]}`, 'Content-Type': 'application/json; charset=utf-8', 'Connect-Protocol-Version': null },
      },
    );
    assert.equal(response.status, 200, response.text);
    assert.equal(response.json.conversationSummaries.length, 1);
  });

  it('answers unauthenticated (401) without a token or with a wrong one', async function () {
    for (const headers of [{}, { Authorization: 'token not-a-known-token' }, { Authorization: 'Basic abc' }] as Array<Record<string, string>>) {
      const response = await connect(engine, 'ListConversationSummaries', { parent: 'users/~self' }, { user: null, headers });
      const body = assertConnectError(response, 'unauthenticated');
      assert.ok(!body.message.includes('not-a-known-token'), 'never repeats a token');
    }
  });

  it("answers not_found (404) for another user's conversation, a missing one, and a name under another user", async function () {
    const theirs = await create(engine, 'Where is `parseConfig` defined?', 1);
    const theirName = theirs.name;
    assertConnectError(await get(engine, theirName), 'not_found');
    assertConnectError(await connect(engine, 'DeleteConversation', { name: theirName }), 'not_found');
    assertConnectError(await connect(engine, 'CancelConversation', { name: theirName }), 'not_found');
    assertConnectError(
      await connect(engine, 'AddConversationQuestion', { parent: theirName, question: { input: [{ question: { text: 'Mine now?' } }] } }),
      'not_found',
    );
    assert.equal((await get(engine, theirName, 1)).status, 200, 'its owner still has it');
    assertConnectError(await get(engine, 'users/~self/conversations/999999'), 'not_found');
    const mine = await create(engine, 'Where is `loadConfig` defined?');
    assertConnectError(await get(engine, `users/2/conversations/${idOf(mine.name)}`), 'not_found');
    assert.equal((await get(engine, `users/1/conversations/${idOf(mine.name)}`)).status, 200, "the caller's own id names the caller");
    const listed = await connect<ConnectListResponse>(engine, 'ListConversationSummaries', { parent: 'users/~self', pageSize: 100 });
    assert.ok(!listed.json.conversationSummaries.some((summary) => summary.name === theirName), "lists only the caller's");
    await settled(engine, mine.name);
    await waitFor(
      () => get(engine, theirName, 1),
      (latest) => !('processing' in latest.json.state),
    );
  });

  it('answers invalid_argument (400) for malformed input, echoing no more than a bounded part of it', async function () {
    const long = 'x'.repeat(5000);
    const cases: Array<[string, unknown, RegExp]> = [
      ['GetConversation', '', /empty/],
      ['GetConversation', '{"name": ', /not valid JSON/],
      ['GetConversation', '[1]', /JSON object/],
      ['GetConversation', {}, /needs "name"/],
      ['GetConversation', { name: 42 }, /needs "name"/],
      ['GetConversation', { name: 'conversations/12' }, /resource name/],
      ['GetConversation', { name: `users/~self/conversations/${long}` }, /resource name/],
      ['CreateConversation', { parent: 'users/~self' }, /"conversation" must be an object/],
      ['CreateConversation', { parent: 'users/~self', conversation: { questions: [] } }, /exactly one question/],
      ['CreateConversation', { parent: 'users/~self', conversation: { questions: [{ input: [] }] } }, /non-empty list/],
      ['CreateConversation', { parent: 'users/~self', conversation: { questions: [{ input: [{ question: { text: '  ' } }] }] } }, /empty/],
      [
        'CreateConversation',
        { parent: 'users/~self', conversation: { questions: [{ input: [{ image: { uri: 'data:image/png;base64,AAAA' } }] }] } },
        /text questions only/,
      ],
      [
        'CreateConversation',
        { parent: 'users/~self', conversation: { questions: [{ input: [{ question: { text: 'q'.repeat(20_001) } }] }] } },
        /limit is 20000/,
      ],
      ['CreateConversation', { parent: long, conversation: { questions: [{ input: [{ question: { text: 'Hi' } }] }] } }, /"parent" must be/],
      ['AddConversationQuestion', { parent: 'users/~self/conversations/1', question: { input: [{ text: 'no question key' }] } }, /block \{"question"/],
      ['ListConversationSummaries', { parent: 'users/~self', pageSize: -1 }, /pageSize/],
      ['ListConversationSummaries', { parent: 'users/~self', pageSize: 'many' }, /pageSize/],
      ['ListConversationSummaries', { parent: 'users/~self', pageSize: 1, page_size: 2 }, /not both/],
      ['ListConversationSummaries', { parent: 'users/~self', pageToken: long }, /pageToken/],
      ['ListConversationSummaries', { parent: 'users/~self', pageToken: Buffer.from('after:x').toString('base64url') }, /pageToken/],
      ['ListConversationSummaries', { parent: 'users/~self', filters: { starred: true } }, /"filters" must be a list/],
      ['ListConversationSummaries', { parent: 'users/~self', filters: [{ starred: 'yes' }] }, /true or false/],
      ['ListConversationSummaries', { parent: 'users/~self', filters: [{ starred: true, contentQuery: 'x' }] }, /exactly one of/],
      ['ListConversationSummaries', { parent: 'users/~self', filters: [{ owner: 'me' }] }, /exactly one of/],
      ['ListConversationSummaries', { parent: 'users/~self', filters: [{ contentQuery: 'q'.repeat(501) }] }, /limit is 500/],
    ];
    for (const [method, body, message] of cases) {
      const response = await connect(engine, method, body);
      const error = assertConnectError(response, 'invalid_argument');
      assert.match(error.message, message, `${method} ${JSON.stringify(body).slice(0, 100)}`);
      assert.ok(!error.message.includes('x'.repeat(ECHO_LIMIT + 1)), 'echoes a bounded part of the input');
    }
    const version = await connect(engine, 'ListConversationSummaries', {}, { headers: { 'Connect-Protocol-Version': '2' } });
    assert.match(assertConnectError(version, 'invalid_argument').message, /Connect-Protocol-Version must be 1/);
  });

  it('answers permission_denied (403) for another user as parent', async function () {
    assertConnectError(await connect(engine, 'ListConversationSummaries', { parent: 'users/2' }), 'permission_denied');
  });

  it('answers unimplemented with 404, as Connect does for an unknown procedure', async function () {
    for (const method of ['StarConversation', 'getConversation', 'GetConversation/extra', '']) {
      const body = assertConnectError(await connect(engine, method, {}), 'unimplemented', 404);
      assert.match(body.message, /CreateConversation/);
    }
  });

  it('answers 415 with a Connect error for a body that is not sent as JSON, and 405 for other HTTP methods', async function () {
    for (const type of ['text/plain', 'application/proto', 'application/x-www-form-urlencoded', null]) {
      const response = await connect(engine, 'ListConversationSummaries', '{}', { headers: { 'Content-Type': type } });
      assertConnectError(response, 'invalid_argument', 415);
      assert.equal(response.headers.get('accept-post'), 'application/json');
    }
    for (const httpMethod of ['GET', 'PUT', 'DELETE']) {
      const response = await connect(engine, 'ListConversationSummaries', '{}', { httpMethod });
      assertConnectError(response, 'unimplemented', 405);
      assert.equal(response.headers.get('allow'), 'POST');
    }
  });

  it('answers resource_exhausted for a body over the limit', async function () {
    const huge = JSON.stringify({ name: 'x'.repeat(MAX_BODY_BYTES + 10) });
    assertConnectError(await connect(engine, 'GetConversation', huge), 'resource_exhausted');
  });

  it("answers resource_exhausted with the engine's words and the status 507 when the data folder's disk is full", async function () {
    // /dev/full: the kernel's own ENOSPC on every write (Linux, where these tests run).
    fullDiskSeamForTests.device = '/dev/full';
    fullDiskSeamForTests.spaceLeft = 0;
    let response: ApiResponse<unknown>;
    try {
      response = await connect(engine, 'CreateConversation', createBody('Where is `parseConfig` defined?'));
    } finally {
      delete fullDiskSeamForTests.device;
      delete fullDiskSeamForTests.spaceLeft;
    }
    assert.match(assertConnectError(response, 'resource_exhausted', 507).message, /no space left.*not created/);
  });

  it('answers an injected status fault on its paths as a Connect error', async function () {
    nextFault = { kind: 'status', status: 503 };
    const body = assertConnectError(await connect(engine, 'ListConversationSummaries', {}), 'unavailable', 503);
    assert.match(body.message, /Injected fault/);
  });
});

describe('engine: Connect while a question runs', function () {
  let engine: TestEngine;
  before(async function () {
    engine = await startTestEngine({ paceMs: 1500 });
  });
  after(async function () {
    await engine?.dispose();
  });

  it('refuses another question with failed_precondition while one is answering', async function () {
    const created = await create(engine, 'Where is `parseConfig` defined?');
    const response = await connect(engine, 'AddConversationQuestion', {
      parent: created.name,
      question: { input: [{ question: { text: 'And `loadConfig`?' } }] },
    });
    assert.match(assertConnectError(response, 'failed_precondition').message, /still answering/);
    await connect(engine, 'CancelConversation', { name: created.name });
  });

  it('cancels the running question and answers the conversation canceled; canceling again changes nothing', async function () {
    const created = await create(engine, 'Where is `loadConfig` defined?');
    const processing = await get(engine, created.name);
    assert.deepEqual(processing.json.state, { processing: {} });
    const canceled = await connect<ConnectConversation>(engine, 'CancelConversation', { name: created.name });
    assert.equal(canceled.status, 200, canceled.text);
    assert.equal(canceled.json.name, created.name);
    assert.deepEqual(canceled.json.state, { canceled: {} });
    assert.deepEqual(canceled.json.questions[0]?.state, { canceled: {} });
    assert.equal(canceled.json.questions[0]?.answer, undefined);
    const legacy = await engine.api<WireConversation>(`/${idOf(created.name)}`);
    assert.equal(legacy.json.questions[0]?.error?.kind, 'Cancelled', 'the legacy API sees the cancellation');
    const again = await connect<ConnectConversation>(engine, 'CancelConversation', { name: created.name });
    assert.equal(again.status, 200);
    assert.deepEqual(again.json.state, { canceled: {} });
    assert.equal(again.json.updateTime, canceled.json.updateTime);
  });

  it('cancels a follow-up asked through the legacy API', async function () {
    const created = await engine.ask('Where is `startServer` defined?');
    await connect(engine, 'CancelConversation', { name: `users/~self/conversations/${created.id}` });
    await engine.api<WireQuestion>(`/${created.id}/questions`, { method: 'POST', body: { conversation_id: created.id, question: 'Where is it used?' } });
    const running = await get(engine, `users/~self/conversations/${created.id}`);
    assert.deepEqual(running.json.state, { processing: {} }, 'processing while any question runs');
    const canceled = await connect<ConnectConversation>(engine, 'CancelConversation', { name: running.json.name });
    assert.deepEqual(
      canceled.json.questions.map((question) => question.state),
      [{ canceled: {} }, { canceled: {} }],
    );
  });
});

describe('engine: listing through Connect', function () {
  let engine: TestEngine;
  let dataDir: string;
  const HOUR = 3_600_000;
  const base = Date.parse('2026-03-01T09:00:00Z');

  before(async function () {
    dataDir = await createTempDir('dse-connect-list-');
    const records: ConversationRecord[] = [];
    for (let id = 1; id <= 9; id++) {
      const record = answeredConversation({
        id,
        question: id === 6 ? 'Why does the Zebra parser loop?' : `Question number ${id}`,
        title: `Title ${id}`,
        answer: id === 3 ? 'It is in ZEBRA.ts, line 4.' : `Answer number ${id}`,
        // Older conversations were updated last, so update order and creation order differ.
        at: new Date(base + (10 - id) * HOUR).toISOString(),
      });
      record.created_at = new Date(base + id * HOUR).toISOString();
      record.starred = id === 2 || id === 5 || id === 8;
      records.push(record);
    }
    records.push(
      answeredConversation({ id: 10, userId: 2, question: 'zebra of the other user', title: 'Theirs', answer: 'zebra', at: new Date(base).toISOString() }),
    );
    await storeConversations(dataDir, records);
    engine = await startTestEngine({ dataDir, paceMs: 0 } satisfies Partial<EngineOptions>);
  });
  after(async function () {
    await engine?.dispose();
    await removeDir(dataDir);
  });

  async function list(body: Record<string, unknown>, user: 0 | 1 = 0): Promise<ConnectListResponse> {
    const response = await connect<ConnectListResponse>(engine, 'ListConversationSummaries', { parent: 'users/~self', ...body }, { user });
    assert.equal(response.status, 200, response.text);
    return response.json;
  }

  async function listAll(body: Record<string, unknown>, pageSize: number): Promise<{ ids: number[]; pages: number[] }> {
    const ids: number[] = [];
    const pages: number[] = [];
    let token: string | undefined;
    for (let guard = 0; guard < 20; guard++) {
      const page = await list({ ...body, pageSize, ...(token ? { pageToken: token } : {}) });
      ids.push(...page.conversationSummaries.map((summary) => idOf(summary.name)));
      pages.push(page.conversationSummaries.length);
      token = page.nextPageToken;
      if (!token) return { ids, pages };
    }
    throw new Error('paging did not end');
  }

  it('answers summaries: name, title, times and url, no questions', async function () {
    const page = await list({ pageSize: 1 });
    const summary = page.conversationSummaries[0];
    assert.deepEqual(Object.keys(summary).sort(), ['createTime', 'name', 'title', 'updateTime', 'url']);
    assert.equal(summary.name, 'users/~self/conversations/9');
    assert.equal(summary.title, 'Title 9');
    assert.ok(summary.url?.startsWith(`${engine.url}/deepsearch/`));
  });

  it('pages newest first through more conversations than a page, without duplicates, and ends without a token', async function () {
    const { ids, pages } = await listAll({}, 4);
    assert.deepEqual(ids, [9, 8, 7, 6, 5, 4, 3, 2, 1]);
    assert.deepEqual(pages, [4, 4, 1]);
    assert.equal(new Set(ids).size, ids.length);
    const whole = await list({});
    assert.equal(whole.conversationSummaries.length, 9, 'the default page holds them all');
    assert.equal(whole.nextPageToken, undefined);
    const exact = await list({ pageSize: 9 });
    assert.equal(exact.nextPageToken, undefined, 'no token when nothing follows');
  });

  it('coerces a page size above the maximum to it', async function () {
    const page = await list({ pageSize: 100_000 });
    assert.equal(page.conversationSummaries.length, 9);
  });

  it('filters by starred (true and false)', async function () {
    assert.deepEqual((await listAll({ filters: [{ starred: true }] }, 2)).ids, [8, 5, 2]);
    assert.deepEqual((await listAll({ filters: [{ starred: false }] }, 5)).ids, [9, 7, 6, 4, 3, 1]);
  });

  it("filters by contentQuery over the caller's questions and answers, case-insensitively", async function () {
    assert.deepEqual((await listAll({ filters: [{ contentQuery: 'zebra' }] }, 1)).ids, [6, 3]);
    assert.deepEqual((await listAll({ filters: [{ contentQuery: 'ZeBrA' }, { starred: false }] }, 10)).ids, [6, 3]);
    assert.deepEqual((await listAll({ filters: [{ contentQuery: 'zebra' }, { starred: true }] }, 10)).ids, []);
    assert.deepEqual((await listAll({ filters: [{ contentQuery: 'Answer number 7' }] }, 10)).ids, [7]);
    const theirs = await connect<ConnectListResponse>(
      engine,
      'ListConversationSummaries',
      { parent: 'users/~self', filters: [{ contentQuery: 'zebra' }] },
      { user: 1 },
    );
    assert.deepEqual(
      theirs.json.conversationSummaries.map((summary) => idOf(summary.name)),
      [10],
    );
  });

  it('accepts snake_case field names: page_size, page_token, content_query', async function () {
    const first = await list({ page_size: 1, filters: [{ content_query: 'zebra' }] });
    assert.deepEqual(
      first.conversationSummaries.map((summary) => idOf(summary.name)),
      [6],
    );
    assert.ok(first.nextPageToken);
    const second = await list({ page_size: 1, page_token: first.nextPageToken, filters: [{ content_query: 'zebra' }] });
    assert.deepEqual(
      second.conversationSummaries.map((summary) => idOf(summary.name)),
      [3],
    );
    assert.equal(second.nextPageToken, undefined);
  });

  it('goes on from a token after its conversation is deleted, and shows a conversation updated in between once', async function () {
    const first = await list({ pageSize: 3 });
    assert.deepEqual(
      first.conversationSummaries.map((summary) => idOf(summary.name)),
      [9, 8, 7],
    );
    // Conversation 2 gets the newest update, then the token's conversation is deleted.
    await connect(engine, 'AddConversationQuestion', {
      parent: 'users/~self/conversations/2',
      question: { input: [{ question: { text: 'Where is `parseConfig` defined?' } }] },
    });
    assert.equal((await connect(engine, 'DeleteConversation', { name: 'users/~self/conversations/7' })).status, 200);
    const rest: number[] = [];
    let token = first.nextPageToken;
    while (token) {
      const page = await list({ pageSize: 3, pageToken: token });
      rest.push(...page.conversationSummaries.map((summary) => idOf(summary.name)));
      token = page.nextPageToken;
    }
    assert.deepEqual(rest, [6, 5, 4, 3, 2, 1]);
    await settled(engine, 'users/~self/conversations/2');
  });
});

describe('engine: Connect question shapes and failure variants', function () {
  it('answers only input, answer and createTime in the minimal shape, with the conversation state still mapped', async function () {
    const dataDir = await createTempDir('dse-connect-minimal-');
    await storeConversations(dataDir, [
      answeredConversation({ id: 1, question: 'Stored question', title: 'Stored', answer: 'Stored answer', at: '2026-03-01T09:00:00.000Z' }),
    ]);
    const engine = await startTestEngine({ dataDir, paceMs: 1000, variant: { connectQuestions: 'minimal' } });
    try {
      const stored = await get(engine, 'users/~self/conversations/1');
      assert.deepEqual(stored.json.questions, [
        { input: [{ question: { text: 'Stored question' } }], answer: [{ markdown: { text: 'Stored answer' } }], createTime: '2026-03-01T09:00:00.000Z' },
      ]);
      assert.deepEqual(stored.json.state, { completed: {} });
      assert.equal(stored.json.title, 'Stored');
      const created = await create(engine, 'Where is `parseConfig` defined?');
      assert.deepEqual(Object.keys(created.questions[0] ?? {}).sort(), ['createTime', 'input']);
      assert.deepEqual(created.state, { processing: {} });
      const added = await connect<ConnectQuestion>(engine, 'AddConversationQuestion', {
        parent: 'users/~self/conversations/1',
        question: { input: [{ question: { text: 'More?' } }] },
      });
      assert.deepEqual(Object.keys(added.json).sort(), ['createTime', 'input']);
      await connect(engine, 'CancelConversation', { name: created.name });
      await connect(engine, 'CancelConversation', { name: 'users/~self/conversations/1' });
    } finally {
      await engine.dispose();
      await removeDir(dataDir);
    }
  });

  it('maps the legacy variants\' status "failed" and status "canceled" too', async function () {
    const engine = await startTestEngine({
      paceMs: 800,
      faults: { question: failures },
      variant: { failureStyle: 'status', cancelStyle: 'status', followupReturns: 'conversation' },
    });
    try {
      const failed = await create(engine, 'Where is `parseConfig` defined? QUOTA-FAIL');
      const done = await settled(engine, failed.name);
      assert.equal((await engine.api<WireConversation>(`/${idOf(failed.name)}`)).json.questions[0]?.status, 'failed');
      assert.ok('error' in done.state);
      assert.equal(done.state.error.code, 'ERROR_QUOTA_EXCEEDED');
      assert.equal(Date.parse(done.state.error.retryTime ?? ''), Date.parse(RETRY_TIME));

      const added = await connect<ConnectQuestion>(engine, 'AddConversationQuestion', {
        parent: failed.name,
        question: { input: [{ question: { text: 'Where is `loadConfig` defined?' } }] },
      });
      assert.equal(added.status, 200);
      assert.deepEqual(
        added.json.input,
        [{ question: { text: 'Where is `loadConfig` defined?' } }],
        'the Question even where the legacy API answers the Conversation',
      );
      const canceled = await connect<ConnectConversation>(engine, 'CancelConversation', { name: failed.name });
      assert.equal((await engine.api<WireConversation>(`/${idOf(failed.name)}`)).json.questions[1]?.status, 'canceled');
      assert.deepEqual(canceled.json.state, { canceled: {} });
    } finally {
      await engine.dispose();
    }
  });
});

describe('engine: which conversation APIs a server generation serves (conversationApis)', function () {
  const generations: Array<{ setting: 'legacy' | 'both' | 'connect'; legacy: boolean; connect: boolean }> = [
    { setting: 'legacy', legacy: true, connect: false },
    { setting: 'both', legacy: true, connect: true },
    { setting: 'connect', legacy: false, connect: true },
  ];
  for (const generation of generations) {
    it(`${generation.setting}: serves ${[generation.legacy ? 'the legacy API' : '', generation.connect ? 'the Connect API' : ''].filter(Boolean).join(' and ')}, 404 elsewhere`, async function () {
      const engine = await startTestEngine({ paceMs: 0, variant: { conversationApis: generation.setting } });
      try {
        const created = await connect<ConnectConversation | ConnectErrorBody>(engine, 'CreateConversation', createBody('Where is `parseConfig` defined?'));
        const unknown = await connect<unknown>(engine, 'NoSuchMethod', {});
        if (generation.connect) {
          assert.equal(created.status, 200);
          assertConnectError(unknown, 'unimplemented', 404);
        } else {
          // As a 6.x server: a plain 404, not a Connect error.
          for (const response of [created, unknown]) {
            assert.equal(response.status, 404);
            assert.equal((response.json as { code?: unknown } | undefined)?.code, undefined, response.text);
          }
        }
        const legacyList = await engine.api<WireConversation[]>('/');
        const legacyCreate = await engine.api('/', { method: 'POST', body: { question: 'Where is `loadConfig` defined?' } });
        assert.equal(legacyList.status, generation.legacy ? 200 : 404);
        assert.equal(legacyCreate.status, generation.legacy ? 200 : 404);
        if (generation.legacy) assert.equal(legacyList.json.length, generation.connect ? 1 : 0, 'one store');
        if (generation.setting === 'legacy') {
          // The same data folder served by a 7.x generation: what the 6.x one stored is there.
          const stored = (legacyCreate.json as WireConversation).id;
          await engine.restart({ variant: { conversationApis: 'both' } });
          assert.equal((await get(engine, `users/~self/conversations/${stored}`)).status, 200);
          await engine.restart({ variant: { conversationApis: 'legacy' } });
          assert.equal((await get(engine, `users/~self/conversations/${stored}`)).status, 404);
        }
      } finally {
        await engine.dispose();
      }
    });
  }
});
