/**
 * Waiting for an answer outside the panel (chat, agent tools): a real ConversationStore and client
 * against the engine on loopback.
 */
import assert from 'node:assert/strict';
import { DeepSearchClient } from '../../../src/api/client';
import { ConversationStore } from '../../../src/conversations/conversationStore';
import type { Turn } from '../../../src/model/conversation';
import { untilAnswered } from '../../../src/conversations/questionWatch';
import { startTestEngine, TEST_TOKENS, type TestEngine } from '../../support/engineHarness';

describe('waiting for an answer outside the panel', function () {
  this.timeout(60_000);
  let engine: TestEngine;
  let store: ConversationStore;

  before(async () => {
    engine = await startTestEngine({ paceMs: 150 });
  });
  after(async () => {
    await engine?.stop();
  });
  beforeEach(() => {
    // Polls slowly unless watched: the wait must make it poll as a visible panel does.
    store = new ConversationStore({ watchedIntervalMs: 50, hiddenIntervalMs: 60_000 });
    store.setClient(new DeepSearchClient({ instanceUrl: engine.url, token: TEST_TOKENS[0] }));
  });
  afterEach(() => store.dispose());

  it('reports each reasoning turn once, in order, and resolves with the finished question', async () => {
    const conversation = await store.ask('Where is parseConfig defined?');
    const question = conversation.questions[0];
    const turns: Turn[] = [];
    const finished = await untilAnswered(store, conversation.id, question.id, { onTurn: (turn) => turns.push(turn) });
    assert.equal(finished.state, 'completed');
    assert.match(finished.answer ?? '', /config\.ts/);
    assert.deepEqual(
      turns.map((turn) => turn.reasoning),
      finished.turns.map((turn) => turn.reasoning),
      'every turn, once, in order',
    );
    assert.equal(store.isWatched(conversation.id), false, 'no longer polled fast');
  });

  it('keeps a panel’s watch when it stops waiting, and rejects when the caller gives up', async () => {
    const conversation = await store.ask('Where is loadConfig called?');
    store.setWatched(conversation.id, true);
    const abort = new AbortController();
    const waiting = assert.rejects(
      untilAnswered(store, conversation.id, conversation.questions[0].id, { signal: abort.signal }),
      (error: unknown) => (error as { kind?: string }).kind === 'canceled',
    );
    abort.abort();
    await waiting;
    assert.equal(store.isWatched(conversation.id), true, 'the panel still watches');
  });

  it('rejects when the conversation is deleted meanwhile', async () => {
    const conversation = await store.ask('What does validate check?');
    const waiting = assert.rejects(untilAnswered(store, conversation.id, conversation.questions[0].id), /no longer there/);
    await store.delete(conversation.id);
    await waiting;
  });
});
