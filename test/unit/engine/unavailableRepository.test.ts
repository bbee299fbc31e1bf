/**
 * A served repository whose folder disappears while the engine runs: the others still answer, and
 * every message names the repository (never "git was not found").
 */
import assert from 'node:assert/strict';
import { rename } from 'node:fs/promises';
import type { WireConversation } from '../../../src/contract/legacyWire';
import { startTestEngine, type TestEngine } from '../../support/engineHarness';
import { createTestRepo, type TestRepo } from '../../support/gitRepos';
import { McpSession } from './mcp/fixture';

describe('engine: a repository whose folder disappears', function () {
  this.timeout(60_000);
  let engine: TestEngine;
  let gone: TestRepo;
  let kept: TestRepo;
  let mcp: McpSession;

  before(async function () {
    kept = await createTestRepo({
      name: 'kept',
      origin: 'https://github.com/acme/kept.git',
      commits: [{ files: { 'src/retry.ts': 'export function retryWithBackoff(): void {}\n' }, message: 'Retry' }],
    });
    gone = await createTestRepo({
      name: 'gone',
      origin: 'https://github.com/acme/gone.git',
      commits: [{ files: { 'src/retry.ts': 'export const retryWithBackoff = 1;\n' }, message: 'Retry' }],
    });
    engine = await startTestEngine({ repos: [kept.dir, gone.dir], paceMs: 1 });
    mcp = await McpSession.open(engine.url);
    // Searched once while both are there, so any index or cache holds both.
    await mcp.ok('sg_keyword_search', { query: 'retryWithBackoff' });
    await rename(gone.dir, `${gone.dir}-moved`);
  });

  after(async function () {
    await mcp?.close();
    await engine?.dispose();
    await rename(`${gone.dir}-moved`, gone.dir).catch(() => undefined);
    await kept?.remove();
    await gone?.remove();
  });

  it('answers keyword and natural-language searches from the others, naming the one skipped', async function () {
    for (const tool of ['sg_keyword_search', 'sg_nls_search']) {
      const reply = await mcp.ok<{ blocks: Array<{ repo: string }> }>(tool, { query: 'retryWithBackoff' });
      assert.deepEqual([...new Set(reply.structured.blocks.map((block) => block.repo))], ['github.com/acme/kept'], tool);
      const said = reply.texts.join('\n');
      assert.match(said, /github\.com\/acme\/gone/, `${tool} names the skipped repository`);
      assert.doesNotMatch(said, /git was not found/);
    }
  });

  it('says the repository is not available when a tool reads from it', async function () {
    const message = await mcp.fails('sg_read_file', { repo: 'github.com/acme/gone', path: 'src/retry.ts' });
    assert.match(message, /github\.com\/acme\/gone is not available: its folder is gone/);
    assert.doesNotMatch(message, /git was not found/);
  });

  it('answers a question from the others, and its turns name the folder that is gone', async function () {
    const created = await engine.ask('Where is retryWithBackoff defined?');
    const done: WireConversation = await engine.waitUntilFinished(created.id);
    const question = done.questions[0];
    assert.equal(question.status, 'completed');
    assert.match(question.answer ?? '', /github\.com\/acme\/kept/);
    const turns = (question.turns ?? []).map((turn) => turn.reasoning ?? '').join('\n');
    assert.match(turns, /Skipped \(folder gone or unreadable[^)]*\): github\.com\/acme\/gone/);
    assert.doesNotMatch(turns, /git was not found/);
  });
});
