/**
 * The conversation panel's header buttons (Copy Share Link, Open in Browser, Export, Delete) in a
 * real VS Code. The panel calls the commands' functions directly, so when an action fails the panel
 * itself tells the user, once, naming the action that failed.
 */
import * as assert from 'node:assert/strict';
import type { Frame } from 'playwright-core';
import { answeredConversation } from '../support/storedConversations';
import { VSCodeUi } from './vscodeUi';

const TITLE = 'How the server reads its settings';
const STORED = answeredConversation({
  id: 1,
  question: 'How does the server read its settings?',
  title: TITLE,
  answer: 'The server calls `loadConfig`, which reads the file and hands it to [`parseConfig`](/github.com/acme/app/-/blob/src/config.ts?L11).',
  at: new Date().toISOString(),
});
/** What the engine says while it refuses to delete. */
const REFUSAL = 'Deleting conversations is turned off on this instance.';

describe("The conversation panel's header buttons in a real VS Code (UI)", function () {
  this.timeout(180_000);
  let ui: VSCodeUi;
  /** While true, the engine refuses to delete a conversation (either API). */
  let refuseDeletes = false;

  before(async () => {
    ui = await VSCodeUi.launch({
      paceMs: 100,
      storedConversations: [STORED],
      faults: {
        request: ({ method, path }) =>
          refuseDeletes && (method === 'DELETE' || /DeleteConversation$/.test(path))
            ? { kind: 'status', status: 403, body: JSON.stringify({ error: REFUSAL }), contentType: 'application/json' }
            : undefined,
      },
    });
    await ui.runCommand('Deep Search: Focus on Conversations View');
  });

  afterEach(async function () {
    await ui.screenshotIfFailed(this.currentTest, 'panel-actions');
  });

  after(async () => {
    await ui?.close();
  });

  /** The conversation's panel, alone in the editor area (so its webview is the one found). */
  async function openConversation(): Promise<Frame> {
    await ui.runCommand('View: Close All Editors');
    await ui.treeRow(TITLE).click();
    const webview = await ui.webview();
    await webview.locator('.question.is-completed .answer').first().waitFor();
    return webview;
  }

  /** The panel's Delete, confirmed in VS Code's dialog. */
  async function deleteFromPanel(webview: Frame): Promise<void> {
    await webview.locator('.conversation-actions .action-delete').click();
    const dialog = ui.page.locator('.monaco-dialog-box', { hasText: 'Delete the conversation' });
    await dialog.waitFor();
    await dialog.locator('.monaco-button', { hasText: /^Delete$/ }).click();
  }

  it("exports, copies the share link and opens the browser from the panel's buttons", async () => {
    let webview = await openConversation();
    await webview.locator('.conversation-actions .action-export').click();
    await ui.page.locator('.tabs-container .tab.active', { hasText: /Untitled/ }).waitFor();
    await ui.page.locator('.monaco-editor .view-line', { hasText: 'loadConfig' }).first().waitFor();
    // The export is an unsaved document: close it without the question whether to save it.
    await ui.runCommand('View: Revert and Close Editor');

    webview = await openConversation();
    await webview.locator('.conversation-actions .action-copyShareLink').click();
    const dialog = ui.page.locator('.monaco-dialog-box', { hasText: 'Anyone on the instance with this link' });
    await dialog.waitFor();
    await dialog.locator('.monaco-button', { hasText: /^Copy Link$/ }).click();
    await ui.toast('Share link copied.').waitFor();

    const before = ui.openedTabs.length;
    await webview.locator('.conversation-actions .action-openInBrowser').click();
    await ui.eventually(() => Promise.resolve(ui.openedTabs.length > before), 'a browser tab');
    // A second tab would have been sent before the host answers what comes next.
    await ui.afterExtensionHost();
    const opened = await ui.tabUrls(before);
    assert.equal(opened.length, 1, opened.join(', '));
    assert.match(opened[0], new RegExp(`/deepsearch/${STORED.read_token}$`));
    assert.equal(await ui.notifications('errors'), 0, 'no error showed');
  });

  it('a Delete the instance refuses is reported once, saying it was the delete that failed, and the panel stays', async () => {
    refuseDeletes = true;
    try {
      const webview = await openConversation();
      await deleteFromPanel(webview);
      const failed = ui.toast(/Could not delete the conversation: .*Deleting conversations is turned off on this instance/);
      await failed.waitFor();
      await ui.screenshot('panel-actions-delete-refused');
      // A second report (the command's and the panel's) would have been sent before the host answers what comes next.
      await ui.afterExtensionHost();
      assert.equal(await ui.notifications('errors'), 1, 'the failure is shown once');
      assert.equal(await webview.locator('.conversation-actions .action-delete').isDisabled(), false, 'the conversation is still shown');
      await ui.treeRow(TITLE).waitFor();
      await ui.runCommand('Notifications: Clear All Notifications');
    } finally {
      refuseDeletes = false;
    }
  });

  it('deletes from the panel once the instance accepts, and the panel closes', async () => {
    const webview = await openConversation();
    await deleteFromPanel(webview);
    await ui.treeRow(TITLE).waitFor({ state: 'detached' });
    await ui.page.locator('.tabs-container .tab', { hasText: TITLE }).waitFor({ state: 'detached' });
    assert.equal(await ui.page.locator('.notification-toast .codicon-error').count(), 0, 'no error showed');
  });
});
