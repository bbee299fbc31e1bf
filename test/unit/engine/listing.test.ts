import assert from 'node:assert/strict';
import { WIRE_SORTS, type WireConversation, type WireConversationList, type WireErrorBody, type WireSort } from '../../../src/contract/legacyWire';
import { startTestEngine, type TestEngine } from '../../support/engineHarness';

/** What the order should be: the sort key, then id, both in the sort's direction. */
function expectedOrder(conversations: readonly WireConversation[], sort: WireSort): number[] {
  const descending = sort.startsWith('-');
  const key = (descending ? sort.slice(1) : sort) as 'id' | 'created_at' | 'updated_at';
  return [...conversations]
    .sort((a, b) => {
      const byKey = key === 'id' ? 0 : Date.parse(a[key]) - Date.parse(b[key]);
      return (descending ? -1 : 1) * (byKey || a.id - b.id);
    })
    .map((conversation) => conversation.id);
}

describe('engine: listing conversations', function () {
  let engine: TestEngine;
  let mine: WireConversation[];
  before(async function () {
    engine = await startTestEngine({ paceMs: 0 });
    const ids: number[] = [];
    for (let index = 0; index < 7; index++) ids.push((await engine.ask(`Where is \`parseConfig\` used? (${index})`)).id);
    await engine.ask('Where is `loadConfig` used?', 1);
    mine = [];
    for (const id of ids) mine.push(await engine.waitUntilFinished(id));
    // A follow-up on the oldest gives it the newest updated_at, so created_at and updated_at orders differ.
    const oldest = mine[0]?.id ?? 0;
    await engine.api(`/${oldest}/questions`, { method: 'POST', body: { conversation_id: oldest, question: 'And `loadConfig`?' } });
    mine[0] = await engine.waitUntilFinished(oldest);
  });
  after(async function () {
    await engine?.dispose();
  });

  it("lists only the requester's conversations, newest update first by default, as a bare array", async function () {
    const response = await engine.api<WireConversation[]>('/');
    assert.equal(response.status, 200);
    assert.ok(Array.isArray(response.json));
    assert.deepEqual(
      response.json.map((conversation) => conversation.id),
      expectedOrder(mine, '-updated_at'),
    );
    assert.equal(response.json[0]?.id, mine[0]?.id, 'the conversation with the follow-up comes first');
    assert.ok(response.json.every((conversation) => conversation.user_id === 1));
    assert.equal(response.json[0]?.questions.length, 2, 'items are whole conversations');
  });

  for (const sort of WIRE_SORTS) {
    it(`sorts by ${sort} and pages through it with page_first and page_after without gaps or repeats`, async function () {
      const all = await engine.api<WireConversation[]>(`/?sort=${encodeURIComponent(sort)}&page_first=100`);
      assert.deepEqual(
        all.json.map((conversation) => conversation.id),
        expectedOrder(mine, sort),
      );
      const seen: number[] = [];
      const pageSizes: number[] = [];
      let after: number | undefined;
      for (let guard = 0; guard < 10; guard++) {
        const query = `sort=${encodeURIComponent(sort)}&page_first=3${after === undefined ? '' : `&page_after=${after}`}`;
        const page = await engine.api<WireConversation[]>(`/?${query}`);
        assert.equal(page.status, 200);
        if (page.json.length === 0) break;
        pageSizes.push(page.json.length);
        seen.push(...page.json.map((conversation) => conversation.id));
        after = page.json[page.json.length - 1]?.id;
      }
      assert.deepEqual(pageSizes, [3, 3, 1]);
      assert.deepEqual(seen, expectedOrder(mine, sort));
    });
  }

  it('filters by id, user id and starred state', async function () {
    const target = mine[3]?.id ?? 0;
    const byId = await engine.api<WireConversation[]>(`/?filter_id=${target}`);
    assert.deepEqual(
      byId.json.map((conversation) => conversation.id),
      [target],
    );
    const othersId = await engine.api<WireConversation[]>(`/?filter_id=${target}`, { user: 1 });
    assert.deepEqual(othersId.json, []);
    const byOwnUser = await engine.api<WireConversation[]>('/?filter_user_id=1&page_first=100');
    assert.equal(byOwnUser.json.length, mine.length);
    const byOtherUser = await engine.api<WireConversation[]>('/?filter_user_id=2');
    assert.deepEqual(byOtherUser.json, []);
    const unstarred = await engine.api<WireConversation[]>('/?filter_is_starred=false&page_first=100');
    assert.equal(unstarred.json.length, mine.length);
    const starred = await engine.api<WireConversation[]>('/?filter_is_starred=true');
    assert.deepEqual(starred.json, [], 'nothing can be starred on this engine');
  });

  it('defaults to 50 per page and allows at most 100', async function () {
    const ok = await engine.api<WireConversation[]>('/?page_first=100');
    assert.equal(ok.status, 200);
    for (const value of ['0', '101', 'abc', '-1', '2.5']) {
      const response = await engine.api<WireErrorBody>(`/?page_first=${value}`);
      assert.equal(response.status, 400, value);
      assert.match(response.json.error, /page_first must be an integer from 1 to 100/);
    }
  });

  it('answers 400 naming the allowed values for an unknown sort', async function () {
    const response = await engine.api<WireErrorBody>('/?sort=title');
    assert.equal(response.status, 400);
    assert.equal(response.json.error, 'Unknown sort "title": use one of id, -id, created_at, -created_at, updated_at, -updated_at.');
  });

  it('answers 400 for a page_after that is not in the listing, and for malformed filters', async function () {
    const unknown = await engine.api<WireErrorBody>('/?page_after=999999');
    assert.equal(unknown.status, 400);
    assert.match(unknown.json.error, /page_after=999999 is not a conversation in this listing/);
    for (const query of ['page_after=abc', 'filter_id=x', 'filter_user_id=0', 'filter_is_starred=yes']) {
      assert.equal((await engine.api(`/?${query}`)).status, 400, query);
    }
  });

  it('answers {conversations, next_cursor} in the wrapped variant, with a null cursor on the last page', async function () {
    await engine.restart({ variant: { listShape: 'wrapped' } });
    try {
      const seen: number[] = [];
      const cursors: Array<string | null | undefined> = [];
      let cursor: string | null | undefined;
      do {
        const query = `page_first=3${cursor ? `&page_after=${cursor}` : ''}`;
        const page = await engine.api<WireConversationList>(`/?${query}`);
        assert.equal(page.status, 200);
        assert.ok(Array.isArray(page.json.conversations));
        seen.push(...page.json.conversations.map((conversation) => conversation.id));
        cursor = page.json.next_cursor;
        cursors.push(cursor);
      } while (cursor);
      assert.deepEqual(seen, expectedOrder(mine, '-updated_at'));
      assert.equal(cursors.length, 3);
      assert.equal(cursors[2], null);
      assert.equal(cursors[0], String(seen[2]));
    } finally {
      await engine.restart({ variant: {} });
    }
  });
});
