import * as assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { Page } from 'playwright-core';
import { OAUTH_PATHS } from '../../src/contract/oauthWire';
import { VSCodeUi } from './vscodeUi';

/** The client an administrator created on the engine for the extension (its id goes in the settings). */
const CLIENT_ID = 'deep-search-vscode';

/**
 * OAuth sign-in as a user does it, in the real VS Code and Chromium against the engine's
 * authorization server: Sign In from the palette, the way picked in the quick pick, the engine's
 * consent page (or its device page) answered in a browser tab, and VS Code signed in by itself.
 */
describe('Sign in with OAuth (UI)', function () {
  this.timeout(240_000);
  let ui: VSCodeUi;
  const requests: string[] = [];
  /** While set, the instance refuses every token on its APIs (401), as it would a token it no longer knows. */
  let refuseTokens = false;
  const API_PREFIXES = ['/.api/deepsearch', '/api/deepsearch.v1', '/.api/mcp'];

  before(async () => {
    ui = await VSCodeUi.launch({
      paceMs: 100,
      signedIn: false,
      oauth: { clients: [{ id: CLIENT_ID, name: 'Deep Search for VS Code', redirectUris: ['http://127.0.0.1/callback'] }], deviceIntervalSeconds: 1 },
      settings: { 'deepSearch.oauth.clientId': CLIENT_ID },
      engineLog: (line) => requests.push(line),
      faults: {
        request: ({ path }) =>
          refuseTokens && API_PREFIXES.some((prefix) => path.startsWith(prefix)) ? { kind: 'status', status: 401, body: 'invalid token' } : undefined,
      },
    });
  });

  afterEach(async function () {
    await ui.screenshotIfFailed(this.currentTest, 'oauth');
  });

  after(async () => {
    await ui?.close();
  });

  /** Sign In → the instance URL → the way to sign in, picked in the quick pick. */
  async function startSignIn(way: RegExp): Promise<void> {
    await ui.runCommand('Deep Search: Sign In');
    await ui.answerInputBox('Deep Search: Sign In (1/2)', ui.engine.url);
    const pick = ui.page.locator('.quick-input-widget', { has: ui.page.locator('.quick-input-title', { hasText: 'Deep Search: Sign In (2/2)' }) });
    const rows = pick.locator('.monaco-list-row');
    await rows.first().waitFor();
    assert.deepEqual(
      // Each row's first label is its title (the detail line below it is a label too).
      await rows.evaluateAll((found) => found.map((row) => row.querySelector('.label-name')?.textContent?.trim() ?? '')),
      ['Sign in with your browser', 'Sign in with a device code', 'Paste an access token'],
      'the three ways, in this order',
    );
    await ui.clickWhenReady(rows.filter({ hasText: way }));
  }

  /** Whether something accepts TCP connections at the host and port of `url`. */
  function accepts(url: URL): Promise<boolean> {
    return new Promise((resolve) => {
      const socket = connect(Number(url.port), url.hostname);
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
  }

  /** The browser tab VS Code opens next. */
  async function nextTab(from: number): Promise<Page> {
    await ui.eventually(() => Promise.resolve(ui.openedTabs.length > from), 'VS Code to open a browser tab');
    const tab = ui.openedTabs[from];
    await tab.waitForURL((url) => url.href !== 'about:blank', { waitUntil: 'commit' });
    return tab;
  }

  /**
   * The engine's page at `path`, as this VS Code opens it: code-server reaches loopback servers
   * through its port proxy (`<code-server>/proxy/<port>/…`, VS Code's asExternalUri); desktop VS Code
   * would open the engine's address itself.
   */
  function enginePage(path: string): RegExp {
    const escaped = path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    return new RegExp(`^http://127\\.0\\.0\\.1:\\d+/proxy/${ui.engine.port}${escaped}`);
  }

  /**
   * The Accounts menu's entry for Deep Search, opened from the activity bar as a user does (again
   * until it is there: VS Code updates the menu a moment after the sign-in).
   */
  async function accountsEntry(): Promise<string> {
    let text = '';
    await ui.eventually(async () => {
      await ui.page.locator('.activitybar .action-label.codicon-accounts-view-bar-icon').click();
      const menu = ui.page.locator('.monaco-menu');
      await menu.waitFor();
      const entry = menu.locator('.action-label', { hasText: /\(Deep Search\)/ }).first();
      text = (await entry.isVisible()) ? ((await entry.textContent()) ?? '') : '';
      await ui.page.keyboard.press('Escape');
      await menu.waitFor({ state: 'hidden' });
      return text !== '';
    }, 'Deep Search in the Accounts menu');
    return text;
  }

  /** Signed out, whatever the test before left: Sign Out when the palette offers it. */
  async function signedOut(): Promise<void> {
    if (!(await ui.paletteOffers('Deep Search: Sign Out'))) return;
    await ui.runCommand('Deep Search: Sign Out');
    await ui.eventually(async () => !(await ui.paletteOffers('Deep Search: Sign Out')), 'Sign Out to leave the palette');
  }

  /** Signed in with the browser (the consent approved), whatever the test before left. */
  async function signedIn(): Promise<void> {
    if (await ui.paletteOffers('Deep Search: Sign Out')) return;
    const from = ui.openedTabs.length;
    await startSignIn(/with your browser/);
    const consent = await nextTab(from);
    await consent.getByRole('button', { name: 'Authorize' }).click();
    await consent.getByText('You are signed in to Deep Search. You can close this tab and return to VS Code.').waitFor();
    await ui.page.bringToFront();
    await ui.eventually(() => ui.paletteOffers('Deep Search: Sign Out'), 'Sign Out in the palette');
  }

  it('signs in with the browser: the consent page opens, Authorize, and VS Code is signed in by itself', async () => {
    await signedOut();
    const from = ui.openedTabs.length;
    await startSignIn(/with your browser/);
    await ui.toast(/Finish signing in in your browser/).waitFor();
    const consent = await nextTab(from);
    assert.match(consent.url(), enginePage(`${OAUTH_PATHS.authorize}?`));
    const asked = new URL(consent.url()).searchParams;
    assert.equal(asked.get('code_challenge_method'), 'S256');
    assert.equal(asked.get('scope'), 'externalapi:read externalapi:write mcp offline_access');
    assert.match(asked.get('redirect_uri') ?? '', /^http:\/\/127\.0\.0\.1:\d+\/callback$/, 'VS Code in a browser comes back through the loopback listener');
    await consent.getByRole('button', { name: 'Authorize' }).click();
    // The listener answers the tab once VS Code has the tokens.
    await consent.getByText('You are signed in to Deep Search. You can close this tab and return to VS Code.').waitFor();
    // Back in VS Code (the report came while the browser tab was in front: it is in the notification center).
    await ui.page.bringToFront();
    await ui.eventually(
      () =>
        ui.notified(
          /Signed in to http:\/\/127\.0\.0\.1:\d+ as user1: conversations and every code tool work\. Granted: externalapi:read, externalapi:write, mcp, offline_access\./,
        ),
      'the sign-in report',
    );
    await ui.screenshot('oauth-browser-signed-in');
    assert.match(await accountsEntry(), /user1 on 127\.0\.0\.1:\d+ \(Deep Search\)/);
    assert.equal(requests.filter((line) => line.startsWith(`POST ${OAUTH_PATHS.token} 200`)).length, 1, 'the code was exchanged once');

    await ui.runCommand('Deep Search: Ask Deep Search');
    await ui.answerInputBox('Ask Deep Search', 'Where is parseConfig defined?');
    const webview = await ui.webview();
    await webview.locator('.question.is-completed .answer .markdown a[href*="src/config.ts"]').first().waitFor({ timeout: 60_000 });
  });

  it('signs out, revoking the sign-in on the instance', async () => {
    await signedIn();
    const revokes = () => requests.filter((line) => line.startsWith(`POST ${OAUTH_PATHS.revoke} 200`)).length;
    const before = revokes();
    await ui.runCommand('Deep Search: Sign Out');
    await ui.eventually(() => Promise.resolve(revokes() >= before + 2), 'the refresh and access tokens to be revoked');
    await ui.eventually(async () => !(await ui.paletteOffers('Deep Search: Sign Out')), 'Sign Out to leave the palette');
  });

  it('cancels a pending browser sign-in: nothing is stored, and an answer after that changes nothing', async () => {
    await signedOut();
    const tokenRequests = () => requests.filter((line) => line.startsWith(`POST ${OAUTH_PATHS.token} `)).length;
    const before = tokenRequests();
    const from = ui.openedTabs.length;
    await startSignIn(/with your browser/);
    const waiting = ui.toast(/Finish signing in in your browser/);
    await waiting.waitFor();
    const consent = await nextTab(from);
    const callback = new URL(new URL(consent.url()).searchParams.get('redirect_uri') ?? '');
    assert.equal(await accepts(callback), true, 'VS Code listens for the answer while the sign-in is pending');
    await waiting.locator('.monaco-button', { hasText: /^Cancel$/ }).click();
    await waiting.waitFor({ state: 'hidden' });
    // The notification hides at once; the extension host hears of the cancel a moment later.
    await ui.eventually(async () => !(await accepts(callback)), 'VS Code to stop listening for the answer');
    // Approving afterwards reaches no listener: the browser shows its own connection error.
    const approvals = () => requests.filter((line) => line.startsWith(`POST ${OAUTH_PATHS.authorize} 302 `)).length;
    const approved = approvals();
    await consent.getByRole('button', { name: 'Authorize' }).click();
    await consent.waitForURL(/^chrome-error:/, { waitUntil: 'commit' });
    // The approval is over: the engine sent the code to the redirect URI, where nothing took it.
    await ui.eventually(() => Promise.resolve(approvals() > approved), 'the engine to answer the approval with its redirect');
    assert.equal(tokenRequests(), before, 'no code was exchanged');
    assert.equal(await ui.paletteOffers('Deep Search: Sign Out'), false, 'still signed out');
  });

  it('says to sign in again, not to check a pasted token, when the instance refuses the token its OAuth sign-in issued', async () => {
    await signedOut();
    const revokes = () => requests.filter((line) => line.startsWith(`POST ${OAUTH_PATHS.revoke} 200`)).length;
    const before = revokes();
    refuseTokens = true;
    try {
      const from = ui.openedTabs.length;
      await startSignIn(/with your browser/);
      const consent = await nextTab(from);
      await consent.getByRole('button', { name: 'Authorize' }).click();
      await ui.page.bringToFront();
      const failure = ui.toast(/rejected the token it issued at sign-in: sign in again/);
      await failure.waitFor();
      assert.doesNotMatch((await failure.textContent()) ?? '', /pasted/);
      await ui.screenshot('oauth-issued-token-refused');
      await failure.locator('.monaco-button', { hasText: /^Try Again$/ }).waitFor();
      await ui.page.keyboard.press('Escape');
      assert.ok(revokes() > before, 'the tokens that will not be kept were given back');
      assert.equal(await ui.paletteOffers('Deep Search: Sign Out'), false, 'still signed out');
    } finally {
      refuseTokens = false;
    }
  });

  it('signs in with a device code: the code shown in VS Code is entered on the engine’s page, and VS Code finishes on its own', async () => {
    await signedOut();
    const from = ui.openedTabs.length;
    await startSignIn(/with a device code/);
    const dialog = ui.page.locator('.monaco-dialog-box', { hasText: 'Your Deep Search sign-in code:' });
    await dialog.waitFor();
    const text = (await dialog.textContent()) ?? '';
    const shown = /sign-in code: ([A-Z0-9]{4}-[A-Z0-9]{4})/.exec(text)?.[1] ?? '';
    assert.ok(shown, `a user code in the dialog: ${text}`);
    await ui.screenshot('oauth-device-code');
    await dialog.locator('.monaco-button', { hasText: /^Copy Code and Open Page$/ }).click();
    await ui.toast(new RegExp(`Waiting for you to enter ${shown} at 127\\.0\\.0\\.1`)).waitFor();
    const page = await nextTab(from);
    assert.match(page.url(), enginePage(OAUTH_PATHS.device));
    // As on another device: the code typed by hand.
    const code = page.getByLabel('Code');
    await code.fill('');
    await code.fill(shown);
    await page.getByRole('button', { name: 'Authorize' }).click();
    await ui.page.bringToFront();
    await ui.eventually(() => ui.notified(/Signed in to http:\/\/127\.0\.0\.1:\d+ as user1: conversations and every code tool work\./), 'the sign-in report');
    assert.match(await accountsEntry(), /user1 on 127\.0\.0\.1:\d+ \(Deep Search\)/);
  });
});
