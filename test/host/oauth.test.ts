import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { HttpTransport } from '../../src/api/http';
import { AuthorizationServerClient, OAuthFailure, type OAuthTokens } from '../../src/api/oauth/authorizationServer';
import { OAUTH_PATHS } from '../../src/contract/oauthWire';
import { parseInstanceUrl } from '../../src/api/instance';
import { useOAuthSignIn } from '../../src/vscode/auth/signIn';
import { eventually, extensionApi, hostTestOptions, signInTo } from './extensionApi';

/**
 * An OAuth sign-in in the real extension host, against the engine whose access tokens live
 * seconds. The sign-in itself (quick pick, browser, consent page) is the UI test's
 * (test/ui/oauth.ui.test.ts); here the tokens come from the engine's consent page answered over
 * HTTP as a browser would, and are handed to the session as the sign-in command does once it has
 * them. What is tested is what follows: renewal, the views kept, the agent's header, Sign Out.
 */
describe('OAuth sign-in in the extension host', function () {
  this.timeout(120_000);
  let server: AuthorizationServerClient;

  before(async () => {
    const found = await AuthorizationServerClient.discover(new HttpTransport(), hostTestOptions().engineUrl);
    assert.ok(found, 'the engine publishes its authorization server');
    server = found;
  });

  after(async () => {
    // The other suites sign in with the access token again.
    await signInTo();
  });

  /** Tokens for the engine's first user, the consent page approved over HTTP. */
  async function approvedTokens(): Promise<OAuthTokens> {
    const { engineUrl, oauthClientId } = hostTestOptions();
    const started = server.startBrowserSignIn({
      clientId: oauthClientId,
      redirectUri: 'http://127.0.0.1:45678/callback',
      scopes: ['externalapi:read', 'externalapi:write', 'mcp', 'offline_access'],
    });
    const page = await (await fetch(started.url)).text();
    const requestId = /name="request" value="([^"]+)"/.exec(page)?.[1] ?? '';
    const approved = await fetch(new URL(OAUTH_PATHS.authorize, engineUrl), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: new URL(engineUrl).origin },
      body: new URLSearchParams({ request: requestId, decision: 'approve' }).toString(),
      redirect: 'manual',
    });
    return server.completeBrowserSignIn(started, new URL(approved.headers.get('location') ?? ''));
  }

  it('renews the token before it expires without resetting the views, and gives the agent the new Bearer header', async () => {
    const api = await extensionApi();
    const { engineUrl, oauthClientId, oauthTokenSeconds } = hostTestOptions();
    const tokens = await approvedTokens();
    await useOAuthSignIn(api.signIn, parseInstanceUrl(engineUrl), { id: randomUUID(), clientId: oauthClientId, tokens, account: { id: '1', label: 'user1' } });
    const connection = api.session.current;
    assert.equal(connection?.auth, 'oauth');
    await api.store.refreshList();
    assert.ok(api.store.isListLoaded, 'conversations list with the OAuth token');

    // (The Accounts menu's entry is checked where a user sees it: test/ui/oauth.ui.test.ts.)
    assert.equal(connection?.accountLabel, 'user1');

    const [listed] = await Promise.resolve(api.mcpServers.provideMcpServerDefinitions());
    assert.ok(listed);
    const resolved = await api.mcpServers.resolveMcpServerDefinition(listed);
    assert.equal(resolved?.headers['Authorization'], `Bearer ${tokens.accessToken}`);

    let connectionChanges = 0;
    const watching = api.session.onDidChange(() => connectionChanges++);
    const definitionsChanged = new Promise<void>((resolve) => api.mcpServers.onDidChangeMcpServerDefinitions(resolve));
    try {
      // Renewed a quarter of its lifetime early, by the session's own timer.
      const renewed = await eventually(
        async () => {
          const now = await api.session.currentToken();
          return now && now !== tokens.accessToken ? now : undefined;
        },
        'the access token to be renewed',
        oauthTokenSeconds * 1000 + 10_000,
      );
      await definitionsChanged;
      const [again] = await Promise.resolve(api.mcpServers.provideMcpServerDefinitions());
      assert.notEqual(again?.version, listed.version, 'a new version: VS Code resolves the server again');
      const reresolved = again && (await api.mcpServers.resolveMcpServerDefinition(again));
      assert.equal(reresolved?.headers['Authorization'], `Bearer ${renewed}`);

      const agent = new Client({ name: 'host-test-agent', version: '1.0.0' });
      await agent.connect(new StreamableHTTPClientTransport(new URL(reresolved?.uri.toString(true) ?? ''), { requestInit: { headers: reresolved?.headers } }));
      try {
        assert.ok(
          (await agent.listTools()).tools.some((tool) => tool.name === 'keyword_search'),
          'the agent reaches the tools with the renewed token',
        );
      } finally {
        await agent.close();
      }
      assert.equal(connectionChanges, 0, 'the same connection: views, panels and polls keep their state');
      assert.equal(api.session.current, connection);
      // The old token has expired by now: the clients send the renewed one.
      await new Promise((resolve) => setTimeout(resolve, oauthTokenSeconds * 1000));
      await api.store.refreshList();
      assert.ok(api.store.isListLoaded);
    } finally {
      watching.dispose();
    }
  });

  it('takes the browser’s answer through VS Code’s own link (the URI handler) for the sign-in whose state it carries, and chooses the loopback listener where VS Code runs in a browser', async () => {
    const api = await extensionApi();
    const abort = new AbortController();
    const mine = api.signIn.redirects.wait('state-of-this-sign-in', abort.signal);
    const link = (state: string) =>
      vscode.Uri.parse(`${vscode.env.uriScheme}://deepsearch-team.deep-search-vscode/oauth-callback?code=the-code&state=${state}`);
    // Driven directly, as desktop VS Code calls the handler when the browser opens a vscode:// link.
    // The only VS Code here runs in a browser, which does not route its own scheme's links to
    // extensions (tried: openExternal of such a link shows "All done. You can close this tab now.");
    // that is why such a VS Code signs in through the loopback listener (the UI test's path).
    api.signIn.redirects.handleUri(link('another-sign-in'));
    api.signIn.redirects.handleUri(link('state-of-this-sign-in'));
    const url = await Promise.race([mine, new Promise<undefined>((resolve) => setTimeout(resolve, 10_000))]);
    abort.abort();
    assert.ok(url, 'the link reached the handler');
    assert.equal(url.searchParams.get('code'), 'the-code');
    assert.equal(url.searchParams.get('state'), 'state-of-this-sign-in');
    // asExternalUri turns this VS Code's own link into a web page address: no instance could register it.
    assert.deepEqual(await api.signIn.redirects.choose('auto'), { kind: 'loopback' });
    assert.equal((await api.signIn.redirects.choose('uriHandler')).kind, 'uriHandler');
  });

  it('revokes the sign-in on the instance at Sign Out', async () => {
    const api = await extensionApi();
    const { engineUrl, oauthClientId } = hostTestOptions();
    const tokens = await approvedTokens();
    await useOAuthSignIn(api.signIn, parseInstanceUrl(engineUrl), { id: randomUUID(), clientId: oauthClientId, tokens });
    // Sign Out as the command palette runs it.
    await vscode.commands.executeCommand('deepSearch.signOut');
    assert.equal(api.session.current, undefined);
    await assert.rejects(
      server.refresh(tokens.refreshToken ?? '', oauthClientId),
      (error: unknown) => error instanceof OAuthFailure && error.code === 'invalid_grant',
    );
    const status = (
      await fetch(`${engineUrl}/.api/deepsearch/v1`, { headers: { Authorization: `Bearer ${tokens.accessToken}`, 'X-Requested-With': 'host-tests 1' } })
    ).status;
    assert.equal(status, 401, 'the access token no longer works either');
  });
});
