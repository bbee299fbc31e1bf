/**
 * Client calls against a scripted `node:http` server playing a remote instance, for the response
 * variants a test must pin down exactly (the local engine covers the same calls end to end).
 */
import assert from 'node:assert/strict';
import type { Dispatcher } from 'undici';
import { DeepSearchClient } from '../../../src/api/client';
import { conversationWebUrl } from '../../../src/api/instance';
import { createDispatcher, undiciTransport } from '../../../src/api/undiciTransport';
import { WIRE_SORTS } from '../../../src/contract/legacyWire';
import { expectError } from './expectError';
import { completedConversation, conversationWithId, firstQuestion, processingConversation, READ_TOKEN } from './samples';
import { json, startScriptedInstance, type Script, type ScriptedInstance } from './scriptedInstance';
import { addFollowup, cancelQuestion, listAllConversations } from '../../support/clientCalls';

describe('client calls against a scripted instance', () => {
  let instance: ScriptedInstance | undefined;
  let dispatcher: Dispatcher;

  beforeEach(() => {
    dispatcher = createDispatcher();
  });

  afterEach(async () => {
    await instance?.close();
    instance = undefined;
    await dispatcher.destroy();
  });

  async function serve(script: Script): Promise<DeepSearchClient> {
    instance = await startScriptedInstance(script);
    return new DeepSearchClient({ instanceUrl: instance.url, token: 'sgp_scripted', transport: undiciTransport(dispatcher), conversationApi: 'legacy' });
  }

  it('accepts 202 Accepted for a new conversation', async () => {
    const client = await serve(() => ({ status: 202, body: processingConversation() }));
    const conversation = await client.createConversation('q');
    assert.equal(conversation.questions[0].state, 'processing');
  });

  it('maps every list option to its query parameter', async () => {
    const client = await serve(() => json([]));
    await client.listConversations({
      filterId: 140,
      filterUserId: 7,
      filterReadToken: READ_TOKEN,
      filterIsStarred: true,
      pageFirst: 25,
      pageAfter: 'cursor-1',
      sort: 'created_at',
    });
    const url = new URL(instance!.requests[0].url, instance!.url);
    assert.equal(url.pathname, '/.api/deepsearch/v1');
    assert.deepEqual(Object.fromEntries(url.searchParams), {
      filter_id: '140',
      filter_user_id: '7',
      filter_read_token: READ_TOKEN,
      filter_is_starred: 'true',
      page_first: '25',
      page_after: 'cursor-1',
      sort: 'created_at',
    });
  });

  it('sends each of the six sort orders as is', async () => {
    const client = await serve(() => json([]));
    for (const sort of WIRE_SORTS) {
      await client.listConversations({ sort });
    }
    assert.deepEqual(
      instance!.requests.map((request) => new URL(request.url, instance!.url).searchParams.get('sort')),
      [...WIRE_SORTS],
    );
  });

  it('pages with the last id when the server sends no cursor', async () => {
    const all = [5, 4, 3, 2, 1].map(conversationWithId);
    const client = await serve((request) => {
      const after = new URL(request.url, 'http://x').searchParams.get('page_after');
      const start = after ? all.findIndex((conversation) => String(conversation.id) === after) + 1 : 0;
      return json(all.slice(start, start + 2));
    });
    const conversations = await listAllConversations(client, { pageFirst: 2, sort: '-id' });
    assert.deepEqual(
      conversations.map((conversation) => conversation.id),
      [5, 4, 3, 2, 1],
    );
    assert.deepEqual(
      instance!.requests.map((request) => new URL(request.url, 'http://x').searchParams.get('page_after')),
      [null, '4', '2'],
    );
  });

  it('follows a cursor the server sends and stops when it repeats', async () => {
    const client = await serve(() => json({ conversations: [conversationWithId(1)], next_cursor: 'same' }));
    const conversations = await listAllConversations(client, { pageFirst: 1 });
    assert.equal(instance!.requests.length, 2, 'the second page repeats the cursor: stop there');
    assert.equal(conversations.length, 2);
  });

  it('sends conversation_id and question for a follow-up, then re-fetches when only the Question comes back', async () => {
    const withFollowup = completedConversation();
    (withFollowup.questions as unknown[]).push({ id: 164, conversation_id: 140, question: 'More?', status: 'processing' });
    const client = await serve((request) =>
      request.method === 'POST'
        ? json({ id: 164, conversation_id: 140, question: 'More?', status: 'processing', suggested_followups: null })
        : json(withFollowup),
    );
    const conversation = await addFollowup(client, 140, 'More?');
    assert.deepEqual(JSON.parse(instance!.requests[0].body), { conversation_id: 140, question: 'More?' });
    assert.deepEqual(
      instance!.requests.map((request) => `${request.method} ${request.url}`),
      ['POST /.api/deepsearch/v1/140/questions', 'GET /.api/deepsearch/v1/140'],
    );
    assert.deepEqual(
      conversation.questions.map((question) => [question.id, question.state]),
      [
        [163, 'completed'],
        [164, 'processing'],
      ],
    );
  });

  it('adds the new question itself when the re-fetched conversation does not show it yet', async () => {
    const client = await serve((request) =>
      request.method === 'POST' ? json({ id: 164, conversation_id: 140, question: 'More?', status: 'pending' }) : json(completedConversation()),
    );
    const conversation = await addFollowup(client, 140, 'More?');
    assert.deepEqual(
      conversation.questions.map((question) => question.id),
      [163, 164],
    );
  });

  it('uses the Conversation directly when a follow-up answers with it', async () => {
    const withFollowup = completedConversation();
    (withFollowup.questions as unknown[]).push({ id: 164, conversation_id: 140, question: 'More?', status: 'processing' });
    const client = await serve(() => json(withFollowup));
    const conversation = await addFollowup(client, 140, 'More?');
    assert.equal(instance!.requests.length, 1, 'no extra GET');
    assert.equal(conversation.questions.length, 2);
  });

  it('accepts any 2xx for cancel, with or without a body, and returns the re-fetched conversation', async () => {
    for (const reply of [{ status: 204 }, { status: 200, body: 'ok' }, { status: 202, body: '{}' }]) {
      const canceled = processingConversation();
      Object.assign(firstQuestion(canceled), { status: 'completed', error: { kind: 'Cancelled', title: 'Cancelled' } });
      const client = await serve((request) => (request.method === 'POST' ? reply : json(canceled)));
      const conversation = await cancelQuestion(client, 140, 163);
      assert.equal(conversation.questions[0].state, 'canceled');
      await instance!.close();
    }
  });

  it('accepts 200 with a body and 204 without one for delete', async () => {
    for (const reply of [{ status: 204 }, json({ deleted: true })]) {
      const client = await serve(() => reply);
      await client.deleteConversation(140);
      assert.equal(instance!.requests[0].method, 'DELETE');
      await instance!.close();
    }
  });

  it('finds a conversation by read token and reports an empty answer as not found', async () => {
    const client = await serve((request) => (request.url.includes(READ_TOKEN) ? json([completedConversation()]) : json([])));
    assert.equal((await client.getConversationByReadToken(READ_TOKEN)).id, 140);
    const error = await expectError(client.getConversationByReadToken('00000000-0000-0000-0000-000000000000'), 'notFound');
    assert.match(error.message, /sharing is turned off/);
  });

  it("does not take the user's own newest conversation from a server that ignores the read-token filter", async () => {
    // This instance ignores filter_read_token and answers the user's list.
    const client = await serve(() => json([{ ...completedConversation(), id: 7, read_token: '11111111-2222-3333-4444-555555555555' }]));
    await expectError(client.getConversationByReadToken(READ_TOKEN), 'notFound');
  });

  it('builds the web URL from share_url, else from the read token under the instance prefix', async () => {
    const client = await serve(() => json([]));
    const prefixed = new DeepSearchClient({
      instanceUrl: `${instance!.url}/sg/`,
      token: 't0ken',
      transport: undiciTransport(dispatcher),
      conversationApi: 'legacy',
    });
    assert.equal(conversationWebUrl(client.instanceUrl, { shareUrl: 'https://sg.example.com/deepsearch/abc' }), 'https://sg.example.com/deepsearch/abc');
    assert.equal(conversationWebUrl(prefixed.instanceUrl, { readToken: 'abc' }), `${instance!.url}/sg/deepsearch/abc`);
  });
});
