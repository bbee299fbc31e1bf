/**
 * The engine bounds the work it does at once: answers past the limit wait their turn (saying so in
 * a "Queued" turn), and tool calls past theirs wait too, across both tool endpoints.
 */
import assert from 'node:assert/strict';
import { MCP_PATH, type WireConversation } from '../../../src/contract/legacyWire';
import { startTestEngine, TEST_TOKENS, type TestEngine } from '../../support/engineHarness';
import { McpSession } from './mcp/fixture';

describe('engine: limits on work done at once', function () {
  this.timeout(60_000);
  let engine: TestEngine;

  before(async function () {
    engine = await startTestEngine({ paceMs: 150, limits: { answers: 1, toolCalls: 1 } });
  });

  after(async function () {
    await engine?.dispose();
  });

  it('answers one question at a time past the limit; the others say they are queued, then answer', async function () {
    const asked = await Promise.all(
      ['Where is parseConfig defined?', 'What does loadConfig do?', 'Where is the port checked?'].map((question) => engine.ask(question)),
    );
    const done: WireConversation[] = await Promise.all(asked.map((conversation) => engine.waitUntilFinished(conversation.id)));
    for (const conversation of done) assert.equal(conversation.questions[0]?.status, 'completed');
    // Created at once, they reach the engine in any order: taken in the order they finished, the
    // first never waited, the second was next to start, the third behind one other.
    const inOrder = done
      .map((conversation) => ({
        queued: (conversation.questions[0]?.turns ?? []).map((turn) => turn.reasoning ?? '').find((text) => text.startsWith('Queued')),
        finished: Date.parse(conversation.questions[0].updated_at),
      }))
      .sort((a, b) => a.finished - b.finished);
    assert.equal(new Set(inOrder.map((entry) => entry.finished)).size, 3, 'one at a time: no two finished together');
    assert.equal(inOrder[0]?.queued, undefined, `queued turns: ${JSON.stringify(inOrder)}`);
    assert.match(inOrder[1]?.queued ?? '', /^Queued next to start: at most 1 answer is worked on at once$/);
    assert.match(inOrder[2]?.queued ?? '', /^Queued behind 1 other question/);
  });

  it('runs one tool call at a time across both endpoints, in arrival order', async function () {
    const v1 = await McpSession.open(engine.url);
    const plain = await McpSession.open(engine.url, undefined, '/.api/mcp');
    try {
      const finished: string[] = [];
      // Deep Search waits for its answer (a second or two at this pace), holding the one slot.
      const deep = v1.call('sg_deepsearch', { question: 'Where is parseConfig defined?' }).then((reply) => {
        finished.push('deepsearch');
        return reply;
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const list = plain.call('list_repos', { query: '' }).then((reply) => {
        finished.push('list_repos');
        return reply;
      });
      const [deepReply, listReply] = await Promise.all([deep, list]);
      assert.equal(deepReply.isError, false, deepReply.text);
      assert.equal(listReply.isError, false, listReply.text);
      // Listing repositories takes microseconds: only waiting for the slot puts it second.
      assert.deepEqual(finished, ['deepsearch', 'list_repos']);
    } finally {
      await v1.close();
      await plain.close();
    }
  });

  it('takes a batch of 100 calls that wait for the one slot without a listener-leak warning', async function () {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    try {
      const response = await fetch(`${engine.url}${MCP_PATH}`, {
        method: 'POST',
        headers: {
          Authorization: `token ${TEST_TOKENS[0]}`,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'MCP-Protocol-Version': '2025-03-26',
        },
        body: JSON.stringify(
          Array.from({ length: 100 }, (_, id) => ({
            jsonrpc: '2.0',
            id,
            method: 'tools/call',
            params: { name: 'sg_keyword_search', arguments: { query: 'parseConfig' } },
          })),
        ),
      });
      const replies = (await response.json()) as Array<{ id: number; result?: { isError?: boolean } }>;
      assert.equal(replies.length, 100);
      assert.ok(
        replies.every((reply) => reply.result && !reply.result.isError),
        'every call answered',
      );
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(
        warnings.filter((warning) => warning.startsWith('MaxListenersExceededWarning')),
        [],
      );
    } finally {
      process.off('warning', onWarning);
    }
  });
});
