/**
 * OAuth as the extension's two clients use it, against the engine over HTTP: a token that expired
 * unnoticed is renewed after the instance's 401 and the original call (a question: a POST) goes
 * through once; a revoked sign-in asks to sign in again; the scopes asked; dynamic registration;
 * and the loopback listener a browser sign-in comes back through.
 */
import assert from 'node:assert/strict';
import { DeepSearchClient } from '../../../src/api/client';
import { oauthCredential } from '../../../src/api/credential';
import { DeepSearchError, isDeepSearchError } from '../../../src/api/errors';
import { untilDeadline } from '../../../src/api/oauth/deadline';
import { HttpTransport } from '../../../src/api/http';
import { AuthorizationServerClient, type OAuthTokens } from '../../../src/api/oauth/authorizationServer';
import { LoopbackRedirect } from '../../../src/api/oauth/loopbackRedirect';
import { scopesToAsk } from '../../../src/api/oauth/scopes';
import { TokenSession } from '../../../src/api/oauth/tokenSession';
import { ToolClient } from '../../../src/api/tools/toolClient';
import { OAUTH_PATHS } from '../../../src/contract/oauthWire';
import { startTestEngine, type TestEngine } from '../../support/engineHarness';
import { memoryVault } from '../../support/tokenVault';

const CLIENT_ID = 'deep-search-renewal-tests';

describe('OAuth renewal in the conversation and tool clients', function () {
  this.timeout(60_000);
  let engine: TestEngine;
  let server: AuthorizationServerClient;
  const requests: string[] = [];

  before(async function () {
    // Access tokens live two seconds: long enough to sign in, short enough to expire in a test.
    engine = await startTestEngine({
      oauth: { clients: [{ id: CLIENT_ID, redirectUris: ['http://127.0.0.1/callback'] }], accessTokenSeconds: 2 },
      log: (line) => requests.push(line),
    });
    const found = await AuthorizationServerClient.discover(new HttpTransport(), engine.url);
    assert.ok(found);
    server = found;
  });
  after(async function () {
    await engine?.stop();
  });

  /** A browser sign-in, the consent page answered as a browser would; the expiry left unknown to the client. */
  async function signedIn(): Promise<OAuthTokens> {
    const redirect = await LoopbackRedirect.listen();
    try {
      const started = server.startBrowserSignIn({
        clientId: CLIENT_ID,
        redirectUri: redirect.redirectUri,
        scopes: ['externalapi:read', 'externalapi:write', 'mcp', 'offline_access'],
      });
      const arrival = redirect.wait(started.state);
      const page = await (await fetch(started.url)).text();
      const requestId = /name="request" value="([^"]+)"/.exec(page)?.[1] ?? '';
      const approved = await fetch(new URL(OAUTH_PATHS.authorize, engine.url), {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ request: requestId, decision: 'approve' }).toString(),
        redirect: 'manual',
      });
      // The browser follows the redirect to the listener, which answers once the sign-in is settled.
      const landed = fetch(approved.headers.get('location') ?? '');
      const arrived = await arrival;
      const tokens = await server.completeBrowserSignIn(started, arrived.url);
      arrived.finish({ ok: true, message: 'Signed in.' });
      const shown = await (await landed).text();
      assert.match(shown, /Signed in/);
      const { expiresAt: _unknown, ...withoutExpiry } = tokens;
      return withoutExpiry;
    } finally {
      redirect.close();
    }
  }

  const expire = () => new Promise((resolve) => setTimeout(resolve, 2_300));

  it('asks a question with a token that expired unnoticed: one 401, one refresh, the question asked once', async function () {
    const vault = memoryVault(await signedIn());
    const tokens = new TokenSession(vault, (refreshToken) => server.refresh(refreshToken, CLIENT_ID));
    const client = new DeepSearchClient({ instanceUrl: engine.url, credential: oauthCredential(tokens), conversationApi: 'legacy' });
    const before = (await client.listConversations({ pageFirst: 100 })).conversations.length;
    await expire();
    const from = requests.length;
    const conversation = await client.createConversation('Where is parseConfig defined?');
    const posts = requests.slice(from).filter((line) => line.startsWith('POST /.api/deepsearch/v1 '));
    assert.deepEqual(
      posts.map((line) => line.split(' ')[2]),
      ['401', '200'],
      posts.join('\n'),
    );
    assert.equal(requests.slice(from).filter((line) => line.startsWith(`POST ${OAUTH_PATHS.token} 200`)).length, 1, 'one refresh');
    assert.equal(vault.writes, 1, 'the rotated tokens were stored');
    const listed = await client.listConversations({ pageFirst: 100 });
    assert.equal(listed.conversations.length, before + 1, 'asked once');
    assert.ok(listed.conversations.some((listedOne) => listedOne.id === conversation.id));
  });

  it('calls a tool with a token that expired unnoticed: renewed after the 401, the call answers', async function () {
    const vault = memoryVault(await signedIn());
    const tokens = new TokenSession(vault, (refreshToken) => server.refresh(refreshToken, CLIENT_ID));
    const tools = new ToolClient({ instanceUrl: engine.url, credential: oauthCredential(tokens) });
    try {
      await tools.server();
      await expire();
      const result = await tools.call('list_repos', { query: 'app' });
      assert.match(result.text, /github\.com\/acme\/app/);
      assert.equal(vault.writes, 1, 'renewed once');
    } finally {
      await tools.close();
    }
  });

  it('says to sign in again when the sign-in was revoked on the instance, and never shows a token', async function () {
    const signIn = await signedIn();
    await server.revoke(signIn.refreshToken ?? '', CLIENT_ID);
    const tokens = new TokenSession(memoryVault(signIn), (refreshToken) => server.refresh(refreshToken, CLIENT_ID), { sleep: () => Promise.resolve() });
    const client = new DeepSearchClient({ instanceUrl: engine.url, credential: oauthCredential(tokens), conversationApi: 'legacy' });
    await assert.rejects(client.listConversations({ pageFirst: 1 }), (error: unknown) => {
      assert.ok(isDeepSearchError(error) && error.kind === 'unauthorized', String(error));
      assert.match(error.message, /sign in again/);
      assert.ok(!error.message.includes(signIn.accessToken) && !error.message.includes(signIn.refreshToken ?? '-'), 'no token in the message');
      return true;
    });
  });

  it('registers itself where the instance allows it, and then asks for the tool server only', async function () {
    const registered = await server.register({
      clientName: 'Deep Search for VS Code',
      redirectUris: ['vscode://deepsearch-team.deep-search-vscode/oauth-callback', 'http://127.0.0.1/callback'],
    });
    assert.match(registered.clientId, /\S/);
    assert.deepEqual(scopesToAsk(registered.scopes), ['mcp', 'offline_access']);
    const device = await server.startDeviceSignIn({ clientId: registered.clientId, scopes: scopesToAsk(registered.scopes) });
    assert.match(device.user_code, /\S/, 'the registered client signs in');
  });
});

describe('Scopes the extension asks for', () => {
  it('asks for the least that covers conversations, tools and renewal', () => {
    assert.deepEqual(scopesToAsk(['user:all', 'externalapi:read', 'externalapi:write', 'mcp', 'offline_access', 'openid']), [
      'externalapi:read',
      'externalapi:write',
      'mcp',
      'offline_access',
    ]);
    assert.deepEqual(
      scopesToAsk(['user:all', 'mcp', 'offline_access']),
      ['user:all', 'mcp', 'offline_access'],
      'user:all where the granular scopes do not exist',
    );
    assert.deepEqual(scopesToAsk(undefined), ['user:all', 'mcp', 'offline_access'], 'what every generation knows, when the instance does not say');
    assert.deepEqual(scopesToAsk(['mcp']), ['mcp'], 'nothing the instance would refuse');
  });
});

describe('The loopback listener a browser sign-in comes back through', () => {
  it('listens on 127.0.0.1 only, waits for its own state, and answers the browser once settled', async () => {
    const redirect = await LoopbackRedirect.listen();
    try {
      assert.match(redirect.redirectUri, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      const arrival = redirect.wait('expected-state');
      const stray = await fetch(`${redirect.redirectUri}?code=x&state=another`);
      assert.equal(stray.status, 400, 'another sign-in’s answer is refused');
      assert.match(await stray.text(), /another sign-in/);
      assert.equal((await fetch(new URL('/elsewhere', redirect.redirectUri))).status, 404);
      const landed = fetch(`${redirect.redirectUri}?code=the-code&state=expected-state`);
      const arrived = await arrival;
      assert.equal(arrived.url.searchParams.get('code'), 'the-code');
      arrived.finish({ ok: false, message: 'The instance refused <the> code.' });
      const page = await landed;
      assert.equal(page.status, 400);
      const html = await page.text();
      assert.match(html, /Sign-in failed/);
      assert.match(html, /refused &#60;the&#62; code/, 'the message is escaped');
      assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    } finally {
      redirect.close();
    }
  });

  it('stops waiting when the sign-in is cancelled, and closes', async () => {
    const redirect = await LoopbackRedirect.listen();
    const abort = new AbortController();
    const waiting = redirect.wait('state', abort.signal);
    abort.abort();
    await assert.rejects(waiting, (error: unknown) => isDeepSearchError(error) && error.kind === 'canceled');
    await assert.rejects(fetch(`${redirect.redirectUri}?state=state&code=late`), 'nothing listens any more');
  });
});

describe('A sign-in waiting for a person', () => {
  const waitForAbort = (signal: AbortSignal) =>
    new Promise<string>((_resolve, reject) =>
      signal.addEventListener('abort', () => reject(new DeepSearchError('canceled', 'The request was canceled.')), { once: true }),
    );

  it('gives up after the time allowed, saying so', async () => {
    await assert.rejects(
      untilDeadline(waitForAbort, {
        cancel: new AbortController().signal,
        timeoutMs: 50,
        timeoutMessage: 'The sign-in in the browser did not finish within 5 minutes.',
      }),
      (error: unknown) =>
        isDeepSearchError(error) && error.kind === 'timeout' && error.message === 'The sign-in in the browser did not finish within 5 minutes.',
    );
  });

  it('ends quietly when the person cancels, and passes an answer or a failure through', async () => {
    const cancel = new AbortController();
    const waiting = untilDeadline(waitForAbort, { cancel: cancel.signal, timeoutMs: 60_000, timeoutMessage: 'late' });
    cancel.abort();
    assert.equal(await waiting, undefined);
    assert.equal(
      await untilDeadline(() => Promise.resolve('tokens'), { cancel: new AbortController().signal, timeoutMs: 60_000, timeoutMessage: 'late' }),
      'tokens',
    );
    await assert.rejects(
      untilDeadline(() => Promise.reject(new Error('denied')), { cancel: new AbortController().signal, timeoutMs: 60_000, timeoutMessage: 'late' }),
      /denied/,
    );
  });
});
