/**
 * The ConversationStore with a real DeepSearchClient against the real local engine on loopback:
 * asking, polling until answered, paging, follow-ups, cancel, delete, account switches, resuming
 * after a reload, watched vs hidden polling, shared conversations and the starred filter.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { Dispatcher } from 'undici';
import { DeepSearchClient } from '../../../src/api/client';
import { conversationLabel } from '../../../src/model/conversationLabel';
import { ConversationStore, type ConversationStoreOptions, type RunningIdsMemento, type StoreChange } from '../../../src/conversations/conversationStore';
import { createDispatcher, undiciTransport } from '../../../src/api/undiciTransport';
import { isUnfinished, type Conversation } from '../../../src/model/conversation';
import type { PollerClock } from '../../../src/conversations/poller';
import { API_PATH } from '../../../src/contract/legacyWire';
import { startTestEngine, TEST_TOKENS, TEST_USERS, waitFor, type TestEngine } from '../../support/engineHarness';

const QUESTION = 'Where is parseConfig defined and what does it check?';
const PAGER_TOKEN = 'dse_store_pager_token';
/** Fast polling for most tests: both intervals are short so nothing waits on a slow schedule. */
const FAST: ConversationStoreOptions = { watchedIntervalMs: 20, hiddenIntervalMs: 40 };

/** A memento that keeps what was saved, like `globalState` would across a reload. */
class RecordingMemento implements RunningIdsMemento {
  saves: number[][] = [];
  constructor(private stored: number[] = []) {}
  load(): number[] {
    return [...this.stored];
  }
  save(ids: number[]): void {
    this.stored = [...ids];
    this.saves.push([...ids]);
  }
  get current(): number[] {
    return [...this.stored];
  }
}

/**
 * Real timers, except that while `parking` is on, timers set for later than now are kept and never
 * fire: what a poller in a long backoff looks like, without waiting for it.
 */
class ParkingClock implements PollerClock {
  parking = false;
  private readonly kept = new Set<object>();

  get parked(): number {
    return this.kept.size;
  }

  now(): number {
    return Date.now();
  }

  setTimeout(callback: () => void, ms: number): unknown {
    if (this.parking && ms > 0) {
      const handle = {};
      this.kept.add(handle);
      return handle;
    }
    return setTimeout(callback, ms);
  }

  clearTimeout(handle: unknown): void {
    if (this.kept.delete(handle as object)) return;
    clearTimeout(handle as NodeJS.Timeout);
  }
}

describe('ConversationStore against the local engine', () => {
  const dispatchers: Dispatcher[] = [];
  const stores: ConversationStore[] = [];
  /** GET requests per API path (e.g. `/12`), counted by the engine's request hook. */
  const gets = new Map<string, number>();
  /** API paths whose GETs the engine answers with 503 (an instance having trouble). */
  const failingGets = new Set<string>();
  let engine: TestEngine;

  function getsOf(id: number): number {
    return gets.get(`/${id}`) ?? 0;
  }

  function clientFor(token: string, instanceUrl = engine.url): DeepSearchClient {
    const dispatcher = createDispatcher();
    dispatchers.push(dispatcher);
    return new DeepSearchClient({ instanceUrl, token, transport: undiciTransport(dispatcher), retry: { baseDelayMs: 10 } });
  }

  /** A store (disposed after the suite) signed in as `token`, unless `token` is null. */
  function storeFor(token: string | null, options: ConversationStoreOptions = FAST): ConversationStore {
    const store = new ConversationStore(options);
    stores.push(store);
    if (token !== null) store.setClient(clientFor(token));
    return store;
  }

  function changesOf(store: ConversationStore): StoreChange[] {
    const changes: StoreChange[] = [];
    store.onDidChange((change) => changes.push(change));
    return changes;
  }

  function finishesOf(store: ConversationStore): Conversation[] {
    const finished: Conversation[] = [];
    store.onDidFinish((conversation) => finished.push(conversation));
    return finished;
  }

  /** Waits (without fetching) until the store holds the conversation finished. */
  function untilFinishedInStore(store: ConversationStore, id: number, timeoutMs = 10_000): Promise<Conversation | undefined> {
    return waitFor(
      async () => store.get(id),
      (conversation) => conversation !== undefined && !isUnfinished(conversation),
      { description: `conversation ${id} to finish in the store`, timeoutMs },
    );
  }

  before(async () => {
    engine = await startTestEngine({
      paceMs: 20,
      // The store's behaviour, watched through the legacy API's GETs (a 6.x server); the 7.x API's
      // part is the suite below.
      variant: { conversationApis: 'legacy' },
      users: [...TEST_USERS, { token: PAGER_TOKEN, id: 3, name: 'pager' }],
      faults: {
        request: ({ method, path: requestPath }) => {
          if (method === 'GET' && requestPath.startsWith(API_PATH)) {
            const key = requestPath.slice(API_PATH.length) || '/';
            gets.set(key, (gets.get(key) ?? 0) + 1);
            if (failingGets.has(key)) return { kind: 'status', status: 503 };
          }
          return undefined;
        },
      },
    });
  });

  afterEach(() => {
    for (const store of stores.splice(0)) store.dispose();
  });

  after(async () => {
    await engine.dispose();
    await Promise.all(dispatchers.map((dispatcher) => dispatcher.destroy()));
  });

  describe('asking', () => {
    it('stores a new conversation, lists it first and polls it until completed without anyone fetching', async () => {
      const store = storeFor(TEST_TOKENS[0]);
      await engine.waitUntilFinished((await engine.ask('An earlier question')).id);
      await store.refreshList();
      assert.ok(store.listed.length > 0);
      const changes = changesOf(store);
      const finished = finishesOf(store);

      const asked = await store.ask(QUESTION);
      assert.equal(store.get(asked.id)?.questions[0]?.text, QUESTION);
      assert.equal(store.listed[0]?.id, asked.id);
      assert.equal(store.listed.filter((conversation) => conversation.id === asked.id).length, 1);
      assert.ok(
        changes.some((change) => change.changed.includes(asked.id)),
        'onDidChange names the new conversation',
      );
      assert.ok(
        changes.some((change) => change.listChanged),
        'and says the list changed: views that repaint changed rows only must add its row',
      );
      assert.equal(store.runningCount, 1);

      const done = await untilFinishedInStore(store, asked.id);
      assert.equal(done?.questions[0]?.state, 'completed');
      assert.match(done?.questions[0]?.answer ?? '', /parseConfig/);
      assert.equal(store.runningCount, 0);
      assert.equal(store.listed[0]?.id, asked.id);
      assert.ok(changes.filter((change) => change.changed.includes(asked.id)).length >= 2, 'polling published the answer');
      assert.deepEqual(
        finished.map((conversation) => conversation.id),
        [asked.id],
      );
    });

    it('fires onDidFinish exactly once when the question completes', async () => {
      const store = storeFor(TEST_TOKENS[0]);
      const finished = finishesOf(store);
      const asked = await store.ask(QUESTION);
      await untilFinishedInStore(store, asked.id);
      // Give the poller several more intervals in which a duplicate would show up.
      const polled = getsOf(asked.id);
      await new Promise((resolve) => setTimeout(resolve, 150));
      assert.equal(getsOf(asked.id), polled, 'a finished conversation is not polled any more');
      assert.deepEqual(
        finished.map((conversation) => conversation.id),
        [asked.id],
      );
      assert.equal(finished[0]?.questions[0]?.state, 'completed');
    });

    it('counts running conversations: 1 while processing, 0 once answered', async () => {
      const store = storeFor(TEST_TOKENS[0]);
      const counts: number[] = [store.runningCount];
      store.onDidChange(() => counts.push(store.runningCount));
      const asked = await store.ask(QUESTION);
      assert.equal(store.runningCount, 1);
      await untilFinishedInStore(store, asked.id);
      assert.equal(store.runningCount, 0);
      assert.equal(counts[0], 0);
      assert.ok(counts.includes(1));
      assert.equal(counts[counts.length - 1], 0);
    });

    it('saves the ids of running conversations in the memento, and drops them once finished', async () => {
      const memento = new RecordingMemento();
      const store = storeFor(TEST_TOKENS[0], { ...FAST, memento });
      const asked = await store.ask(QUESTION);
      assert.deepEqual(memento.current, [asked.id]);
      await untilFinishedInStore(store, asked.id);
      assert.deepEqual(memento.current, []);
      assert.ok(memento.saves.some((ids) => ids.includes(asked.id)));
    });

    it('fires onDidFinish when a refreshed list is the first to show the question finished', async () => {
      // Hidden polling is slow, so only the list can tell the store that the question finished.
      const store = storeFor(TEST_TOKENS[0], { watchedIntervalMs: 20, hiddenIntervalMs: 60_000 });
      const finished = finishesOf(store);
      const asked = await store.ask(QUESTION);
      await waitFor(
        async () => getsOf(asked.id),
        (count) => count >= 1,
        { description: 'the first refresh' },
      );
      await engine.waitUntilFinished(asked.id);
      await store.refreshList();
      assert.equal(store.get(asked.id)?.questions[0]?.state, 'completed');
      assert.equal(store.runningCount, 0);
      assert.deepEqual(
        finished.map((conversation) => conversation.id),
        [asked.id],
      );
    });
  });

  describe('listing', () => {
    const created: number[] = [];
    let pager: DeepSearchClient;

    before(async () => {
      pager = clientFor(PAGER_TOKEN);
      for (let index = 0; index < 5; index++) created.push((await pager.createConversation(`Paging question ${index}`)).id);
      for (const id of created) {
        await waitFor(
          () => pager.getConversation(id),
          (conversation) => !isUnfinished(conversation),
          { timeoutMs: 15_000 },
        );
      }
    });

    it('pages with refreshList and loadMore through more conversations than pageSize, without duplicates', async () => {
      const store = new ConversationStore({ ...FAST, pageSize: 2 });
      stores.push(store);
      store.setClient(pager);
      const changes = changesOf(store);
      assert.equal(store.isListLoaded, false);

      await store.refreshList();
      assert.equal(store.isListLoaded, true);
      assert.equal(store.listed.length, 2);
      assert.equal(store.hasMore, true);
      assert.ok(changes.some((change) => change.listChanged));

      await store.loadMore();
      assert.equal(store.listed.length, 4);
      assert.equal(store.hasMore, true);
      await store.loadMore();
      assert.equal(store.hasMore, false);

      const ids = store.listed.map((conversation) => conversation.id);
      assert.equal(new Set(ids).size, ids.length, 'no conversation is listed twice');
      assert.deepEqual(
        [...ids].sort((a, b) => a - b),
        [...created].sort((a, b) => a - b),
      );
      const serverOrder = (await pager.listConversations({ sort: '-updated_at', pageFirst: 100 })).conversations.map((c) => c.id);
      assert.deepEqual(ids, serverOrder, 'newest update first');

      await store.loadMore();
      assert.deepEqual(
        store.listed.map((conversation) => conversation.id),
        ids,
        'loadMore at the end changes nothing',
      );
    });

    it('keeps at most maxListed conversations while paging on, letting go of the newest ones nobody opened', async () => {
      const store = new ConversationStore({ ...FAST, pageSize: 2, maxListed: 2 });
      stores.push(store);
      store.setClient(pager);
      const serverOrder = (await pager.listConversations({ sort: '-updated_at', pageFirst: 100 })).conversations.map((c) => c.id);
      const [newest, second] = serverOrder;
      await store.refreshList();
      assert.equal(store.hasNewer, false);
      // Opened (fetched on its own): it must survive being paged past, a panel may show it.
      await store.fetch(second);

      await store.loadMore();
      assert.deepEqual(
        store.listed.map((conversation) => conversation.id),
        serverOrder.slice(2, 4),
      );
      assert.equal(store.hasNewer, true);
      assert.equal(store.get(newest), undefined, 'a conversation known from the list only is let go');
      assert.equal(store.get(second)?.id, second, 'an opened conversation stays');

      // The last page has one: the window still shows maxListed, the oldest ones.
      await store.loadMore();
      assert.deepEqual(
        store.listed.map((conversation) => conversation.id),
        serverOrder.slice(-2),
      );
      assert.equal(store.hasMore, false);

      await store.refreshList();
      assert.equal(store.hasNewer, false);
      assert.deepEqual(
        store.listed.map((conversation) => conversation.id),
        serverOrder.slice(0, 2),
      );
    });

    it('starts again from the first page on refreshList', async () => {
      const store = new ConversationStore({ ...FAST, pageSize: 2 });
      stores.push(store);
      store.setClient(pager);
      await store.refreshList();
      await store.loadMore();
      await store.loadMore();
      assert.equal(store.listed.length, 5);
      await store.refreshList();
      assert.equal(store.listed.length, 2);
      assert.equal(store.hasMore, true);
    });

    it('starts the list over when the conversation its cursor names was deleted meanwhile', async () => {
      const store = new ConversationStore({ ...FAST, pageSize: 2 });
      stores.push(store);
      store.setClient(pager);
      const extra = await pager.createConversation('Paging question to delete');
      await waitFor(
        () => pager.getConversation(extra.id),
        (conversation) => !isUnfinished(conversation),
        { timeoutMs: 15_000 },
      );
      await store.refreshList();
      const cursorId = store.listed[1].id;
      await pager.deleteConversation(cursorId);
      await store.loadMore();
      assert.equal(store.listed.length, 2, 'the first page again');
      assert.ok(!store.listed.some((conversation) => conversation.id === cursorId));
      assert.equal(store.hasMore, true);
    });
  });

  describe('follow-ups, cancel and delete', () => {
    it('appends a follow-up and resumes polling until it is answered', async () => {
      const store = storeFor(TEST_TOKENS[0]);
      const finished = finishesOf(store);
      const asked = await store.ask(QUESTION);
      await untilFinishedInStore(store, asked.id);
      assert.equal(finished.length, 1);

      const withFollowup = await store.addFollowup(asked.id, 'Who calls loadConfig?');
      assert.deepEqual(
        withFollowup.questions.map((question) => question.text),
        [QUESTION, 'Who calls loadConfig?'],
      );
      assert.equal(store.get(asked.id)?.questions.length, 2);
      assert.equal(store.runningCount, 1);

      const done = await untilFinishedInStore(store, asked.id);
      assert.equal(done?.questions[1]?.state, 'completed');
      assert.equal(store.runningCount, 0);
      assert.equal(finished.length, 2);
      assert.equal(finished[1]?.questions.length, 2);
    });

    it('ignores a poll answer that left the server before a follow-up, and polls the follow-up to the end', async () => {
      // A real client whose GET answers arrive late, as when the network reorders responses.
      let release: () => void = () => undefined;
      let held: Promise<void> | undefined;
      class LateClient extends DeepSearchClient {
        override async getConversation(id: number, signal?: AbortSignal): Promise<Conversation> {
          const gate = held;
          const conversation = await super.getConversation(id, signal);
          await gate;
          return conversation;
        }
      }
      const dispatcher = createDispatcher();
      dispatchers.push(dispatcher);
      const store = storeFor(null);
      store.setClient(new LateClient({ instanceUrl: engine.url, token: TEST_TOKENS[0], transport: undiciTransport(dispatcher) }));
      const asked = await store.ask(QUESTION);
      await untilFinishedInStore(store, asked.id);

      const served = getsOf(asked.id);
      held = new Promise((resolve) => (release = resolve));
      const staleFetch = store.fetch(asked.id);
      held = undefined;
      // The engine has taken the GET (and answers it at once): its answer predates the follow-up.
      await waitFor(
        async () => getsOf(asked.id),
        (count) => count > served,
        { description: 'the GET to reach the engine' },
      );
      await store.addFollowup(asked.id, 'Who calls loadConfig?');
      release();
      await staleFetch;
      assert.equal(store.get(asked.id)?.questions.length, 2, 'the stale answer rolled the follow-up back');
      const done = await untilFinishedInStore(store, asked.id);
      assert.equal(done?.questions[1]?.state, 'completed');
    });

    it('reports a follow-up as sent once the server took it, even when fetching the conversation then fails', async () => {
      const store = storeFor(TEST_TOKENS[0]);
      const asked = await store.ask(QUESTION);
      await untilFinishedInStore(store, asked.id);
      failingGets.add(`/${asked.id}`);
      try {
        const sent = await store.addFollowup(asked.id, 'Who calls loadConfig?');
        assert.deepEqual(
          sent.questions.map((question) => question.text),
          [QUESTION, 'Who calls loadConfig?'],
        );
        assert.equal(store.get(asked.id)?.questions.length, 2);
      } finally {
        failingGets.delete(`/${asked.id}`);
      }
      const done = await untilFinishedInStore(store, asked.id);
      assert.equal(done?.questions[1]?.state, 'completed', 'polling caught up once the instance recovered');
    });

    it('cancels a processing question: it ends canceled and nothing is running', async () => {
      const store = storeFor(TEST_TOKENS[0]);
      const asked = await store.ask(QUESTION);
      const canceled = await store.cancel(asked.id, asked.questions[0].id);
      assert.equal(canceled.questions[0]?.state, 'canceled');
      // A refresh that was already in flight may briefly bring back "processing"; it settles.
      const settled = await untilFinishedInStore(store, asked.id);
      assert.equal(settled?.questions[0]?.state, 'canceled');
      assert.equal(store.runningCount, 0);
      assert.equal((await engine.waitUntilFinished(asked.id)).questions[0]?.error?.kind, 'Cancelled');
    });

    it('deletes a conversation: emits removed and no longer lists it', async () => {
      const store = storeFor(TEST_TOKENS[0]);
      await store.refreshList();
      const asked = await store.ask(QUESTION);
      await untilFinishedInStore(store, asked.id);
      const changes = changesOf(store);

      await store.delete(asked.id);
      assert.equal(store.get(asked.id), undefined);
      assert.ok(!store.listed.some((conversation) => conversation.id === asked.id));
      assert.ok(changes.some((change) => change.removed.includes(asked.id) && change.listChanged));
      assert.equal((await engine.api(`/${asked.id}`)).status, 404);
      await store.refreshList();
      assert.ok(!store.listed.some((conversation) => conversation.id === asked.id));
    });

    it('forgets a conversation that was deleted on the server while it was polled', async () => {
      const store = storeFor(TEST_TOKENS[0]);
      await store.refreshList();
      const changes = changesOf(store);
      const finished = finishesOf(store);
      const asked = await store.ask(QUESTION);
      assert.equal((await engine.api(`/${asked.id}`, { method: 'DELETE' })).status, 204);

      await waitFor(
        async () => changes,
        () => changes.some((change) => change.removed.includes(asked.id)),
        {
          description: 'the store to notice the deletion',
        },
      );
      assert.equal(store.get(asked.id), undefined);
      assert.ok(!store.listed.some((conversation) => conversation.id === asked.id));
      assert.equal(store.runningCount, 0);
      assert.deepEqual(finished, []);
    });
  });

  describe('switching clients', () => {
    it('does not emit reset for the first client', () => {
      const store = storeFor(null);
      const changes = changesOf(store);
      assert.equal(store.signedIn, false);
      store.setClient(clientFor(TEST_TOKENS[0]));
      assert.equal(store.signedIn, true);
      assert.equal(store.instanceUrl, engine.url);
      assert.equal(changes.length, 1);
      assert.notEqual(changes[0]?.reset, true);
    });

    it('emits reset and clears everything when signed out after a client', async () => {
      const store = storeFor(TEST_TOKENS[0]);
      await store.refreshList();
      const asked = await store.ask(QUESTION);
      const changes = changesOf(store);

      store.setClient(undefined);
      assert.equal(changes.length, 1);
      assert.equal(changes[0]?.reset, true);
      assert.equal(store.signedIn, false);
      assert.equal(store.get(asked.id), undefined);
      assert.deepEqual(store.listed, []);
      assert.equal(store.isListLoaded, false);
      assert.equal(store.hasMore, false);
      assert.equal(store.runningCount, 0);
      await assert.rejects(store.refreshList(), /sign in/i);

      // Nothing of the previous account comes back from a poll that was under way.
      await engine.waitUntilFinished(asked.id);
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(store.get(asked.id), undefined);
      assert.equal(changes.length, 1);
    });

    it('emits reset when switching to another account, and keeps nothing of the first', async () => {
      const store = storeFor(TEST_TOKENS[0]);
      await store.refreshList();
      const asked = await store.ask(QUESTION);
      const changes = changesOf(store);
      store.setClient(clientFor(TEST_TOKENS[1]));
      assert.equal(changes[0]?.reset, true);
      assert.equal(store.get(asked.id), undefined);
      await store.refreshList();
      assert.ok(!store.listed.some((conversation) => conversation.id === asked.id));
    });

    it('keeps its state for a rebuilt client of the same account, and goes on polling with it', async () => {
      const store = storeFor(TEST_TOKENS[0]);
      await store.refreshList();
      const asked = await store.ask(QUESTION);
      const listedBefore = store.listed.map((conversation) => conversation.id);
      const changes = changesOf(store);

      store.setClient(clientFor(TEST_TOKENS[0]), { sameAccount: true });
      assert.ok(!changes.some((change) => change.reset), 'no reset');
      assert.equal(store.get(asked.id)?.id, asked.id);
      assert.deepEqual(
        store.listed.map((conversation) => conversation.id),
        listedBefore,
      );
      assert.equal(store.isListLoaded, true);
      assert.equal((await untilFinishedInStore(store, asked.id))?.questions[0]?.state, 'completed');
    });

    it('refreshes at once, on a new client of the same account, a question left in backoff by failed polls', async () => {
      const clock = new ParkingClock();
      const store = storeFor(TEST_TOKENS[0], { ...FAST, clock });
      const asked = await store.ask(QUESTION);
      failingGets.add(`/${asked.id}`);
      try {
        // From now on, the poller's next (backoff) refresh after a failure never comes by itself.
        clock.parking = true;
        await waitFor(
          async () => clock.parked,
          (parked) => parked > 0,
          { description: 'a refresh left for later after a failed poll' },
        );
      } finally {
        failingGets.delete(`/${asked.id}`);
      }
      await engine.waitUntilFinished(asked.id);
      assert.ok(isUnfinished(store.get(asked.id)!), 'the store has not seen it finish: its next refresh is parked');

      store.setClient(clientFor(TEST_TOKENS[0]), { sameAccount: true });
      assert.equal((await untilFinishedInStore(store, asked.id))?.questions[0]?.state, 'completed');
    });

    it('resumes polling a processing question after a reload, from the ids in the memento', async () => {
      const created = await engine.ask(QUESTION);
      const memento = new RecordingMemento([created.id]);
      const store = storeFor(null, { ...FAST, memento });
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(store.get(created.id), undefined, 'nothing is polled before a client is set');

      store.setClient(clientFor(TEST_TOKENS[0]));
      const done = await untilFinishedInStore(store, created.id);
      assert.equal(done?.questions[0]?.state, 'completed');
      assert.deepEqual(memento.current, []);
    });
  });

  describe('watched and hidden polling', () => {
    it('refreshes a watched conversation often and leaves a hidden one for the hidden interval', async () => {
      const store = storeFor(TEST_TOKENS[0], { watchedIntervalMs: 30, hiddenIntervalMs: 60_000 });
      const hidden = await store.ask('A question nobody looks at');
      const watched = await store.ask(QUESTION);
      store.setWatched(watched.id, true);
      assert.equal(store.isWatched(watched.id), true);
      assert.equal(store.isWatched(hidden.id), false);
      // Each new question is refreshed once at once; after that only the watched one is.
      await waitFor(
        async () => getsOf(hidden.id),
        (count) => count >= 1,
        { description: 'the first refresh' },
      );
      const hiddenGets = getsOf(hidden.id);
      const watchedGetsBefore = getsOf(watched.id);

      const done = await untilFinishedInStore(store, watched.id);
      assert.equal(done?.questions[0]?.state, 'completed');
      assert.ok(getsOf(watched.id) - watchedGetsBefore >= 2, 'the watched conversation was polled repeatedly');
      assert.equal(getsOf(hidden.id), hiddenGets, 'the hidden conversation was not refreshed meanwhile');
      assert.ok(isUnfinished(store.get(hidden.id)!), 'the store still shows the hidden one as it was');

      // Looking at it makes it polled at the watched pace too.
      store.setWatched(hidden.id, true);
      assert.equal((await untilFinishedInStore(store, hidden.id))?.questions[0]?.state, 'completed');
    });

    it('stops polling fast once nobody watches any more', async () => {
      const store = storeFor(TEST_TOKENS[0], { watchedIntervalMs: 30, hiddenIntervalMs: 60_000 });
      const asked = await store.ask(QUESTION);
      store.setWatched(asked.id, true);
      await waitFor(
        async () => getsOf(asked.id),
        (count) => count >= 2,
        { description: 'a watched refresh' },
      );
      store.setWatched(asked.id, false);
      assert.equal(store.isWatched(asked.id), false);
      const count = getsOf(asked.id);
      // Several watched intervals pass; only the store's own requests are counted here.
      await new Promise((resolve) => setTimeout(resolve, 200));
      // At most one refresh that was already under way when the watcher left.
      assert.ok(getsOf(asked.id) - count <= 1, `polled ${getsOf(asked.id) - count} more times while hidden`);
    });
  });

  describe('shared conversations', () => {
    it("opens another user's conversation by read token as read-only, without listing it", async () => {
      const theirs = await engine.waitUntilFinished((await engine.ask(QUESTION, 1)).id, 1);
      const store = storeFor(TEST_TOKENS[0]);
      await store.refreshList();
      const changes = changesOf(store);

      const opened = await store.openShared(theirs.read_token!);
      assert.equal(opened.id, theirs.id);
      assert.equal(opened.isOwner, false);
      assert.equal(store.get(theirs.id)?.isOwner, false);
      assert.ok(changes.some((change) => change.changed.includes(theirs.id)));
      assert.ok(!store.listed.some((conversation) => conversation.id === theirs.id));
      await store.refreshList();
      assert.ok(!store.listed.some((conversation) => conversation.id === theirs.id));
    });

    it("opens another user's conversation that is still running, follows it to the end, and never lists it", async () => {
      const theirs = await engine.ask(QUESTION, 1);
      const store = storeFor(TEST_TOKENS[0]);
      await store.refreshList();
      const changes = changesOf(store);

      const opened = await store.openShared(theirs.read_token!);
      assert.equal(opened.id, theirs.id);
      assert.ok(!store.listed.some((conversation) => conversation.id === theirs.id));
      assert.equal(opened.isOwner, undefined, 'the server says nothing of ownership while it runs');
      assert.equal(store.isReadOnly(theirs.id), true, 'read-only while it runs');
      const done = await untilFinishedInStore(store, theirs.id);
      assert.equal(store.isReadOnly(theirs.id), true);
      assert.equal(done?.questions[0]?.state, 'completed');
      assert.equal(done?.isOwner, false);
      assert.ok(!changes.some((change) => change.removed.includes(theirs.id)), 'not reported as deleted');
      assert.ok(!store.listed.some((conversation) => conversation.id === theirs.id));
    });
  });

  it("treats the user's own conversations as editable, even opened by their read token", async () => {
    const store = storeFor(TEST_TOKENS[0]);
    const mine = await store.ask(QUESTION);
    assert.equal(store.isReadOnly(mine.id), false);
    await untilFinishedInStore(store, mine.id);
    await store.openShared(mine.readToken!);
    await untilFinishedInStore(store, mine.id);
    const fetched = await store.fetch(mine.id);
    assert.equal(fetched.isOwner, true);
    assert.equal(store.isReadOnly(mine.id), false);
  });

  describe('starred filter', () => {
    let starredEngine: TestEngine;
    const ids: number[] = [];

    before(async () => {
      starredEngine = await startTestEngine({ paceMs: 5 });
      for (const text of ['First question', 'Second question', 'Third question']) ids.push((await starredEngine.ask(text)).id);
      for (const id of ids) await starredEngine.waitUntilFinished(id);
      // The API has no call to star a conversation: star one in the engine's stored data.
      await starredEngine.stop();
      const file = path.join(starredEngine.dataDir, 'conversations', `${ids[1]}.json`);
      const stored = JSON.parse(await readFile(file, 'utf8')) as { conversation: { starred: boolean } };
      stored.conversation.starred = true;
      await writeFile(file, JSON.stringify(stored));
      await starredEngine.restart();
    });

    after(async () => {
      await starredEngine.dispose();
    });

    it('lists only starred conversations when starredOnly is on, and all again when it is off', async () => {
      const store = storeFor(null);
      store.setClient(clientFor(TEST_TOKENS[0], starredEngine.url));
      await store.refreshList();
      assert.deepEqual(
        store.listed.map((conversation) => conversation.id).sort((a, b) => a - b),
        [...ids].sort((a, b) => a - b),
      );
      assert.equal(store.starredOnly, false);

      await store.setStarredOnly(true);
      assert.equal(store.starredOnly, true);
      assert.deepEqual(
        store.listed.map((conversation) => conversation.id),
        [ids[1]],
      );

      await store.setStarredOnly(false);
      assert.equal(store.starredOnly, false);
      assert.equal(store.listed.length, 3);
    });
  });
});

describe('ConversationStore on a 7.x server (the new conversation API)', () => {
  let engine: TestEngine;
  const dispatchers: Dispatcher[] = [];
  const stores: ConversationStore[] = [];

  function store(): ConversationStore {
    const dispatcher = createDispatcher();
    dispatchers.push(dispatcher);
    const created = new ConversationStore(FAST);
    created.setClient(
      new DeepSearchClient({ instanceUrl: engine.url, token: TEST_TOKENS[0], transport: undiciTransport(dispatcher), retry: { baseDelayMs: 10 } }),
    );
    stores.push(created);
    return created;
  }

  before(async () => {
    engine = await startTestEngine({ paceMs: 20, variant: { conversationApis: 'both' } });
  });
  after(async () => {
    for (const created of stores) created.dispose();
    await engine.dispose();
    await Promise.all(dispatchers.map((dispatcher) => dispatcher.destroy()));
  });

  it('asks and polls to the answer; lists summaries by title; opening one loads its questions; shares through the legacy read token', async () => {
    const first = store();
    const asked = await first.ask(QUESTION);
    const done = await waitFor(
      async () => first.get(asked.id),
      (conversation) => conversation !== undefined && !isUnfinished(conversation),
      {
        description: 'the answer in the store',
      },
    );
    assert.equal(done?.questions[0]?.state, 'completed');

    const second = store();
    await second.refreshList();
    const listed = second.listed.find((conversation) => conversation.id === asked.id);
    assert.equal(listed?.summaryOnly, true);
    assert.equal(conversationLabel(listed), listed?.title, "the label is the summary's title");
    const opened = await second.load(asked.id);
    assert.equal(opened.questions[0]?.text, QUESTION, 'opening a summary fetches the conversation');
    await second.refreshList();
    assert.equal(second.get(asked.id)?.questions.length, 1, 'a later summary keeps the questions a fetch brought');

    // Continued elsewhere (another window): the next list has a newer summary, and the store fetches it again.
    await first.addFollowup(asked.id, 'Continued elsewhere?');
    await waitFor(
      async () => first.get(asked.id),
      (conversation) => conversation?.questions.length === 2 && !isUnfinished(conversation),
      {
        description: 'the follow-up of the other window answered',
      },
    );
    await second.refreshList();
    await waitFor(
      async () => second.get(asked.id),
      (conversation) => conversation?.questions.length === 2 && !isUnfinished(conversation),
      {
        description: 'the newer summary to bring the conversation again',
      },
    );

    const link = await second.shareLink(asked.id);
    assert.match(link ?? '', new RegExp(`^${engine.url}/deepsearch/[0-9a-f-]{36}$`));

    await second.addFollowup(asked.id, 'What calls it?');
    const followed = await waitFor(
      async () => second.get(asked.id),
      (conversation) => conversation?.questions.length === 3 && !isUnfinished(conversation),
      {
        description: 'the follow-up answered',
      },
    );
    assert.equal(followed?.questions[2]?.state, 'completed');
    await second.delete(asked.id);
    assert.equal(second.get(asked.id), undefined);
  });
});
