import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import type { WireConversation, WireErrorBody } from '../../../src/contract/legacyWire';
import { ECHO_LIMIT } from '../../../src/engine/http/echo';
import { MAX_QUESTION_LENGTH } from '../../../src/engine/conversations/routes';
import { startTestEngine, TEST_TOKENS, waitFor, type TestEngine } from '../../support/engineHarness';

describe('engine: authentication and request validation', function () {
  let engine: TestEngine;
  before(async function () {
    engine = await startTestEngine();
  });
  after(async function () {
    await engine?.dispose();
  });

  describe('authentication', function () {
    it('answers 401 with a JSON error when the Authorization header is missing', async function () {
      const response = await engine.api<WireErrorBody>('/', { user: null });
      assert.equal(response.status, 401);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      assert.match(response.json.error, /Missing access token/);
    });

    it('answers 401 for an unknown token without repeating it', async function () {
      const response = await engine.api<WireErrorBody>('/', { headers: { Authorization: 'token not-a-real-token-123' } });
      assert.equal(response.status, 401);
      assert.match(response.json.error, /Invalid access token/);
      assert.ok(!response.text.includes('not-a-real-token-123'));
    });

    it('answers 401 for a header that is not "token <t>" or "Bearer <t>"', async function () {
      const response = await engine.api<WireErrorBody>('/', { headers: { Authorization: `Basic ${TEST_TOKENS[0]}` } });
      assert.equal(response.status, 401);
      assert.match(response.json.error, /Malformed Authorization header/);
      assert.ok(!response.text.includes(TEST_TOKENS[0]));
    });

    it('accepts "Bearer <token>" as well as "token <token>"', async function () {
      const bearer = await engine.api<unknown[]>('/', { headers: { Authorization: `Bearer ${TEST_TOKENS[0]}` } });
      assert.equal(bearer.status, 200);
      assert.ok(Array.isArray(bearer.json));
      const token = await engine.api<unknown[]>('/', { headers: { Authorization: `token ${TEST_TOKENS[1]}` } });
      assert.equal(token.status, 200);
    });

    it('answers 400 naming X-Requested-With when that header is missing', async function () {
      const response = await engine.api<WireErrorBody>('/', { headers: { 'X-Requested-With': null } });
      assert.equal(response.status, 400);
      assert.match(response.json.error, /X-Requested-With/);
    });

    it('checks the token before X-Requested-With', async function () {
      const response = await engine.api<WireErrorBody>('/', { user: null, headers: { 'X-Requested-With': null } });
      assert.equal(response.status, 401);
    });
  });

  describe('routing', function () {
    it('answers 404 with a JSON error for unknown routes and unknown ids', async function () {
      for (const path of ['/1/nothing-here', '/999999', '/abc']) {
        const response = await engine.api<WireErrorBody>(path);
        assert.equal(response.status, 404, path);
        assert.equal(typeof response.json.error, 'string', path);
      }
      const outside = await fetch(`${engine.url}/somewhere/else`);
      assert.equal(outside.status, 404);
      assert.match(((await outside.json()) as WireErrorBody).error, /\/\.api\/deepsearch\/v1/);
    });

    it('answers 405 with an Allow header for a method a route does not take', async function () {
      const response = await engine.api<WireErrorBody>('/', { method: 'PUT' });
      assert.equal(response.status, 405);
      assert.equal(response.headers.get('allow'), 'GET, POST, DELETE');
      const onConversation = await engine.api<WireErrorBody>('/1', { method: 'POST' });
      assert.equal(onConversation.status, 405);
      assert.equal(onConversation.headers.get('allow'), 'GET, DELETE');
      assert.match(onConversation.json.error, /use GET, DELETE/);
    });

    it('serves the base path with and without a trailing slash', async function () {
      const withSlash = await engine.api('/');
      const without = await engine.api('');
      assert.equal(withSlash.status, 200);
      assert.equal(without.status, 200);
    });
  });

  describe('request bodies', function () {
    it('answers 400 saying the body is not valid JSON', async function () {
      const response = await engine.api<WireErrorBody>('/', { method: 'POST', body: '{"question": ' });
      assert.equal(response.status, 400);
      assert.match(response.json.error, /not valid JSON/);
    });

    it('answers 400 for an empty body and for a body that is not an object', async function () {
      const empty = await engine.api<WireErrorBody>('/', { method: 'POST', body: '' });
      assert.equal(empty.status, 400);
      assert.match(empty.json.error, /empty/);
      const array = await engine.api<WireErrorBody>('/', { method: 'POST', body: '["question"]' });
      assert.equal(array.status, 400);
      assert.match(array.json.error, /JSON object/);
    });

    it('answers 400 for a missing, non-string, empty or blank question', async function () {
      for (const body of [{}, { question: 42 }, { question: '' }, { question: '  \n\t ' }]) {
        const response = await engine.api<WireErrorBody>('/', { method: 'POST', body });
        assert.equal(response.status, 400, JSON.stringify(body));
        assert.match(response.json.error, /non-empty "question" string/);
      }
    });

    it(`answers 400 naming the limit for a question over ${MAX_QUESTION_LENGTH} characters`, async function () {
      const response = await engine.api<WireErrorBody>('/', { method: 'POST', body: { question: 'x'.repeat(MAX_QUESTION_LENGTH + 1) } });
      assert.equal(response.status, 400);
      assert.match(response.json.error, /the limit is 20000/);
      const atLimit = await engine.api<WireConversation>('/', { method: 'POST', body: { question: 'y'.repeat(MAX_QUESTION_LENGTH) } });
      assert.equal(atLimit.status, 200);
      await engine.waitUntilFinished(atLimit.json.id);
    });

    it('answers 413 for a body over 1 MB', async function () {
      const response = await engine.api<WireErrorBody>('/', { method: 'POST', body: { question: 'z'.repeat(1024 * 1024 + 10) } });
      assert.equal(response.status, 413);
      assert.match(response.json.error, /larger than the limit/);
    });

    it('repeats no more than a short piece of a value it rejects, however large or deep', async function () {
      const created = await engine.ask('Where is parseConfig defined?');
      await engine.waitUntilFinished(created.id);
      // 200,000 nested arrays: stringifying it for the message overflowed the stack (a 500).
      const deep = `{"conversation_id": ${'['.repeat(200_000)}${']'.repeat(200_000)}, "question": "Why?"}`;
      const nested = await engine.api<WireErrorBody>(`/${created.id}/questions`, { method: 'POST', body: deep });
      assert.equal(nested.status, 400);
      assert.match(nested.json.error, /conversation_id \(an array\) must equal/);
      const long = await engine.api<WireErrorBody>(`/${created.id}/questions`, {
        method: 'POST',
        body: { conversation_id: 'x'.repeat(900_000), question: 'Why?' },
      });
      assert.equal(long.status, 400);
      assert.ok(long.text.length < 400, `the 400 body is ${long.text.length} characters`);
      assert.match(long.json.error, new RegExp(`"${'x'.repeat(ECHO_LIMIT)}"… \\(900000 characters\\)`));
    });

    it('logs a client that leaves in the middle of its body as such, not as an internal error, and serves on', async function () {
      const lines: string[] = [];
      const logged = await startTestEngine({ log: (line) => lines.push(line) });
      try {
        const port = Number(new URL(logged.url).port);
        for (const [path, headers] of [
          ['/.api/deepsearch/v1/', 'X-Requested-With: tests 1.0\r\n'],
          ['/.api/mcp/v1', 'Accept: application/json, text/event-stream\r\n'],
        ] as const) {
          const socket = connect(port, '127.0.0.1');
          await once(socket, 'connect');
          socket.write(
            `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: token ${TEST_TOKENS[0]}\r\n${headers}Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"question": "Where`,
          );
          // The engine is reading the body when the client goes.
          await new Promise((resolve) => setTimeout(resolve, 100));
          socket.destroy();
          await waitFor(
            async () => lines.filter((line) => line.startsWith(`POST ${path} client closed the connection mid-request`)).length,
            (count) => count === 1,
            { description: `the log line for ${path}` },
          );
        }
        assert.deepEqual(
          lines.filter((line) => /internal error|Error: aborted/.test(line)),
          [],
        );
        assert.equal((await logged.api('/')).status, 200, 'still serving');
      } finally {
        await logged.dispose();
      }
    });

    it('does not create anything for a rejected body', async function () {
      const before = await engine.api<WireConversation[]>('/');
      await engine.api('/', { method: 'POST', body: '{' });
      await engine.api('/', { method: 'POST', body: { question: '' } });
      const after = await engine.api<WireConversation[]>('/');
      assert.deepEqual(
        after.json.map((c) => c.id),
        before.json.map((c) => c.id),
      );
    });
  });
});
