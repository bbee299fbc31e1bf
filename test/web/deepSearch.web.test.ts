/**
 * The extension's web build (dist/web/extension.js, package.json `browser`) in VS Code for the Web:
 * its web-worker extension host calls the engine across origins, which `--cors-origin` allows.
 */
import * as assert from 'node:assert/strict';
import { answeredConversation } from '../support/storedConversations';
import { VSCodeWeb, WEB_TEST_TOKEN } from './vscodeWeb';

const CITED_TITLE = 'Where prices are formatted';
/** An answer whose citation names a file of a repository the workspace does not hold. */
const CITED = answeredConversation({
  id: 1,
  question: 'Where are prices formatted?',
  title: CITED_TITLE,
  answer: 'Prices are formatted by [`formatPrice`](/github.com/acme/billing/-/blob/src/price.ts?L3-5).',
  at: new Date().toISOString(),
});

describe('Deep Search in VS Code for the Web (web)', function () {
  this.timeout(180_000);
  let web: VSCodeWeb;

  before(async () => {
    // Slow enough that a question is still running when the tree's context menu is opened.
    web = await VSCodeWeb.launch({ paceMs: 2000, storedConversations: [CITED] });
  });

  afterEach(async function () {
    await web.screenshotIfFailed(this.currentTest, 'web');
  });

  after(async () => {
    await web?.close();
  });

  /** Sign In → the engine's URL → Paste an access token → the token; resolves with the report's toast. */
  async function signInWithToken(): Promise<string> {
    await web.runCommand('Deep Search: Sign In');
    await web.answerInputBox('Deep Search: Sign In (1/2)', web.engine.url);
    // The engine has an OAuth server (its discovery read across origins): the ways are offered.
    const ways = web.page.locator('.quick-input-widget', { has: web.page.locator('.quick-input-title', { hasText: 'Deep Search: Sign In (2/2)' }) });
    await web.clickWhenReady(ways.locator('.monaco-list-row', { hasText: 'Paste an access token' }));
    await web.answerInputBox('Deep Search: Access Token', WEB_TEST_TOKEN);
    const report = web.toast(/^Signed in to http:\/\/127\.0\.0\.1:\d+/);
    await report.waitFor({ timeout: 30_000 });
    return report.innerText();
  }

  /** Each test's own starting point: signed in (once the test of signing in has, already so). */
  async function signedIn(): Promise<void> {
    if (await web.paletteOffers('Deep Search: Sign Out')) return;
    await signInWithToken();
  }

  it('signs in with a pasted token, checked against both interfaces across origins', async () => {
    assert.equal(await web.paletteOffers('Deep Search: Sign Out'), false, 'signed out at the start');
    const report = await signInWithToken();
    assert.match(report, /Signed in to http:\/\/127\.0\.0\.1:\d+: conversations and every/);
    assert.equal(await web.paletteOffers('Deep Search: Sign Out'), true);
    await web.screenshot('web-signed-in');
  });

  it('asks from the palette, shows the answer in the panel, and opens its link at the cited lines', async () => {
    await signedIn();
    await web.runCommand('Deep Search: Ask Deep Search');
    await web.answerInputBox('Ask Deep Search', 'Where is parseConfig defined?');
    const webview = await web.webview();
    await webview.locator('.question .question-text', { hasText: 'Where is parseConfig defined?' }).waitFor();
    const link = webview.locator('.question.is-completed .answer .markdown a[href*="src/config.ts"]').first();
    await link.waitFor({ timeout: 90_000 });
    await web.screenshot('web-answer');
    await web.clickWhenReady(link);
    await web.page.locator('.tabs-container .tab.active', { hasText: 'config.ts' }).waitFor();
    // The answer links to the definition of parseConfig, lines 11–15, selected (the status bar follows the tab).
    await web.page.locator('[id="status.editor.selection"]', { hasText: /^Ln 15, Col \d+ \(\d+ selected\)$/ }).waitFor();
  });

  it('opens a citation of a repository the workspace lacks as a remote document at its lines', async () => {
    await signedIn();
    await web.runCommand('View: Close All Editors');
    await web.runCommand('Deep Search: Focus on Conversations View');
    await web.clickWhenReady(web.treeRow(CITED_TITLE));
    const webview = await web.webview();
    const citation = webview.locator('.answer .markdown a', { hasText: 'formatPrice' }).first();
    await citation.waitFor();
    await web.clickWhenReady(citation);
    const tab = web.page.locator('.tabs-container .tab.active', { hasText: 'price.ts' });
    await tab.waitFor();
    // Read through the tool server (MCP across origins) into a read-only remote document.
    assert.match((await web.page.locator('.breadcrumbs-control').first().innerText()).replace(/\s+/g, ' '), /github\.com.*acme.*billing@/);
    await web.page.locator('[id="status.editor.selection"]', { hasText: /^Ln 5, Col \d+ \(\d+ selected\)$/ }).waitFor();
    await web.screenshot('web-remote-document');
  });

  it('cancels and deletes a conversation from the tree', async () => {
    await signedIn();
    const question = 'How are retries configured in retry_with_backoff?';
    await web.runCommand('Deep Search: Ask Deep Search');
    await web.answerInputBox('Ask Deep Search', question);
    await web.runCommand('Deep Search: Focus on Conversations View');
    const row = web.treeRow(question);
    await row.waitFor();
    assert.match((await row.getAttribute('aria-label')) ?? '', /running/);

    await web.contextMenuItem(row, 'Cancel Question');
    await web.page.waitForFunction(
      (label) =>
        [...document.querySelectorAll('.monaco-list-row[role="treeitem"]')].some(
          (node) => (node.getAttribute('aria-label') ?? '').startsWith(label) && /cancelled/.test(node.getAttribute('aria-label') ?? ''),
        ),
      question,
    );
    await web.contextMenuItem(row, 'Delete Conversation');
    const dialog = web.page.locator('.monaco-dialog-box');
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /Delete the conversation/);
    await web.clickWhenReady(dialog.locator('.monaco-button', { hasText: /^Delete$/ }));
    await row.waitFor({ state: 'detached' });
    await web.screenshot('web-tree-deleted');
  });
});
