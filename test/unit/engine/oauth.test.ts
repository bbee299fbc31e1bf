/**
 * The engine's OAuth 2.0 authorization server over HTTP: discovery, the authorization code grant
 * with PKCE through its consent page, the device grant through its verification page, refresh
 * rotation, revocation, dynamic registration, expiry, and the scopes its tokens carry enforced by
 * both interfaces. Every step is the request a client or a browser sends.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { API_PATH } from '../../../src/contract/legacyWire';
import { CONNECT_SERVICE_PATH } from '../../../src/contract/connectWire';
import {
  codeChallengeOf,
  GRANT_TYPES,
  newCodeVerifier,
  OAUTH_PATHS,
  type WireDeviceAuthorization,
  type WireTokenResponse,
} from '../../../src/contract/oauthWire';
import { TOOL_SERVER_ENDPOINTS } from '../../../src/contract/toolServers';
import { CLIENT_HEADER, startTestEngine, type TestEngine } from '../../support/engineHarness';

const CLIENT_ID = 'deep-search-tests';
const REDIRECT = 'http://127.0.0.1/callback';
const APP_REDIRECT = 'vscode://deep-search.deep-search/oauth';

interface Flow {
  engine: TestEngine;
}

async function form(url: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
}

async function tokenRequest(engine: TestEngine, fields: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await form(`${engine.url}${OAUTH_PATHS.token}`, { client_id: CLIENT_ID, ...fields });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The consent page for an authorization request, and the request id its form carries. */
async function consent(engine: TestEngine, parameters: Record<string, string>): Promise<{ response: Response; html: string; requestId?: string }> {
  const url = new URL(`${engine.url}${OAUTH_PATHS.authorize}`);
  for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
  const response = await fetch(url, { redirect: 'manual' });
  const html = await response.text();
  return { response, html, requestId: /name="request" value="([^"]+)"/.exec(html)?.[1] };
}

/** Signs in through the consent page, as a browser would: the code's redirect, then the exchange. */
async function signInWithBrowser(
  engine: TestEngine,
  scope: string,
  options: { user?: string; clientId?: string; redirectUri?: string } = {},
): Promise<WireTokenResponse> {
  const verifier = newCodeVerifier();
  const redirectUri = options.redirectUri ?? REDIRECT;
  const clientId = options.clientId ?? CLIENT_ID;
  const { requestId } = await consent(engine, {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope,
    state: 'state-123',
    code_challenge: codeChallengeOf(verifier),
    code_challenge_method: 'S256',
  });
  assert.ok(requestId, 'the consent page carries its request');
  const approved = await form(`${engine.url}${OAUTH_PATHS.authorize}`, {
    request: requestId,
    decision: 'approve',
    ...(options.user ? { user: options.user } : {}),
  });
  assert.equal(approved.status, 302);
  const location = new URL(approved.headers.get('location') ?? '');
  assert.equal(location.searchParams.get('state'), 'state-123');
  const code = location.searchParams.get('code') ?? '';
  const response = await form(`${engine.url}${OAUTH_PATHS.token}`, {
    grant_type: GRANT_TYPES.authorizationCode,
    client_id: clientId,
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
  });
  assert.equal(response.status, 200, await response.clone().text());
  return (await response.json()) as WireTokenResponse;
}

function listWith(engine: TestEngine, token: string): Promise<Response> {
  return fetch(`${engine.url}${API_PATH}/`, { headers: { Authorization: `Bearer ${token}`, 'X-Requested-With': CLIENT_HEADER } });
}

function mcpWith(engine: TestEngine, token: string): Promise<Response> {
  return fetch(`${engine.url}${TOOL_SERVER_ENDPOINTS.all}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
}

describe('engine OAuth authorization server', function () {
  this.timeout(60_000);
  const flow = {} as Flow;

  before(async function () {
    flow.engine = await startTestEngine({
      users: [
        { token: 'dse_test_owner_token', name: 'owner' },
        { token: 'dse_test_other_token', name: 'other' },
      ],
      oauth: { clients: [{ id: CLIENT_ID, name: 'Deep Search tests', redirectUris: [REDIRECT, APP_REDIRECT] }], deviceIntervalSeconds: 1 },
    });
  });
  after(async function () {
    await flow.engine?.stop();
  });

  it('publishes its endpoints on both discovery paths', async function () {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const metadata = (await (await fetch(`${flow.engine.url}${path}`)).json()) as Record<string, unknown>;
      assert.equal(metadata.issuer, flow.engine.url);
      assert.equal(metadata.authorization_endpoint, `${flow.engine.url}/.auth/idp/oauth/authorize`);
      assert.equal(metadata.token_endpoint, `${flow.engine.url}/.auth/idp/oauth/token`);
      assert.equal(metadata.device_authorization_endpoint, `${flow.engine.url}/.auth/idp/oauth/device/code`);
      assert.deepEqual(metadata.code_challenge_methods_supported, ['S256']);
      assert.ok((metadata.grant_types_supported as string[]).includes(GRANT_TYPES.deviceCode));
    }
  });

  it('signs in through the consent page with PKCE; the token reaches both interfaces and userinfo names the user', async function () {
    const tokens = await signInWithBrowser(flow.engine, 'externalapi:read externalapi:write mcp offline_access openid', { user: '2' });
    assert.equal(tokens.token_type, 'Bearer');
    assert.equal(tokens.expires_in, 3600);
    assert.ok(tokens.refresh_token, 'offline_access brings a refresh token');
    assert.equal(tokens.scope, 'externalapi:read externalapi:write mcp offline_access openid');
    assert.equal((await listWith(flow.engine, tokens.access_token)).status, 200);
    assert.equal((await mcpWith(flow.engine, tokens.access_token)).status, 200);
    const connect = await fetch(`${flow.engine.url}${CONNECT_SERVICE_PATH}/ListConversationSummaries`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${tokens.access_token}`, 'Content-Type': 'application/json', 'Connect-Protocol-Version': '1' },
      body: '{}',
    });
    assert.equal(connect.status, 200);
    const info = (await (
      await fetch(`${flow.engine.url}${OAUTH_PATHS.userinfo}`, { headers: { Authorization: `Bearer ${tokens.access_token}` } })
    ).json()) as Record<string, unknown>;
    assert.deepEqual(info, { sub: '2', preferred_username: 'other', name: 'other' }, 'the account picked on the page');
  });

  it('shows the consent page with a nonce CSP, no framing, and every scope explained', async function () {
    const { response, html } = await consent(flow.engine, {
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT,
      scope: 'mcp offline_access',
      code_challenge: codeChallengeOf(newCodeVerifier()),
      code_challenge_method: 'S256',
    });
    assert.equal(response.status, 200);
    const csp = response.headers.get('content-security-policy') ?? '';
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    assert.ok(nonce && html.includes(`<style nonce="${nonce}">`), csp);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /frame-ancestors 'none'/);
    // A browser posts a form of a no-referrer page with `Origin: null`: the CSRF check would refuse it.
    assert.equal(response.headers.get('referrer-policy'), 'same-origin');
    assert.doesNotMatch(html, /<script/i);
    assert.match(html, /Authorize Deep Search tests/);
    assert.match(html, /use the code tools/);
    assert.match(html, /<select name="user"><option value="1" selected>owner<\/option><option value="2">other<\/option><\/select>/);
  });

  it('refuses a wrong code verifier, and a code used twice', async function () {
    const verifier = newCodeVerifier();
    const { requestId } = await consent(flow.engine, {
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT,
      scope: 'mcp',
      code_challenge: codeChallengeOf(verifier),
      code_challenge_method: 'S256',
    });
    const approved = await form(`${flow.engine.url}${OAUTH_PATHS.authorize}`, { request: requestId ?? '', decision: 'approve' });
    const code = new URL(approved.headers.get('location') ?? '').searchParams.get('code') ?? '';
    const wrong = await tokenRequest(flow.engine, {
      grant_type: GRANT_TYPES.authorizationCode,
      code,
      redirect_uri: REDIRECT,
      code_verifier: newCodeVerifier(),
    });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error, 'invalid_grant');
    assert.match(String(wrong.body.error_description), /code_verifier does not match/);
    const again = await tokenRequest(flow.engine, { grant_type: GRANT_TYPES.authorizationCode, code, redirect_uri: REDIRECT, code_verifier: verifier });
    assert.equal(again.body.error, 'invalid_grant', 'a code is spent by its first exchange, even a failed one');
  });

  it('never redirects for an unknown client or redirect URI, and redirects every other error with the state', async function () {
    const base = {
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT,
      scope: 'mcp',
      state: 'keep-me',
      code_challenge: codeChallengeOf(newCodeVerifier()),
      code_challenge_method: 'S256',
    };
    const unknown = await consent(flow.engine, { ...base, client_id: 'nobody' });
    assert.equal(unknown.response.status, 400);
    assert.match(unknown.html, /No OAuth client .*nobody.* is registered/);
    const elsewhere = await consent(flow.engine, { ...base, redirect_uri: 'https://evil.example/steal' });
    assert.equal(elsewhere.response.status, 400);
    assert.equal(elsewhere.response.headers.get('location'), null);
    const noPkce = await consent(flow.engine, { ...base, code_challenge_method: 'plain' });
    assert.equal(noPkce.response.status, 302);
    const location = new URL(noPkce.response.headers.get('location') ?? '');
    assert.equal(location.searchParams.get('error'), 'invalid_request');
    assert.equal(location.searchParams.get('state'), 'keep-me');
    const badScope = new URL((await consent(flow.engine, { ...base, scope: 'root' })).response.headers.get('location') ?? '');
    assert.equal(badScope.searchParams.get('error'), 'invalid_scope');
    const { requestId } = await consent(flow.engine, base);
    const denied = await form(`${flow.engine.url}${OAUTH_PATHS.authorize}`, { request: requestId ?? '', decision: 'deny' });
    const deniedAt = new URL(denied.headers.get('location') ?? '');
    assert.equal(deniedAt.searchParams.get('error'), 'access_denied');
    assert.equal(deniedAt.searchParams.get('state'), 'keep-me');
    assert.equal(deniedAt.searchParams.get('code'), null);
  });

  it('takes a loopback redirect on any port, and an app scheme exactly', async function () {
    const onPort = await signInWithBrowser(flow.engine, 'mcp', { redirectUri: 'http://127.0.0.1:53219/callback' });
    assert.equal((await mcpWith(flow.engine, onPort.access_token)).status, 200);
    const app = await signInWithBrowser(flow.engine, 'mcp', { redirectUri: APP_REDIRECT });
    assert.ok(app.access_token);
    const otherPath = await consent(flow.engine, {
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: 'http://127.0.0.1:53219/other',
      code_challenge: codeChallengeOf(newCodeVerifier()),
      code_challenge_method: 'S256',
    });
    assert.equal(otherPath.response.status, 400);
  });

  it('refuses a consent posted from another site (CSRF) and one answered twice', async function () {
    const { requestId } = await consent(flow.engine, {
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT,
      scope: 'mcp',
      code_challenge: codeChallengeOf(newCodeVerifier()),
      code_challenge_method: 'S256',
    });
    const forged = await form(
      `${flow.engine.url}${OAUTH_PATHS.authorize}`,
      { request: requestId ?? '', decision: 'approve' },
      { Origin: 'https://evil.example' },
    );
    assert.equal(forged.status, 403);
    const crossSite = await form(
      `${flow.engine.url}${OAUTH_PATHS.authorize}`,
      { request: requestId ?? '', decision: 'approve' },
      { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' },
    );
    assert.equal(crossSite.status, 403);
    const first = await form(`${flow.engine.url}${OAUTH_PATHS.authorize}`, { request: requestId ?? '', decision: 'approve' });
    assert.equal(first.status, 302, 'the forged post did not spend the request');
    const second = await form(`${flow.engine.url}${OAUTH_PATHS.authorize}`, { request: requestId ?? '', decision: 'approve' });
    assert.equal(second.status, 400);
    assert.match(await second.text(), /answered already or waited too long/);
  });

  it('takes a consent posted through a path proxy (VS Code in a browser opens the page there): relative form action, the browser attests same-origin', async function () {
    const { requestId, html } = await consent(flow.engine, {
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT,
      scope: 'mcp',
      code_challenge: codeChallengeOf(newCodeVerifier()),
      code_challenge_method: 'S256',
    });
    assert.match(html, /<form method="post" action="authorize">/);
    const proxied = await form(
      `${flow.engine.url}${OAUTH_PATHS.authorize}`,
      { request: requestId ?? '', decision: 'approve' },
      { Origin: 'http://127.0.0.1:8123', 'Sec-Fetch-Site': 'same-origin' },
    );
    assert.equal(proxied.status, 302);
  });

  it('enforces the scopes a token carries on both interfaces', async function () {
    const mcpOnly = await signInWithBrowser(flow.engine, 'mcp');
    const refused = await listWith(flow.engine, mcpOnly.access_token);
    assert.equal(refused.status, 403);
    assert.match(await refused.text(), /lacks the scope externalapi:read/);
    assert.equal((await mcpWith(flow.engine, mcpOnly.access_token)).status, 200);
    const readOnly = await signInWithBrowser(flow.engine, 'externalapi:read');
    assert.equal((await listWith(flow.engine, readOnly.access_token)).status, 200);
    const mcp = await mcpWith(flow.engine, readOnly.access_token);
    assert.equal(mcp.status, 403);
    assert.match(await mcp.text(), /lacks the scope mcp/);
  });

  it('rotates refresh tokens: each is good once, and the new tokens work', async function () {
    const first = await signInWithBrowser(flow.engine, 'externalapi:read offline_access');
    const rotated = await tokenRequest(flow.engine, { grant_type: GRANT_TYPES.refreshToken, refresh_token: first.refresh_token ?? '' });
    assert.equal(rotated.status, 200);
    assert.notEqual(rotated.body.refresh_token, first.refresh_token);
    assert.equal((await listWith(flow.engine, String(rotated.body.access_token))).status, 200);
    const reused = await tokenRequest(flow.engine, { grant_type: GRANT_TYPES.refreshToken, refresh_token: first.refresh_token ?? '' });
    assert.equal(reused.status, 400);
    assert.equal(reused.body.error, 'invalid_grant');
    assert.match(String(reused.body.error_description), /already used at .*each is good once/);
    const wider = await tokenRequest(flow.engine, {
      grant_type: GRANT_TYPES.refreshToken,
      refresh_token: String(rotated.body.refresh_token),
      scope: 'externalapi:read mcp',
    });
    assert.equal(wider.body.error, 'invalid_scope');
  });

  it('revokes: a refresh token takes its access tokens with it', async function () {
    const tokens = await signInWithBrowser(flow.engine, 'externalapi:read offline_access');
    assert.equal((await listWith(flow.engine, tokens.access_token)).status, 200);
    const revoked = await form(`${flow.engine.url}${OAUTH_PATHS.revoke}`, { token: tokens.refresh_token ?? '', client_id: CLIENT_ID });
    assert.equal(revoked.status, 200);
    assert.equal((await listWith(flow.engine, tokens.access_token)).status, 401);
    const refresh = await tokenRequest(flow.engine, { grant_type: GRANT_TYPES.refreshToken, refresh_token: tokens.refresh_token ?? '' });
    assert.equal(refresh.body.error, 'invalid_grant');
    const unknown = await form(`${flow.engine.url}${OAUTH_PATHS.revoke}`, { token: 'never-issued' });
    assert.equal(unknown.status, 200, 'revoking an unknown token is no error (RFC 7009)');
  });

  it('signs a device in: pending, slow down, the code entered on the page, then tokens', async function () {
    const started = await form(`${flow.engine.url}${OAUTH_PATHS.deviceCode}`, { client_id: CLIENT_ID, scope: 'externalapi:read mcp offline_access' });
    assert.equal(started.status, 200);
    const device = (await started.json()) as WireDeviceAuthorization;
    assert.match(device.user_code, /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    assert.equal(device.verification_uri, `${flow.engine.url}/.auth/idp/oauth/device`);
    assert.equal(device.interval, 1);
    const poll = () => tokenRequest(flow.engine, { grant_type: GRANT_TYPES.deviceCode, device_code: device.device_code });
    assert.equal((await poll()).body.error, 'authorization_pending');
    const hurried = await poll();
    assert.equal(hurried.body.error, 'slow_down');
    assert.match(String(hurried.body.error_description), /wait 6 seconds/);
    const page = await fetch(device.verification_uri_complete ?? '');
    const html = await page.text();
    assert.match(html, new RegExp(`value="${device.user_code}"`), 'the complete URI fills the code in');
    assert.match(html, /Deep Search tests asks to/);
    const entered = await form(`${flow.engine.url}${OAUTH_PATHS.device}`, { user_code: device.user_code.toLowerCase().replace('-', ' '), decision: 'approve' });
    assert.equal(entered.status, 200);
    assert.match(await entered.text(), /Device signed in/);
    const tokens = await poll();
    assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
    assert.equal((await listWith(flow.engine, String(tokens.body.access_token))).status, 200);
    assert.equal((await poll()).body.error, 'invalid_grant', 'the device code is spent');
  });

  it('says when a device sign-in was denied, and when a code is wrong', async function () {
    const device = (await (
      await form(`${flow.engine.url}${OAUTH_PATHS.deviceCode}`, { client_id: CLIENT_ID, scope: 'mcp' })
    ).json()) as WireDeviceAuthorization;
    const wrong = await form(`${flow.engine.url}${OAUTH_PATHS.device}`, { user_code: 'ZZZZ-ZZZZ', decision: 'approve' });
    assert.equal(wrong.status, 400);
    assert.match(await wrong.text(), /No sign-in waits for this code/);
    await form(`${flow.engine.url}${OAUTH_PATHS.device}`, { user_code: device.user_code, decision: 'deny' });
    const denied = await tokenRequest(flow.engine, { grant_type: GRANT_TYPES.deviceCode, device_code: device.device_code });
    assert.equal(denied.body.error, 'access_denied');
  });

  it('lets a client register itself, with the tool server’s scope only', async function () {
    const registered = await fetch(`${flow.engine.url}${OAUTH_PATHS.register}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_name: 'An agent', redirect_uris: ['http://127.0.0.1:33418/'], token_endpoint_auth_method: 'none' }),
    });
    assert.equal(registered.status, 201);
    const client = (await registered.json()) as { client_id: string; scope: string };
    assert.doesNotMatch(client.scope, /externalapi|user:all/);
    const tokens = await signInWithBrowser(flow.engine, 'user:all offline_access', { clientId: client.client_id, redirectUri: 'http://127.0.0.1:40000/' });
    assert.equal(tokens.scope, 'offline_access mcp');
    assert.equal((await listWith(flow.engine, tokens.access_token)).status, 403);
    assert.equal((await mcpWith(flow.engine, tokens.access_token)).status, 200);
    const secret = await fetch(`${flow.engine.url}${OAUTH_PATHS.register}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['javascript:alert(1)'] }),
    });
    assert.equal(secret.status, 400);
    assert.equal(((await secret.json()) as { error: string }).error, 'invalid_redirect_uri');
  });

  it('points MCP clients from a 401 to the protected-resource metadata', async function () {
    const refused = await mcpWith(flow.engine, 'not-a-token');
    assert.equal(refused.status, 401);
    const challenge = refused.headers.get('www-authenticate') ?? '';
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    assert.equal(metadataUrl, `${flow.engine.url}/.well-known/oauth-protected-resource/.api/mcp/all`);
    const metadata = (await (await fetch(metadataUrl ?? '')).json()) as Record<string, unknown>;
    assert.deepEqual(metadata.authorization_servers, [flow.engine.url]);
    assert.equal(metadata.resource, `${flow.engine.url}/.api/mcp/all`);
  });

  it('takes token requests as forms in the body only, each parameter once', async function () {
    const inUrl = await fetch(`${flow.engine.url}${OAUTH_PATHS.token}?client_id=${CLIENT_ID}&grant_type=refresh_token&refresh_token=x`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    assert.equal(((await inUrl.json()) as { error: string }).error, 'invalid_request');
    const twice = await fetch(`${flow.engine.url}${OAUTH_PATHS.token}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `client_id=${CLIENT_ID}&grant_type=refresh_token&refresh_token=a&refresh_token=b`,
    });
    assert.match(((await twice.json()) as { error_description: string }).error_description, /refresh_token.* more than once/);
    const unknownClient = await form(`${flow.engine.url}${OAUTH_PATHS.token}`, { client_id: 'nobody', grant_type: 'refresh_token', refresh_token: 'x' });
    assert.equal(unknownClient.status, 401);
  });
});

describe('engine OAuth tokens across a restart', function () {
  this.timeout(60_000);
  let engine: TestEngine;

  before(async function () {
    engine = await startTestEngine({ oauth: { clients: [{ id: CLIENT_ID, redirectUris: [REDIRECT] }] } });
  });
  after(async function () {
    await engine?.dispose();
  });

  it('keeps its sign-ins: the access token still works and the refresh token rotates once more, and only digests are on disk', async function () {
    const tokens = await signInWithBrowser(engine, 'externalapi:read offline_access');
    const spent = await tokenRequest(engine, { grant_type: GRANT_TYPES.refreshToken, refresh_token: tokens.refresh_token ?? '' });
    await engine.restart();
    assert.equal((await listWith(engine, String(spent.body.access_token))).status, 200);
    const rotated = await tokenRequest(engine, { grant_type: GRANT_TYPES.refreshToken, refresh_token: String(spent.body.refresh_token) });
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    const reused = await tokenRequest(engine, { grant_type: GRANT_TYPES.refreshToken, refresh_token: tokens.refresh_token ?? '' });
    assert.match(String(reused.body.error_description), /already used/, 'a token spent before the restart stays spent');
    await engine.stop();
    const saved = await readFile(path.join(engine.dataDir, 'oauth-tokens.json'), 'utf8');
    for (const token of [
      tokens.access_token,
      tokens.refresh_token,
      spent.body.access_token,
      spent.body.refresh_token,
      rotated.body.access_token,
      rotated.body.refresh_token,
    ]) {
      assert.ok(!saved.includes(String(token)), 'no token is written down');
    }
  });
});

describe('engine OAuth tokens that expire', function () {
  this.timeout(60_000);
  let engine: TestEngine;

  before(async function () {
    engine = await startTestEngine({
      oauth: { clients: [{ id: CLIENT_ID, redirectUris: [REDIRECT] }], accessTokenSeconds: 1, deviceCodeSeconds: 1, deviceIntervalSeconds: 1 },
    });
  });
  after(async function () {
    await engine?.stop();
  });

  it('says an access token expired, and its refresh token still brings a new one', async function () {
    const tokens = await signInWithBrowser(engine, 'externalapi:read offline_access');
    assert.equal(tokens.expires_in, 1);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const expired = await listWith(engine, tokens.access_token);
    assert.equal(expired.status, 401);
    assert.match(await expired.text(), /The OAuth access token expired at .*: refresh it, or sign in again/);
    assert.match(expired.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    const refreshed = await tokenRequest(engine, { grant_type: GRANT_TYPES.refreshToken, refresh_token: tokens.refresh_token ?? '' });
    assert.equal((await listWith(engine, String(refreshed.body.access_token))).status, 200);
  });

  it('says a device code expired before anyone approved it', async function () {
    const device = (await (await form(`${engine.url}${OAUTH_PATHS.deviceCode}`, { client_id: CLIENT_ID, scope: 'mcp' })).json()) as WireDeviceAuthorization;
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const late = await tokenRequest(engine, { grant_type: GRANT_TYPES.deviceCode, device_code: device.device_code });
    assert.equal(late.body.error, 'expired_token');
  });
});
