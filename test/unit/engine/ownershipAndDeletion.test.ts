import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import * as path from 'node:path';
import type { WireConversation, WireErrorBody } from '../../../src/contract/legacyWire';
import { startTestEngine, TEST_TOKENS, type TestEngine } from '../../support/engineHarness';
import { answeredConversation, storeConversations } from '../../support/storedConversations';

describe('engine: ownership and sharing', function () {
  let engine: TestEngine;
  let owned: WireConversation;
  before(async function () {
    engine = await startTestEngine();
    owned = await engine.waitUntilFinished((await engine.ask('Where is `parseConfig` defined? <script>alert(1)</script>')).id);
  });
  after(async function () {
    await engine?.dispose();
  });

  it('hides a conversation from another user: get, list, follow-up, cancel, rotate and delete all say 404', async function () {
    const questionId = owned.questions[0]?.id;
    const calls: Array<[string, string, unknown?]> = [
      ['GET', `/${owned.id}`],
      ['GET', `/${owned.id}/questions/${questionId}`],
      ['POST', `/${owned.id}/questions`, { conversation_id: owned.id, question: 'mine now?' }],
      ['POST', `/${owned.id}/questions/${questionId}/cancel`],
      ['POST', `/${owned.id}/rotate-read-token`],
      ['DELETE', `/${owned.id}`],
    ];
    for (const [method, route, body] of calls) {
      const response = await engine.api<WireErrorBody>(route, { method, body, user: 1 });
      assert.equal(response.status, 404, `${method} ${route}`);
      assert.equal(response.json.error, `No conversation with id ${owned.id}.`);
    }
    const list = await engine.api<WireConversation[]>('/', { user: 1 });
    assert.ok(!list.json.some((conversation) => conversation.id === owned.id));
    const byUser = await engine.api<WireConversation[]>(`/?filter_user_id=1`, { user: 1 });
    assert.deepEqual(byUser.json, []);
    const stillThere = await engine.api(`/${owned.id}`);
    assert.equal(stillThere.status, 200);
  });

  it('lets another user read a conversation by its read token when sharing is on, as a non-owner', async function () {
    const response = await engine.api<WireConversation[]>(`/?filter_read_token=${owned.read_token}`, { user: 1 });
    assert.equal(response.status, 200);
    assert.equal(response.json.length, 1);
    assert.equal(response.json[0]?.id, owned.id);
    assert.deepEqual(response.json[0]?.viewer, { is_owner: false });
    const asOwner = await engine.api<WireConversation[]>(`/?filter_read_token=${owned.read_token}`);
    assert.deepEqual(asOwner.json[0]?.viewer, { is_owner: true });
    const unknown = await engine.api<WireConversation[]>('/?filter_read_token=00000000-0000-4000-8000-000000000000', { user: 1 });
    assert.deepEqual(unknown.json, []);
  });

  it('serves the share URL as an escaped, script-free HTML page', async function () {
    const response = await fetch(owned.share_url ?? '');
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    const html = await response.text();
    assert.ok(!html.includes('<script>'));
    assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.ok(html.includes('parseConfig'));
    const missing = await fetch(`${engine.url}/deepsearch/not-a-token`);
    assert.equal(missing.status, 404);
  });

  it('serves the page that starts a new question, its text from ?q= escaped and cut, nothing run', async function () {
    const question = 'Where is <script>alert(1)</script> & "why"? #x';
    const response = await fetch(`${engine.url}/deepsearch?q=${encodeURIComponent(question)}`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    const html = await response.text();
    assert.ok(!html.includes('<script>'), 'no script of the question');
    assert.ok(html.includes('<textarea id="question" readonly>Where is &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;why&quot;? #x</textarea>'));
    const longResponse = await fetch(`${engine.url}/deepsearch?q=${'a'.repeat(12_000)}`);
    const long = await longResponse.text();
    assert.equal(longResponse.status, 200, long.slice(0, 200));
    assert.ok(long.includes(`>${'a'.repeat(8_000)}</textarea>`), 'cut at 8,000 characters');
    assert.equal((await fetch(`${engine.url}/deepsearch`, { method: 'POST' })).status, 405);
  });

  it('serves a file an answer generated to its owner only, as a download whose content runs nothing', async function () {
    const dataDir = engine.dataDir;
    await engine.stop();
    const record = answeredConversation({
      id: 900,
      question: 'Prices?',
      title: 'Prices',
      answer: '[prices](/deepsearch/files/900/prices.csv)',
      at: new Date().toISOString(),
    });
    record.files = [
      { name: 'prices.csv', content_type: 'text/csv', text: 'cents,price\n199,$1.99\n' },
      { name: 'drawing.svg', content_type: 'text/html', text: '<svg><script>alert(1)</script></svg>' },
    ];
    await storeConversations(dataDir, [record]);
    await engine.restart({});
    const url = `${engine.url}/deepsearch/files/900/prices.csv`;
    const owner = await fetch(url, { headers: { Authorization: `token ${TEST_TOKENS[0]}` } });
    assert.equal(owner.status, 200);
    assert.equal(await owner.text(), 'cents,price\n199,$1.99\n');
    assert.match(owner.headers.get('content-type') ?? '', /^text\/csv/);
    assert.match(owner.headers.get('content-disposition') ?? '', /^attachment; filename="prices\.csv"/);
    assert.equal(owner.headers.get('x-content-type-options'), 'nosniff');
    assert.equal((await fetch(url)).status, 401, 'anonymous');
    assert.equal((await fetch(url, { headers: { Authorization: `token ${TEST_TOKENS[1]}` } })).status, 404, 'another user');
    assert.equal((await fetch(`${engine.url}/deepsearch/files/900/missing.csv`, { headers: { Authorization: `token ${TEST_TOKENS[0]}` } })).status, 404);
    const odd = await fetch(`${engine.url}/deepsearch/files/900/drawing.svg`, { headers: { Authorization: `token ${TEST_TOKENS[0]}` } });
    assert.equal(odd.headers.get('content-type'), 'application/octet-stream', 'a type outside CSV, JSON, SVG and text is served as bytes');
  });

  it('keeps other users out when sharing is off, but still lets the owner use the read token', async function () {
    await engine.restart({ sharing: false });
    const other = await engine.api<WireConversation[]>(`/?filter_read_token=${owned.read_token}`, { user: 1 });
    assert.equal(other.status, 200);
    assert.deepEqual(other.json, []);
    const own = await engine.api<WireConversation[]>(`/?filter_read_token=${owned.read_token}`);
    assert.deepEqual(
      own.json.map((conversation) => conversation.id),
      [owned.id],
    );

    const shareUrl = `${engine.url}/deepsearch/${owned.read_token}`;
    assert.equal((await fetch(shareUrl)).status, 404, 'anonymous');
    assert.equal((await fetch(shareUrl, { headers: { Authorization: `token ${TEST_TOKENS[1]}` } })).status, 404, 'other user');
    assert.equal((await fetch(shareUrl, { headers: { Authorization: `token ${TEST_TOKENS[0]}` } })).status, 200, 'owner');
    await engine.restart({ sharing: true });
  });
});

describe('engine: deleting', function () {
  let engine: TestEngine;
  before(async function () {
    engine = await startTestEngine({ paceMs: 200 });
  });
  after(async function () {
    await engine?.dispose();
  });

  it('deletes a conversation with 204 and no body, after which every call about it is 404', async function () {
    const created = await engine.ask('Where is `loadConfig` defined?');
    const response = await engine.api(`/${created.id}`, { method: 'DELETE' });
    assert.equal(response.status, 204);
    assert.equal(response.text, '');
    const after = await engine.api<WireErrorBody>(`/${created.id}`);
    assert.equal(after.status, 404);
    assert.equal(after.json.error, `No conversation with id ${created.id}.`);
    assert.equal((await engine.api(`/${created.id}`, { method: 'DELETE' })).status, 404);
    const files = await readdir(path.join(engine.dataDir, 'conversations'));
    assert.ok(!files.includes(`${created.id}.json`), 'its file is gone');
  });

  it('stops the work of a deleted processing conversation and does not bring it back', async function () {
    const created = await engine.ask('Where is `parseConfig` defined?');
    await engine.api(`/${created.id}`, { method: 'DELETE' });
    await engine.restart();
    assert.equal((await engine.api(`/${created.id}`)).status, 404);
  });

  it("deletes all of the requester's conversations, and only theirs, with DELETE /", async function () {
    const mine = [await engine.ask('Where is `parseConfig` defined?'), await engine.ask('Where is `loadConfig` defined?')];
    const theirs = await engine.ask('Where is `startServer` defined?', 1);
    const response = await engine.api('/', { method: 'DELETE' });
    assert.equal(response.status, 204);
    assert.deepEqual((await engine.api<WireConversation[]>('/')).json, []);
    for (const conversation of mine) assert.equal((await engine.api(`/${conversation.id}`)).status, 404);
    assert.equal((await engine.api(`/${theirs.id}`, { user: 1 })).status, 200);
  });

  it('answers 200 with {} in the deleteStatus 200 variant', async function () {
    const variant = await startTestEngine({ variant: { deleteStatus: 200 } });
    try {
      const created = await variant.ask('Where is `parseConfig` defined?');
      const response = await variant.api(`/${created.id}`, { method: 'DELETE' });
      assert.equal(response.status, 200);
      assert.deepEqual(response.json, {});
      const all = await variant.api('/', { method: 'DELETE' });
      assert.equal(all.status, 200);
      assert.deepEqual(all.json, {});
    } finally {
      await variant.dispose();
    }
  });
});
