/**
 * The web build's transport (src/api/fetchTransport.ts), as VS Code for the Web uses it, over real
 * HTTP: against the local engine on 127.0.0.1 (conversations on both API generations, the code
 * tools on both MCP revisions) and against scripted servers (a body that never ends, a redirect to
 * another origin), with the undici transport beside it where both must behave alike.
 *
 * What cannot run here: Node's fetch enforces no CORS. `browserFetch` plays the one thing a browser
 * adds: a response that does not allow the page's origin is withheld and the fetch rejects with a
 * bare TypeError; a `no-cors` request goes through, opaque. Everything else is the real request to
 * the real server. The browser itself is the web tests' (VS Code for the Web in Chromium).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DeepSearchClient } from '../../../src/api/client';
import { createFetchTransport } from '../../../src/api/fetchTransport';
import { HttpTransport } from '../../../src/api/http';
import { CodeTools } from '../../../src/api/tools/codeTools';
import { ToolClient } from '../../../src/api/tools/toolClient';
import type { Transport } from '../../../src/api/transport';
import { createUndiciTransport } from '../../../src/api/undiciTransport';
import { isUnfinished } from '../../../src/model/conversation';
import { addFollowup, cancelQuestion, listAllConversations } from '../../support/clientCalls';
import { startTestEngine, TEST_TOKENS, waitFor, type TestEngine } from '../../support/engineHarness';
import { SAMPLE_APP_NAME } from '../../support/gitRepos';
import { expectError } from './expectError';

const QUESTION = 'Where is parseConfig defined and what does it check?';
const PAGE_ORIGIN = 'https://vscode.dev';

const TRANSPORTS: ReadonlyArray<[string, () => Transport]> = [
  ['undici', () => createUndiciTransport()],
  ['fetch', () => createFetchTransport()],
];

/** What a browser does on `page`: the real request, with the page's Origin, withheld unless the server allows that origin. */
function browserFetch(page: string, calls: string[]): typeof fetch {
  return async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    calls.push(`${init?.mode ?? 'cors'} ${init?.method ?? 'GET'} ${new URL(url).pathname}`);
    let response: Response;
    try {
      response = await fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), origin: page } });
    } catch {
      throw new TypeError('Failed to fetch');
    }
    if (init?.mode === 'no-cors') return new Response(null, { status: 200 });
    const allowed = response.headers.get('access-control-allow-origin');
    if (allowed !== page && allowed !== '*') {
      await response.body?.cancel();
      throw new TypeError('Failed to fetch');
    }
    return response;
  };
}

describe('the web transport (fetch) against the local engine', function () {
  describe('conversations, on both API generations', function () {
    for (const apis of ['legacy', 'both'] as const) {
      describe(apis === 'legacy' ? 'the legacy API (6.x)' : 'the 7.x API', function () {
        let engine: TestEngine;
        let transport: Transport;
        before(async () => {
          engine = await startTestEngine({ paceMs: 40, variant: { conversationApis: apis } });
        });
        beforeEach(() => {
          transport = createFetchTransport();
        });
        afterEach(() => transport.destroy());
        after(() => engine.dispose());

        it('asks, follows up, lists, cancels and deletes over fetch', async () => {
          const client = new DeepSearchClient({ instanceUrl: engine.url, token: TEST_TOKENS[0], transport, retry: { baseDelayMs: 10 } });
          assert.equal(await client.generation(), apis === 'legacy' ? 'legacy' : 'connect');
          const created = await client.createConversation(QUESTION);
          const done = await waitFor(
            () => client.getConversation(created.id),
            (conversation) => !isUnfinished(conversation),
            { description: 'the answer', timeoutMs: 15_000 },
          );
          assert.equal(done.questions[0].state, 'completed');
          assert.match(done.questions[0].answer ?? '', /parseConfig/);
          const followed = await addFollowup(client, created.id, 'Who calls loadConfig?');
          assert.equal(followed.questions.length, 2);
          const canceled = await cancelQuestion(client, created.id, followed.questions[1].id);
          assert.equal(canceled.questions[1].state, 'canceled');
          const listed = await listAllConversations(client);
          assert.ok(listed.some((conversation) => conversation.id === created.id));
          await client.deleteConversation(created.id);
          await expectError(client.getConversation(created.id), 'notFound');
        });
      });
    }
  });

  describe('code tools, on both MCP revisions', function () {
    for (const protocol of ['2025', '2026'] as const) {
      it(`lists repositories and searches over fetch on a ${protocol} tool server`, async function () {
        const engine = await startTestEngine({ variant: { toolProtocol: protocol } });
        const transport = createFetchTransport();
        const client = new ToolClient({ instanceUrl: engine.url, token: TEST_TOKENS[0], transport });
        try {
          const tools = new CodeTools(client);
          const repos = await tools.listRepositories('');
          assert.ok(repos.repositories.some((repo) => repo.name === SAMPLE_APP_NAME));
          const matches = await tools.keywordSearch(`parseConfig repo:${SAMPLE_APP_NAME}`);
          assert.ok(matches.length > 0);
        } finally {
          await client.close();
          await transport.destroy();
          await engine.dispose();
        }
      });
    }
  });

  describe('an origin the instance does not accept, as a browser sees it', function () {
    it('names the origin and corsOrigin, never "Failed to fetch", and does not retry', async function () {
      const engine = await startTestEngine();
      const calls: string[] = [];
      try {
        const transport = createFetchTransport({ pageOrigin: PAGE_ORIGIN, fetch: browserFetch(PAGE_ORIGIN, calls) });
        const client = new DeepSearchClient({ instanceUrl: engine.url, token: TEST_TOKENS[0], transport, conversationApi: 'legacy' });
        const error = await expectError(client.getConversation(1), 'network');
        const host = new URL(engine.url).host;
        assert.equal(
          error.message,
          `${host} does not accept requests from vscode.dev: a site admin adds the origin https://vscode.dev to \`corsOrigin\` in the site configuration.`,
        );
        assert.doesNotMatch(error.message, /Failed to fetch/);
        // The refused request once (a GET, which is otherwise retried), then the opaque check that the instance is up.
        assert.deepEqual(calls, ['cors GET /.api/deepsearch/v1/1', 'no-cors GET /']);
      } finally {
        await engine.dispose();
      }
    });

    it("says that vscode.dev's extension origin changes, so one origin would not last", async function () {
      const engine = await startTestEngine();
      const page = 'https://v--0a1b2c3d.vscode-cdn.net';
      try {
        const transport = createFetchTransport({ pageOrigin: page, fetch: browserFetch(page, []) });
        const client = new DeepSearchClient({ instanceUrl: engine.url, token: TEST_TOKENS[0], transport, conversationApi: 'legacy' });
        const error = await expectError(client.getConversation(1), 'network');
        assert.match(error.message, /does not accept requests from v--0a1b2c3d\.vscode-cdn\.net, where VS Code for the Web runs extensions/);
        assert.match(error.message, /the instance must accept https:\/\/\*\.vscode-cdn\.net/);
      } finally {
        await engine.dispose();
      }
    });

    it('says both possibilities when the instance cannot be reached from the page at all', async function () {
      const engine = await startTestEngine();
      const url = engine.url;
      await engine.dispose();
      const calls: string[] = [];
      const transport = createFetchTransport({ pageOrigin: PAGE_ORIGIN, fetch: browserFetch(PAGE_ORIGIN, calls) });
      const client = new DeepSearchClient({ instanceUrl: url, token: TEST_TOKENS[0], transport, conversationApi: 'legacy', retry: { maxAttempts: 1 } });
      const error = await expectError(client.getConversation(1), 'network');
      assert.match(error.message, /^Could not reach 127\.0\.0\.1:\d+ from vscode\.dev — the instance is down or out of reach/);
      assert.match(error.message, /does not accept requests from vscode\.dev \(a site admin adds the origin https:\/\/vscode\.dev to `corsOrigin`\)/);
      assert.ok(calls.includes('no-cors GET /'), calls.join('\n'));
    });
  });
});

/** A server whose one reply is a body that never ends; it counts what it wrote and notes when the client stopped reading. */
async function endlessBody(): Promise<{ url: string; written: () => number; stopped: Promise<void>; close(): Promise<void> }> {
  let written = 0;
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    const pump = () => {
      while (!response.destroyed && response.write(chunk)) written += chunk.length;
      if (!response.destroyed) written += chunk.length;
    };
    response.on('drain', pump);
    response.on('close', stop);
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    written: () => written,
    stopped,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A server that answers every request with `status` and `location`, and records what it got. */
async function redirecting(status: number, location: (own: string) => string): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  let own = '';
  const server = http.createServer((request, response) => {
    requests.push(`${request.method} ${request.url} ${request.headers.authorization ?? ''}`);
    request.resume();
    response.writeHead(status, { location: location(own) }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  own = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: own,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

for (const [name, createTransport] of TRANSPORTS) {
  describe(`limits that hold on every transport (${name})`, function () {
    it('stops reading a body past its cap, counting bytes as they arrive', async function () {
      const server = await endlessBody();
      const transport = createTransport();
      try {
        const client = new HttpTransport({ transport, maxBodyBytes: 1024 * 1024, retry: { maxAttempts: 1 } });
        await assert.rejects(client.send({ method: 'GET', url: new URL(`${server.url}/endless`), headers: {} }), {
          message: `The instance sent more than ${1024 * 1024} bytes in one response.`,
        });
        // The server saw the client go: reading stopped there, not at the end of a body that has none.
        await server.stopped;
        assert.ok(server.written() < 64 * 1024 * 1024, `${server.written()} bytes written`);
      } finally {
        await transport.destroy();
        await server.close();
      }
    });

    it('does not carry a tool call to another origin that a redirect points at', async function () {
      const elsewhere = await redirecting(200, () => '');
      const instance = await redirecting(307, () => `${elsewhere.url}/.api/mcp/all`);
      const transport = createTransport();
      const client = new ToolClient({ instanceUrl: instance.url, token: 'sgp_redirecttest0123456789', transport });
      try {
        const error = await expectError(client.server(), 'invalidResponse');
        assert.match(error.message, /pointed at another address \(http:\/\/127\.0\.0\.1:\d+\); the request was not sent/);
        assert.ok(instance.requests.length > 0, 'the instance was asked');
        assert.deepEqual(elsewhere.requests, [], 'nothing, and no token, went to the other origin');
      } finally {
        await client.close();
        await transport.destroy();
        await instance.close();
        await elsewhere.close();
      }
    });

    it('cancels a request under way when its signal aborts', async function () {
      const server = await endlessBody();
      const transport = createTransport();
      try {
        const client = new HttpTransport({ transport, maxBodyBytes: 1024 * 1024 * 1024 });
        const controller = new AbortController();
        const sending = client.send({ method: 'GET', url: new URL(`${server.url}/endless`), headers: {}, signal: controller.signal });
        // Aborted once bytes flow: the body is being read.
        await waitFor(
          async () => server.written(),
          (written) => written > 0,
          { description: 'the body to flow' },
        );
        controller.abort();
        await expectError(sending, 'canceled');
        await server.stopped;
      } finally {
        await transport.destroy();
        await server.close();
      }
    });
  });
}
