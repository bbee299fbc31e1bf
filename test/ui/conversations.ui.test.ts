import * as assert from 'node:assert/strict';
import { answeredConversation } from '../support/storedConversations';
import { VSCodeUi } from './vscodeUi';

/** A conversation of the engine's before VS Code starts, for the test that follows one up. */
const STORED_TITLE = 'How the server reads its settings';
const STORED = answeredConversation({
  id: 1,
  question: 'How does the server read its settings?',
  title: STORED_TITLE,
  answer: 'The server calls `loadConfig`, which reads the file and hands it to [`parseConfig`](/github.com/acme/app/-/blob/src/config.ts?L11).',
  at: new Date().toISOString(),
});

describe('Deep Search in a real VS Code (UI)', function () {
  this.timeout(180_000);
  let ui: VSCodeUi;

  before(async () => {
    // Slow enough that a question is still running when the tree's context menu is opened.
    ui = await VSCodeUi.launch({ paceMs: 2500, storedConversations: [STORED] });
  });

  afterEach(async function () {
    await ui.screenshotIfFailed(this.currentTest, 'conversations');
  });

  after(async () => {
    await ui?.close();
  });

  it('asks from the palette, shows the answer in the webview, and opens a source link in an editor tab', async () => {
    await ui.runCommand('Deep Search: Ask Deep Search');
    await ui.answerInputBox('Ask Deep Search', 'Where is parseConfig defined?');
    const webview = await ui.webview();
    await webview.locator('.question .question-text', { hasText: 'Where is parseConfig defined?' }).waitFor();
    await ui.screenshot('palette-processing');
    const link = webview.locator('.question.is-completed .answer .markdown a[href*="src/config.ts"]').first();
    await link.waitFor({ timeout: 60_000 });
    await ui.screenshot('palette-answer');
    await link.click();
    await ui.page.locator('.tabs-container .tab.active', { hasText: 'config.ts' }).waitFor();
    // The answer links to the definition of parseConfig, lines 11–15, selected; the status bar shows the selection's end.
    assert.match(await ui.page.locator('[id="status.editor.selection"]').innerText(), /^Ln 15, Col \d+ \(\d+ selected\)$/);
    await ui.screenshot('palette-source-opened');
  });

  it("sends a follow-up from the panel box, clears the draft once the host replies, and cancels it with the panel's button", async () => {
    // Its own conversation, alone in the editor area (so its webview is the one found).
    await ui.runCommand('View: Close All Editors');
    await ui.runCommand('Deep Search: Focus on Conversations View');
    await ui.clickWhenReady(ui.treeRow(STORED_TITLE));
    const webview = await ui.webview();
    await webview.locator('.question.is-completed .answer').first().waitFor();
    const box = webview.locator('textarea');
    await box.fill('And where is it called?');
    await box.press('Control+Enter');
    const followup = webview.locator('.question', { has: webview.locator('.question-text', { hasText: 'And where is it called?' }) });
    await followup.waitFor();
    // The host's reply to the request (by its id) clears the draft.
    await webview.waitForFunction(() => document.querySelector('textarea')?.value === '');
    const cancel = followup.locator('.cancel-button');
    await ui.clickWhenReady(cancel);
    await followup.locator('.status-label', { hasText: /^Canceled$/ }).waitFor({ timeout: 30_000 });
    await ui.screenshot('panel-followup-cancelled');
  });

  it('cancels and deletes a conversation from the tree context menu', async () => {
    const question = 'How are retries configured in retry_with_backoff?';
    await ui.runCommand('Deep Search: Ask Deep Search');
    await ui.answerInputBox('Ask Deep Search', question);
    await ui.runCommand('Deep Search: Focus on Conversations View');
    const row = ui.treeRow(question);
    await row.waitFor();
    assert.match((await row.getAttribute('aria-label')) ?? '', /running/);

    await ui.contextMenuItem(row, 'Cancel Question');
    await ui.page.waitForFunction(
      (label) =>
        [...document.querySelectorAll('.monaco-list-row[role="treeitem"]')].some(
          (node) => (node.getAttribute('aria-label') ?? '').startsWith(label) && /cancelled/.test(node.getAttribute('aria-label') ?? ''),
        ),
      question,
    );
    await ui.screenshot('tree-cancelled');

    await ui.contextMenuItem(row, 'Delete Conversation');
    const dialog = ui.page.locator('.monaco-dialog-box');
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /Delete the conversation/);
    await ui.screenshot('tree-delete-confirmation');
    await dialog.locator('.monaco-button', { hasText: /^Delete$/ }).click();
    await row.waitFor({ state: 'detached' });
    await ui.screenshot('tree-deleted');
  });
});
