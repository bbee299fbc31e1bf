/**
 * The client's HTTP behaviour against a scripted `node:http` server playing a remote instance (or
 * the reverse proxy in front of one): things the local engine cannot produce on demand. The same
 * cases run over both transports: undici (Node's extension host) and fetch (VS Code for the Web's;
 * here Node's own fetch, which enforces no CORS: webTransport.test.ts covers what a browser adds).
 */
import assert from 'node:assert/strict';
import { DeepSearchClient, type DeepSearchClientOptions } from '../../../src/api/client';
import { createUndiciTransport } from '../../../src/api/undiciTransport';
import { createFetchTransport } from '../../../src/api/fetchTransport';
import type { Transport } from '../../../src/api/transport';
import { name as packageName, version as packageVersion } from '../../../package.json';
import { everythingIn, expectError } from './expectError';
import { completedConversation, processingConversation } from './samples';
import { json, startScriptedInstance, type Script, type ScriptedInstance } from './scriptedInstance';
import { addFollowup, cancelQuestion } from '../../support/clientCalls';

const TOKEN = 'sgp_transporttest0123456789abcdef0123456789';

const TRANSPORTS: ReadonlyArray<[string, () => Transport]> = [
  ['undici', () => createUndiciTransport()],
  ['fetch', () => createFetchTransport()],
];

for (const [transportName, createTransport] of TRANSPORTS)
  describe(`client transport over real HTTP (${transportName})`, () => {
    let instance: ScriptedInstance | undefined;
    let transport: Transport;
    let delays: number[];

    beforeEach(() => {
      transport = createTransport();
      delays = [];
    });

    afterEach(async () => {
      await instance?.close();
      instance = undefined;
      await transport.destroy();
    });

    async function serve(script: Script): Promise<ScriptedInstance> {
      instance = await startScriptedInstance(script);
      return instance;
    }

    /** A client whose retry waits are recorded instead of slept, with jitter pinned to its maximum. */
    function client(options: Partial<DeepSearchClientOptions> = {}): DeepSearchClient {
      return new DeepSearchClient({
        instanceUrl: instance!.url,
        token: TOKEN,
        transport,
        // The transport's behaviour, seen on the legacy API's requests (client.connect.test.ts has the 7.x API's).
        conversationApi: 'legacy',
        retry: { baseDelayMs: 100, maxDelayMs: 1000 },
        timers: {
          sleep: async (ms) => {
            delays.push(ms);
          },
          random: () => 1,
        },
        ...options,
      });
    }

    describe('headers', () => {
      it('sends token auth, X-Requested-With, Accept and a JSON Content-Type on bodies', async () => {
        await serve((request) => json(request.method === 'POST' ? processingConversation() : completedConversation()));
        await client().createConversation('How does the indexer work?');
        await client().getConversation(140);
        const [post, get] = instance!.requests;
        assert.equal(post.headers.authorization, `token ${TOKEN}`);
        assert.equal(post.headers['x-requested-with'], `${packageName} ${packageVersion}`);
        assert.equal(post.headers.accept, 'application/json');
        assert.equal(post.headers['content-type'], 'application/json');
        assert.deepEqual(JSON.parse(post.body), { question: 'How does the indexer work?' });
        assert.equal(get.headers.authorization, `token ${TOKEN}`);
        assert.equal(get.headers.accept, 'application/json');
        assert.equal(get.headers['content-type'], undefined, 'no Content-Type without a body');
      });

      it('sends Bearer auth for OAuth tokens and a custom client name', async () => {
        await serve(() => json(completedConversation()));
        await client({ tokenType: 'bearer', clientName: 'my-tool', clientVersion: '9.9.9' }).getConversation(140);
        assert.equal(instance!.requests[0].headers.authorization, `Bearer ${TOKEN}`);
        assert.equal(instance!.requests[0].headers['x-requested-with'], 'my-tool 9.9.9');
      });

      it('keeps the path prefix of the instance URL', async () => {
        const server = await serve(() => json(completedConversation()));
        await client({ instanceUrl: `${server.url}/sourcegraph/` }).getConversation(140);
        assert.equal(server.requests[0].url, '/sourcegraph/.api/deepsearch/v1/140');
      });
    });

    describe('GET retries', () => {
      it('retries a GET on 5xx with exponential backoff and then succeeds', async () => {
        const server = await serve((_request, index) => (index < 2 ? { status: 503, body: 'busy' } : json(completedConversation())));
        const conversation = await client().getConversation(140);
        assert.equal(conversation.id, 140);
        assert.equal(server.requests.length, 3);
        assert.deepEqual(delays, [100, 200]);
      });

      it('retries a GET after a connection reset', async () => {
        const server = await serve((_request, index) => (index === 0 ? { reset: true } : json(completedConversation())));
        assert.equal((await client().getConversation(140)).id, 140);
        assert.equal(server.requests.length, 2);
      });

      it('gives up after the maximum number of attempts with the last error', async () => {
        const server = await serve(() => ({
          status: 502,
          body: '<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>',
          headers: { 'content-type': 'text/html' },
        }));
        const error = await expectError(client().getConversation(140), 'server');
        assert.equal(server.requests.length, 3);
        assert.equal(error.status, 502);
        assert.match(error.message, /internal error \(HTTP 502\).*The server said: 502 Bad Gateway$/);
        assert.doesNotMatch(error.message, /<h1>/);
      });

      it('jitters the backoff so clients do not retry in lockstep', async () => {
        await serve((_request, index) => (index < 2 ? { status: 500 } : json(completedConversation())));
        await client({ timers: { sleep: async (ms) => void delays.push(ms), random: () => 0 } }).getConversation(140);
        assert.deepEqual(delays, [50, 100], 'with no random part the wait is half the exponential step');
      });

      it('waits for a short Retry-After on 429 before retrying', async () => {
        const server = await serve((_request, index) => (index === 0 ? { status: 429, headers: { 'retry-after': '2' } } : json(completedConversation())));
        await client().getConversation(140);
        assert.equal(server.requests.length, 2);
        assert.deepEqual(delays, [2000]);
      });

      it('does not wait for a long Retry-After and says when to try again', async () => {
        const server = await serve(() => ({ status: 429, headers: { 'retry-after': '3600' } }));
        const error = await expectError(client().getConversation(140), 'rateLimited');
        assert.equal(server.requests.length, 1);
        assert.match(error.message, /try again in 60 min/);
      });

      it('does not retry client errors', async () => {
        const server = await serve(() => json({ error: 'conversation not found' }, 404));
        const error = await expectError(client().getConversation(7), 'notFound');
        assert.equal(server.requests.length, 1);
        assert.match(error.message, /The server said: conversation not found/);
      });
    });

    describe('POST and DELETE are never retried', () => {
      it('does not retry creating a conversation on 503', async () => {
        const server = await serve(() => ({ status: 503, body: 'maintenance' }));
        await expectError(client().createConversation('q'), 'server');
        assert.equal(server.requests.length, 1);
        assert.deepEqual(delays, []);
      });

      it('does not retry creating a conversation after a connection reset, and says it may have arrived', async () => {
        const server = await serve(() => ({ reset: true }));
        const error = await expectError(client().createConversation('q'), 'network');
        assert.equal(server.requests.length, 1);
        assert.match(error.message, /broke before its answer arrived .*— the instance may have received the request/);
        assert.doesNotMatch(error.message, /Could not reach|check the instance URL/, 'the instance was reached');
      });

      it('does not retry a follow-up, a cancel or a delete on 500', async () => {
        const server = await serve(() => ({ status: 500 }));
        await expectError(addFollowup(client(), 140, 'q'), 'server');
        await expectError(cancelQuestion(client(), 140, 163), 'server');
        await expectError(client().deleteConversation(140), 'server');
        assert.deepEqual(
          server.requests.map((request) => `${request.method} ${request.url}`),
          ['POST /.api/deepsearch/v1/140/questions', 'POST /.api/deepsearch/v1/140/questions/163/cancel', 'DELETE /.api/deepsearch/v1/140'],
        );
      });
    });

    describe('timeouts and cancellation', () => {
      it('turns a slow answer into a timeout error', async () => {
        const server = await serve(() => ({ delayMs: 5000, then: json(completedConversation()) }));
        const error = await expectError(client({ timeoutMs: 150, retry: { maxAttempts: 1 } }).getConversation(140), 'timeout');
        assert.match(error.message, /did not answer within 1 s/);
        assert.equal(server.requests.length, 1);
      });

      it('retries a GET that timed out', async () => {
        const server = await serve((_request, index) => (index === 0 ? { delayMs: 5000, then: { status: 500 } } : json(completedConversation())));
        assert.equal((await client({ timeoutMs: 150 }).getConversation(140)).id, 140);
        assert.equal(server.requests.length, 2);
      });

      it('stops at once when the caller aborts, without retrying', async () => {
        const server = await serve(() => ({ delayMs: 5000, then: json(completedConversation()) }));
        const controller = new AbortController();
        const pending = client().getConversation(140, controller.signal);
        setTimeout(() => controller.abort(), 50);
        await expectError(pending, 'canceled');
        assert.equal(server.requests.length, 1);
      });

      it('does not send a request whose signal is already aborted', async () => {
        const server = await serve(() => json(completedConversation()));
        await expectError(client().getConversation(140, AbortSignal.abort()), 'canceled');
        assert.equal(server.requests.length, 0);
      });
    });

    describe('failures a person can act on', () => {
      it('reports an unreachable instance as a network error naming its origin', async () => {
        const server = await serve(() => json({}));
        await server.close();
        const error = await expectError(client({ retry: { maxAttempts: 1 } }).getConversation(140), 'network');
        assert.match(error.message, new RegExp(`Could not reach ${server.url.replace(/\./g, '\\.')} — check the instance URL`));
        assert.equal(error.code, 'ECONNREFUSED');
      });

      it('reports an HTML page answered with 200 as an invalid response', async () => {
        await serve(() => ({ status: 200, body: '<!DOCTYPE html><html><body>Sign in</body></html>', headers: { 'content-type': 'text/html' } }));
        const error = await expectError(client().getConversation(140), 'invalidResponse');
        assert.match(error.message, /not JSON \(text\/html\)/);
      });

      it('reports JSON that is not a conversation as an invalid response', async () => {
        await serve(() => json({ hello: 'world' }));
        await expectError(client().getConversation(140), 'invalidResponse');
      });

      it('does not follow a redirect and says where it points', async () => {
        const server = await serve(() => ({ status: 302, headers: { location: 'https://sourcegraph.example.com/sign-in' } }));
        const error = await expectError(client().getConversation(140), 'invalidResponse');
        assert.equal(server.requests.length, 1);
        assert.match(error.message, /redirected .* to https:\/\/sourcegraph\.example\.com/);
      });

      it('asks to sign in again on 401', async () => {
        await serve(() => ({ status: 401, body: 'Invalid access token.', headers: { 'content-type': 'text/plain' } }));
        const error = await expectError(client().getConversation(140), 'unauthorized');
        assert.equal(error.message, 'The instance rejected the access token — sign in again. The server said: Invalid access token.');
      });
    });

    describe('the token never leaks', () => {
      it('redacts the token a server echoes in an error body', async () => {
        await serve((request) => ({
          status: 401,
          body: JSON.stringify({ error: `bad credentials: ${request.headers.authorization}` }),
          headers: { 'content-type': 'application/json' },
        }));
        const error = await expectError(client().getConversation(140), 'unauthorized');
        assert.ok(!everythingIn(error).includes(TOKEN));
        assert.match(error.message, /bad credentials: token \[redacted\]/);
      });

      it('keeps a token that was put in a URL query out of every error', async () => {
        const server = await serve((request) =>
          request.url.includes('page_first')
            ? { reset: true }
            : {
                status: 500,
                body: `<html><body>Error at ${request.url}</body></html>`,
                headers: { 'content-type': 'text/html' },
              },
        );
        const network = await expectError(client().listConversations({ filterReadToken: TOKEN, pageFirst: 1 }), 'network');
        const serverError = await expectError(client().listConversations({ filterReadToken: TOKEN }), 'server');
        assert.ok(
          server.requests.some((request) => request.url.includes(TOKEN)),
          'the token did travel in the query',
        );
        for (const error of [network, serverError]) {
          assert.ok(!everythingIn(error).includes(TOKEN), error.message);
        }
        assert.match(serverError.message, /\[redacted\]/);
      });

      it('refuses to start without a token', () => {
        assert.throws(() => new DeepSearchClient({ instanceUrl: 'https://h', token: '  ' }), /sign in/);
      });
    });
  });
