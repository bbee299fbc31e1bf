/**
 * A catastrophic regular expression in a filter is stopped after its time limit, and the engine
 * serves other requests meanwhile (it runs in a worker, not on the engine's event loop).
 */
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from '../../../support/engineHarness';
import { createTestRepo, type TestRepo } from '../../../support/gitRepos';
import { McpSession } from './fixture';

/** About 10 s of backtracking for V8 on the path below, far past the 1 s limit. */
const RUNAWAY = 'a*a*a*a*a*a*a*a*b';
const LONG_NAME = `src/${'a'.repeat(34)}.ts`;

describe('MCP tools: a runaway filter pattern', function () {
  this.timeout(60_000);
  let repo: TestRepo;
  let engine: TestEngine;
  let mcp: McpSession;

  before(async function () {
    repo = await createTestRepo({
      name: 'runaway',
      origin: 'https://github.com/acme/runaway.git',
      commits: [{ files: { [LONG_NAME]: 'export const retryLimit = 3;\n', 'src/ok.ts': 'export const retryLimit = 4;\n' }, message: 'Files' }],
    });
    engine = await startTestEngine({ repos: [repo.dir] });
    mcp = await McpSession.open(engine.url);
  });

  after(async function () {
    await mcp?.close();
    await engine?.dispose();
    await repo?.remove();
  });

  it('is stopped with a message, and three of them at once do not hold up a cheap request', async function () {
    const finished: string[] = [];
    const searches = Array.from({ length: 3 }, (_, index) =>
      mcp.call('sg_keyword_search', { query: `retryLimit file:${RUNAWAY}` }).then((reply) => {
        finished.push(`search ${index}`);
        return reply;
      }),
    );
    // Sent once the searches are under way: it must not wait for them.
    await new Promise((resolve) => setTimeout(resolve, 150));
    const list = engine.api('/').then((response) => {
      finished.push('list');
      return response;
    });
    const [replies, listed] = await Promise.all([Promise.all(searches), list]);
    assert.equal(listed.status, 200);
    assert.equal(finished[0], 'list', `the list answered first: ${finished.join(', ')}`);
    for (const reply of replies) {
      assert.equal(reply.isError, true, reply.text.slice(0, 300));
      assert.match(reply.text, /The file: filter "(?:a\*){8}b" takes too long to match and was stopped/);
    }
  });

  it('gives the same verdicts as before for a pattern that matches in time', async function () {
    const reply = await mcp.ok<{ blocks: Array<{ file: string }> }>('sg_keyword_search', { query: 'retryLimit file:ok\\.ts$' });
    assert.deepEqual(
      reply.structured.blocks.map((block) => block.file),
      ['src/ok.ts'],
    );
    const excluded = await mcp.ok<{ blocks: Array<{ file: string }> }>('sg_keyword_search', { query: 'retryLimit -file:ok\\.ts$' });
    assert.deepEqual(
      excluded.structured.blocks.map((block) => block.file),
      [LONG_NAME],
    );
  });
});
