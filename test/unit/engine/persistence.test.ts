import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { WireConversation } from '../../../src/contract/legacyWire';
import type { ConversationRecord } from '../../../src/engine/conversations/records';
import { ConversationStorage } from '../../../src/engine/conversations/storage';
import { startTestEngine, type TestEngine } from '../../support/engineHarness';
import { createTempDir, removeDir } from '../../support/gitRepos';

describe('engine: conversations survive a restart', function () {
  let engine: TestEngine;
  beforeEach(async function () {
    engine = await startTestEngine();
  });
  afterEach(async function () {
    await engine?.dispose();
  });

  it('serves the same finished conversations after a restart and keeps counting ids from where it was', async function () {
    const first = await engine.waitUntilFinished((await engine.ask('Where is `parseConfig` defined?')).id);
    const second = await engine.waitUntilFinished((await engine.ask('Where is `loadConfig` defined?', 1)).id, 1);
    await engine.restart();
    const reloaded = await engine.api<WireConversation>(`/${first.id}`);
    assert.equal(reloaded.status, 200);
    assert.deepEqual({ ...reloaded.json, share_url: undefined }, { ...first, share_url: undefined }, 'identical apart from the port in the share URL');
    assert.equal((await engine.api<WireConversation>(`/${second.id}`, { user: 1 })).json.questions[0]?.answer, second.questions[0]?.answer);
    const next = await engine.ask('Where is `startServer` defined?');
    assert.ok(next.id > second.id, 'no id is reused');
    assert.ok((next.questions[0]?.id ?? 0) > (second.questions[0]?.id ?? 0));
    await engine.waitUntilFinished(next.id);
  });

  it('resumes a question that was processing when the engine stopped, and completes it', async function () {
    await engine.restart({ paceMs: 500 });
    const created = await engine.ask('Where is `parseConfig` defined?');
    await engine.stop();
    const stored = JSON.parse(await readFile(path.join(engine.dataDir, 'conversations', `${created.id}.json`), 'utf8')) as {
      conversation: ConversationRecord;
    };
    assert.equal(stored.conversation.questions[0]?.status, 'processing', 'stopping does not end the question');

    await engine.restart({ paceMs: 20 });
    const finished = await engine.waitUntilFinished(created.id);
    const question = finished.questions[0];
    assert.equal(question?.status, 'completed');
    assert.equal(question?.error, undefined);
    assert.match(question?.answer ?? '', /parseConfig/);
    assert.ok(question?.turns?.some((turn) => turn.reasoning.startsWith('Resuming')));
  });

  it('gives 20 parallel creates 20 distinct ids, lists them all and keeps them all after a restart', async function () {
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, index) => engine.ask(`Where is \`parseConfig\` used? #${index}`, index % 2 === 0 ? 0 : 1)),
    );
    const ids = created.map((conversation) => conversation.id);
    assert.equal(new Set(ids).size, 20);
    assert.equal(new Set(created.map((conversation) => conversation.questions[0]?.id)).size, 20);
    const listed = [
      ...(await engine.api<WireConversation[]>('/?page_first=100')).json,
      ...(await engine.api<WireConversation[]>('/?page_first=100', { user: 1 })).json,
    ].map((conversation) => conversation.id);
    assert.deepEqual(
      [...listed].sort((a, b) => a - b),
      [...ids].sort((a, b) => a - b),
    );

    await engine.stop();
    const files = await readdir(path.join(engine.dataDir, 'conversations'));
    assert.equal(files.filter((name) => name.endsWith('.json')).length, 20);
    assert.ok(!files.some((name) => name.endsWith('.tmp')), 'no temp files are left behind');
    await engine.restart();
    for (const conversation of created) {
      await engine.waitUntilFinished(conversation.id, conversation.user_id === 1 ? 0 : 1);
    }
  });
});

describe('storage', function () {
  let dataDir: string;
  beforeEach(async function () {
    dataDir = await createTempDir('dse-storage-');
  });
  afterEach(async function () {
    await removeDir(dataDir);
  });

  function record(id: number, questionIds: number[] = [id]): ConversationRecord {
    return {
      id,
      user_id: 1,
      read_token: `token-${id}`,
      created_at: '2025-01-01T00:00:00.000Z',
      updated_at: '2025-01-01T00:00:00.000Z',
      starred: false,
      questions: questionIds.map((questionId) => ({
        id: questionId,
        conversation_id: id,
        question: `question ${questionId}`,
        created_at: '2025-01-01T00:00:00.000Z',
        updated_at: '2025-01-01T00:00:00.000Z',
        status: 'completed',
      })),
    };
  }

  it('stores each record durably and loads it back with counters past every id', async function () {
    const { storage } = await ConversationStorage.open(dataDir);
    await storage.save(record(3, [7, 9]));
    await storage.save(record(5));
    await storage.saveCounters({ nextConversationId: 6, nextQuestionId: 10 });
    const loaded = await ConversationStorage.open(dataDir);
    assert.deepEqual(loaded.records.map((r) => r.id).sort(), [3, 5]);
    assert.deepEqual(loaded.counters, { nextConversationId: 6, nextQuestionId: 10 });
  });

  it('writes the latest state when saves queue up, and never writes a removed record back', async function () {
    const { storage } = await ConversationStorage.open(dataDir);
    const live = record(1);
    const saves = [storage.save(live)];
    for (let index = 0; index < 10; index++) {
      live.questions[0].question = `edit ${index}`;
      saves.push(storage.save(live));
    }
    await Promise.all(saves);
    const stored = JSON.parse(await readFile(path.join(dataDir, 'conversations', '1.json'), 'utf8')) as { conversation: ConversationRecord };
    assert.equal(stored.conversation.questions[0]?.question, 'edit 9');

    const save = storage.save(live);
    const remove = storage.remove(1);
    await Promise.all([save, remove]);
    assert.deepEqual((await ConversationStorage.open(dataDir)).records, []);
  });

  it('derives counters from the records when the meta file is missing, and skips unreadable files', async function () {
    const { storage } = await ConversationStorage.open(dataDir);
    await storage.save(record(4, [11]));
    await writeFile(path.join(dataDir, 'conversations', '8.json'), '{"conversation": {"id": "oops"}}');
    await writeFile(path.join(dataDir, 'conversations', '9.json'), 'not json');
    await writeFile(path.join(dataDir, 'conversations', '4.json.abc123.tmp'), '{"half": ');
    const log: string[] = [];
    const loaded = await ConversationStorage.open(dataDir, (line) => log.push(line));
    assert.deepEqual(
      loaded.records.map((r) => r.id),
      [4],
    );
    assert.deepEqual(loaded.counters, { nextConversationId: 5, nextQuestionId: 12 });
    assert.equal(log.length, 2);
    const files = await readdir(path.join(dataDir, 'conversations'));
    assert.ok(!files.some((name) => name.endsWith('.tmp')), 'an interrupted write is cleaned up');
  });

  it('idle() waits for every queued write', async function () {
    const { storage } = await ConversationStorage.open(dataDir);
    for (let id = 1; id <= 10; id++) void storage.save(record(id));
    await storage.idle();
    const names = await readdir(path.join(dataDir, 'conversations'));
    assert.equal(names.filter((name) => name.endsWith('.json')).length, 10);
  });
});
