/**
 * sg_deepsearch: a real conversation created as the calling user and awaited; failures reported in
 * the result's error; the wait bounded (a slow answer returns a link) and cut short by shutdown.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WireConversation } from '../../../../src/contract/legacyWire';
import { HttpError } from '../../../../src/engine/http/http';
import type { DeepSearchResult } from '../../../../src/engine/tools/deepsearch';
import { createMcpHandler, DEFAULT_TOOL_SLOTS } from '../../../../src/engine/mcp/server';
import { MAX_QUESTION_LENGTH } from '../../../../src/engine/conversations/routes';
import { TEST_TOKENS } from '../../../support/engineHarness';
import { McpSession, useMcpWorld, type McpWorld } from './fixture';
import { Slots } from '../../../../src/engine/runtime/slots';

describe('MCP tools: sg_deepsearch', function () {
  let world: McpWorld;
  let mcp: McpSession;

  useMcpWorld((made) => ({ world, mcp } = made), {
    overrides: {
      faults: {
        question: (text) =>
          text.includes('please fail') ? { title: 'Too big', kind: 'TokenLimitExceeded', message: 'The question needs too much context.' } : undefined,
      },
    },
    token: TEST_TOKENS[1],
  });

  it('asks the answerer as the calling user and returns the answer with its conversation', async function () {
    const { structured, text } = await mcp.ok<DeepSearchResult>('sg_deepsearch', { question: 'Where is `parseConfig` defined?' });
    assert.ok(structured.conversation_id > 0);
    assert.ok(structured.question_id > 0);
    assert.match(structured.answer ?? '', /parseConfig/);
    assert.match(structured.answer ?? '', /src\/config\.ts/);
    assert.ok((structured.title ?? '').length > 0);
    assert.match(structured.link ?? '', new RegExp(`^${world.engine.url}/deepsearch/[0-9a-f-]{36}$`));
    assert.ok(Array.isArray(structured.suggested_followups));
    assert.equal(structured.error, undefined);
    assert.match(text, /parseConfig/);
    const mine = await world.engine.api<WireConversation>(`/${structured.conversation_id}`, { user: 1 });
    assert.equal(mine.status, 200);
    assert.equal(mine.json.user_id, 2);
    assert.equal(mine.json.questions[0]?.status, 'completed');
    const theirs = await world.engine.api(`/${structured.conversation_id}`, { user: 0 });
    assert.equal(theirs.status, 404, 'the conversation belongs to the caller only');
  });

  it('reports a failed question in error, with the conversation to look at', async function () {
    const { structured, text } = await mcp.ok<DeepSearchResult>('sg_deepsearch', { question: 'Summarise everything, please fail' });
    assert.deepEqual(structured.error, { title: 'Too big', kind: 'TokenLimitExceeded', message: 'The question needs too much context.' });
    assert.equal(structured.answer, undefined);
    assert.ok(structured.link);
    assert.match(text, /did not produce an answer.*TokenLimitExceeded/);
  });

  it('refuses empty and over-long questions', async function () {
    assert.match(await mcp.fails('sg_deepsearch', { question: '   ' }), /question is empty/);
    assert.match(await mcp.fails('sg_deepsearch', { question: 'x'.repeat(MAX_QUESTION_LENGTH + 1) }), /the limit is 20000/);
  });

  // The real answerer always finishes within seconds, and the tool waits minutes for it: these cases
  // put a conversation service that never finishes behind the real MCP handler (over real HTTP),
  // with the wait shortened to 300 ms. It stands in only for "an answer that takes minutes".
  describe('with an answer that does not come', function () {
    let server: Server;
    let url: string;
    const stopping = new AbortController();
    const asked: string[] = [];
    const pending = (id: number, question: string): WireConversation => ({
      id,
      created_at: '2025-01-01T00:00:00Z',
      updated_at: '2025-01-01T00:00:00Z',
      user_id: 1,
      read_token: '00000000-0000-4000-8000-000000000000',
      share_url: `http://example.invalid/deepsearch/${id}`,
      questions: [
        {
          id: id * 10,
          conversation_id: id,
          question,
          created_at: '2025-01-01T00:00:00Z',
          updated_at: '2025-01-01T00:00:00Z',
          status: 'processing',
          suggested_followups: null,
        },
      ],
    });

    before(async function () {
      const options = {
        repositories: [],
        instanceUrl: 'http://example.invalid',
        shuttingDown: stopping.signal,
        log: () => undefined,
        toolSlots: new Slots(DEFAULT_TOOL_SLOTS),
        deepSearchWaitMs: 300,
        deepSearch: {
          create: async (_user, question) => {
            asked.push(question);
            return pending(asked.length, question);
          },
          get: (_user, id) => {
            if (asked[id - 1]?.includes('vanish')) throw new HttpError(404, `No conversation with id ${id}.`);
            return pending(id, asked[id - 1] ?? '');
          },
          findShared: () => undefined,
        },
      } satisfies Parameters<typeof createMcpHandler>[0];
      const handler = createMcpHandler(options);
      const current = createMcpHandler({ ...options, endpoint: 'deepsearch' });
      server = createServer(
        (request, response) => void (request.url === '/.api/mcp/deepsearch' ? current : handler)(request, response, { id: 1, name: 'tester' }),
      );
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(async function () {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('stops waiting after the configured time and says where the answer will be', async function () {
      const session = await McpSession.open(url, 'any');
      try {
        const { structured, text } = await session.ok<DeepSearchResult>('sg_deepsearch', { question: 'Slow one?' });
        assert.equal(structured.conversation_id, 1);
        assert.equal(structured.question_id, 10);
        assert.equal(structured.link, 'http://example.invalid/deepsearch/1');
        assert.equal(structured.error?.kind, 'Timeout');
        assert.match(text, /not ready after 0 s/);
      } finally {
        await session.close();
      }
    });

    it('says so when the conversation is deleted while it waits', async function () {
      const session = await McpSession.open(url, 'any');
      try {
        assert.match(await session.fails('sg_deepsearch', { question: 'Will this vanish?' }), /Conversation 2 was deleted while its answer was awaited/);
      } finally {
        await session.close();
      }
    });

    it('tells the agent of the 2026 endpoints to read the answer later with deepsearch_read', async function () {
      const session = await McpSession.open(url, 'any', '/.api/mcp/deepsearch');
      try {
        const reply = await session.ok<DeepSearchResult>('deepsearch', { question: 'Slow again?' });
        assert.equal(reply.structured.error?.kind, 'Timeout');
        assert.ok(
          reply.texts.includes('Read the answer later with deepsearch_read {"identifier": "http://example.invalid/deepsearch/3"}.'),
          reply.texts.join('\n'),
        );
      } finally {
        await session.close();
      }
    });

    it('gives up at once when the engine shuts down', async function () {
      const session = await McpSession.open(url, 'any');
      try {
        const call = session.call('sg_deepsearch', { question: 'Interrupted?' });
        setTimeout(() => stopping.abort(), 50);
        const reply = await call;
        assert.equal(reply.isError, true);
        assert.match(reply.text, /cancelled; conversation 4 goes on being answered/);
      } finally {
        await session.close();
      }
    });
  });
});
