/**
 * The extension's OAuth client (src/api/oauth) against the engine's authorization server over HTTP:
 * discovery, the browser sign-in (the consent page answered as a browser would), the device sign-in
 * (the code entered on the engine's page while the client polls), refresh before expiry and after a
 * 401, the refresh race between windows, and what a refused refresh says.
 */
import assert from 'node:assert/strict';
import { HttpTransport } from '../../../src/api/http';
import { AuthorizationServerClient, OAuthFailure, type OAuthTokens } from '../../../src/api/oauth/authorizationServer';
import { TokenSession, type TokenVault } from '../../../src/api/oauth/tokenSession';
import { OAUTH_PATHS } from '../../../src/contract/oauthWire';
import { isDeepSearchError } from '../../../src/api/errors';
import { startTestEngine, type TestEngine } from '../../support/engineHarness';
import { memoryVault } from '../../support/tokenVault';

const CLIENT_ID = 'deep-search-vscode-tests';
const REDIRECT = 'http://127.0.0.1/callback';

/** Answers the consent page as a person would: opens it, approves it, follows nothing further. */
async function approveInBrowser(authorizeUrl: URL): Promise<URL> {
  const page = await (await fetch(authorizeUrl)).text();
  const requestId = /name="request" value="([^"]+)"/.exec(page)?.[1] ?? '';
  const approved = await fetch(new URL(OAUTH_PATHS.authorize, authorizeUrl), {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ request: requestId, decision: 'approve' }).toString(),
    redirect: 'manual',
  });
  return new URL(approved.headers.get('location') ?? '');
}

describe('OAuth client against the engine', function () {
  this.timeout(60_000);
  let engine: TestEngine;
  let server: AuthorizationServerClient;
  const requests: string[] = [];
  const transport = new HttpTransport();

  before(async function () {
    engine = await startTestEngine({
      oauth: { clients: [{ id: CLIENT_ID, redirectUris: [REDIRECT] }], deviceIntervalSeconds: 1 },
      log: (line) => requests.push(line),
    });
    const found = await AuthorizationServerClient.discover(transport, engine.url);
    assert.ok(found, 'the engine publishes its authorization server');
    server = found;
  });
  after(async function () {
    await engine?.stop();
  });

  async function signIn(scopes = ['externalapi:read', 'offline_access']): Promise<OAuthTokens> {
    const started = server.startBrowserSignIn({ clientId: CLIENT_ID, redirectUri: 'http://127.0.0.1:41234/callback', scopes });
    return server.completeBrowserSignIn(started, await approveInBrowser(started.url));
  }

  /** Token requests the engine received, whatever it answered. */
  function tokenRequests(): number {
    return requests.filter((line) => line.startsWith(`POST ${OAUTH_PATHS.token} `)).length;
  }

  it('finds no authorization server on an instance without OAuth', async function () {
    const plain = await startTestEngine({ oauth: false });
    try {
      assert.equal(await AuthorizationServerClient.discover(transport, plain.url), undefined);
    } finally {
      await plain.stop();
    }
  });

  it('signs in with the browser: PKCE, the state checked, the code exchanged for tokens that work', async function () {
    const started = server.startBrowserSignIn({
      clientId: CLIENT_ID,
      redirectUri: 'http://127.0.0.1:41234/callback',
      scopes: ['externalapi:read', 'mcp', 'offline_access'],
    });
    assert.equal(started.url.searchParams.get('code_challenge_method'), 'S256');
    assert.notEqual(started.url.searchParams.get('code_challenge'), started.verifier, 'the verifier never leaves the extension');
    const redirect = await approveInBrowser(started.url);
    const forged = new URL(redirect);
    forged.searchParams.set('state', 'someone-else');
    await assert.rejects(server.completeBrowserSignIn(started, forged), (error: unknown) => error instanceof OAuthFailure && error.code === 'invalid_state');
    const tokens = await server.completeBrowserSignIn(started, redirect);
    assert.deepEqual(tokens.scopes, ['externalapi:read', 'mcp', 'offline_access']);
    assert.ok(tokens.refreshToken);
    assert.ok(tokens.expiresAt && tokens.expiresAt > Date.now() + 3_000_000);
    assert.deepEqual(await server.userInfo(tokens.accessToken), { sub: '1', preferred_username: 'owner', name: 'owner' });
  });

  it('says a sign-in denied in the browser was denied', async function () {
    const started = server.startBrowserSignIn({ clientId: CLIENT_ID, redirectUri: REDIRECT, scopes: ['mcp'] });
    const denied = new URL(REDIRECT);
    denied.searchParams.set('state', started.state);
    denied.searchParams.set('error', 'access_denied');
    await assert.rejects(server.completeBrowserSignIn(started, denied), /The sign-in was denied in the browser/);
  });

  it('signs in with a device code: polls while the code waits, then has tokens', async function () {
    const device = await server.startDeviceSignIn({ clientId: CLIENT_ID, scopes: ['externalapi:read'] });
    const waits: number[] = [];
    const wait = async (ms: number) => {
      waits.push(ms);
      if (waits.length === 2) {
        // The person enters the code on the engine's page while the client waits.
        await fetch(new URL(OAUTH_PATHS.device, engine.url), {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ user_code: device.user_code, decision: 'approve' }).toString(),
        });
      }
      await new Promise((resolve) => setTimeout(resolve, ms));
    };
    const tokens = await server.finishDeviceSignIn(device, CLIENT_ID, wait);
    assert.deepEqual(tokens.scopes, ['externalapi:read']);
    assert.deepEqual(waits.slice(0, 2), [1000, 1000], 'the interval the server asked for');
  });

  it('says a denied device sign-in was denied, without polling on', async function () {
    const device = await server.startDeviceSignIn({ clientId: CLIENT_ID, scopes: ['mcp'] });
    await fetch(new URL(OAUTH_PATHS.device, engine.url), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ user_code: device.user_code, decision: 'deny' }).toString(),
    });
    await assert.rejects(
      server.finishDeviceSignIn(device, CLIENT_ID, (ms) => new Promise((resolve) => setTimeout(resolve, ms))),
      (error: unknown) => error instanceof OAuthFailure && error.code === 'access_denied',
    );
  });

  it('refreshes a token about to expire before sending it, and stores the rotated tokens', async function () {
    const tokens = await signIn();
    // An hour-long token with ten seconds left.
    const vault = memoryVault({ ...tokens, issuedAt: Date.now() - 3_590_000, expiresAt: Date.now() + 10_000 });
    const session = new TokenSession(vault, (refreshToken) => server.refresh(refreshToken, CLIENT_ID));
    const fresh = await session.accessToken();
    assert.notEqual(fresh, tokens.accessToken);
    assert.equal(vault.writes, 1);
    assert.notEqual((await vault.read())?.refreshToken, tokens.refreshToken, 'the refresh token rotated');
    assert.equal(await session.accessToken(), fresh, 'a fresh token is used as it is');
  });

  it('renews a short-lived token a quarter of its lifetime early, not at every request', async function () {
    const issuedAt = 1_000_000;
    let now = issuedAt;
    const vault = memoryVault({ accessToken: 'short', refreshToken: 'r', scopes: [], issuedAt, expiresAt: issuedAt + 8_000 });
    let refreshes = 0;
    const session = new TokenSession(vault, () => Promise.resolve({ accessToken: `new${++refreshes}`, scopes: [] }), { now: () => now });
    assert.equal(await session.renewsAt(), issuedAt + 6_000, 'eight seconds of life: renewed two seconds early, not sixty');
    now = issuedAt + 5_000;
    assert.equal(await session.accessToken(), 'short');
    now = issuedAt + 6_000;
    assert.equal(await session.accessToken(), 'new1');
    const hour = memoryVault({ accessToken: 'long', scopes: [], issuedAt, expiresAt: issuedAt + 3_600_000 });
    assert.equal(await new TokenSession(hour, () => Promise.reject(new Error('no'))).renewsAt(), issuedAt + 3_540_000, 'an hour: a minute early');
  });

  it('refreshes once for many callers at once in one window: one request, one new token for all', async function () {
    const tokens = await signIn();
    const vault = memoryVault(tokens);
    const session = new TokenSession(vault, (refreshToken) => server.refresh(refreshToken, CLIENT_ID));
    const before = tokenRequests();
    // A poll, a tool call and a list, all refused with the same token.
    const results = await Promise.all([0, 1, 2].map(() => session.afterRejected(tokens.accessToken)));
    const stored = await vault.read();
    assert.deepEqual(
      results,
      [0, 1, 2].map(() => stored?.accessToken),
    );
    assert.equal(tokenRequests() - before, 1, 'one refresh request reached the instance');
    assert.equal(vault.writes, 1);
  });

  it('lets two windows race to refresh without losing the session: the one that lost uses the winner’s tokens', async function () {
    const tokens = await signIn();
    const vault = memoryVault(tokens);
    const refreshWith = (refreshToken: string) => server.refresh(refreshToken, CLIENT_ID);
    const [windowA, windowB] = [new TokenSession(vault, refreshWith), new TokenSession(vault, refreshWith)];
    const results = await Promise.all([windowA.afterRejected(tokens.accessToken), windowB.afterRejected(tokens.accessToken)]);
    const stored = await vault.read();
    assert.deepEqual(results, [stored?.accessToken, stored?.accessToken], 'both windows have the one new token');
    assert.equal(
      (await fetch(`${engine.apiUrl}/`, { headers: { Authorization: `Bearer ${stored?.accessToken ?? ''}`, 'X-Requested-With': 'tests 1' } })).status,
      200,
    );
    // And the session goes on: the stored refresh token is the live one.
    assert.ok((await refreshWith(stored?.refreshToken ?? '')).accessToken);
  });

  it('finds the winner’s tokens when its own refresh was refused as already used', async function () {
    const tokens = await signIn();
    const vault = memoryVault(tokens);
    // Another window spends the refresh token and stores its tokens just after this one read the vault.
    const winner = await server.refresh(tokens.refreshToken ?? '', CLIENT_ID);
    let delivered = false;
    const late: TokenVault = {
      read: () => vault.read(),
      write: (next) => vault.write(next),
    };
    const session = new TokenSession(late, (refreshToken) => server.refresh(refreshToken, CLIENT_ID), {
      sleep: async () => {
        if (!delivered) await vault.write(winner);
        delivered = true;
      },
    });
    assert.equal(await session.afterRejected(tokens.accessToken), winner.accessToken);
  });

  it('asks to sign in again when the refresh token was revoked', async function () {
    const tokens = await signIn();
    await server.revoke(tokens.refreshToken ?? '', CLIENT_ID);
    const session = new TokenSession(memoryVault(tokens), (refreshToken) => server.refresh(refreshToken, CLIENT_ID), { sleep: () => Promise.resolve() });
    await assert.rejects(
      session.afterRejected(tokens.accessToken),
      (error: unknown) => isDeepSearchError(error) && error.kind === 'unauthorized' && /sign in again/.test(error.message),
    );
  });
});
