/**
 * Every menu entry the extension contributes, used the way a user does in the real VS Code: the
 * editor's context menu on a selection or a name, the keybinding, the Conversations view's title
 * bar and overflow menu, a tree item's inline buttons and context menu, the welcome view's links.
 * Each entry point passes arguments of its own (the editor menu a URI, the tree a node): these
 * tests are what catches a handler that misreads them.
 */
import * as assert from 'node:assert/strict';
import type { Locator } from 'playwright-core';
import { answeredConversation } from '../support/storedConversations';
import { VSCodeUi } from './vscodeUi';

const STORED_TITLE = 'How the server reads its settings';
const STORED = answeredConversation({
  id: 1,
  question: 'How does the server read its settings?',
  title: STORED_TITLE,
  answer: 'The server calls `loadConfig`, which reads the file and hands it to [`parseConfig`](/github.com/acme/app/-/blob/src/config.ts?L11).',
  at: new Date().toISOString(),
});

describe('Contributed menus and keybindings in a real VS Code (UI)', function () {
  this.timeout(180_000);
  let ui: VSCodeUi;

  before(async () => {
    // Slow enough that a question is still running when its inline Cancel button is pressed.
    ui = await VSCodeUi.launch({ paceMs: 2500, storedConversations: [STORED] });
  });

  afterEach(async function () {
    await ui.screenshotIfFailed(this.currentTest, 'menus');
    // No error toast may be left by any entry point.
    assert.equal(await ui.page.locator('.notification-toast .codicon-error').count(), 0, 'an error notification showed');
  });

  after(async () => {
    await ui?.close();
  });

  /** Selects whole lines `from`–`to` of the active editor with the keyboard. */
  async function selectLines(from: number, to: number): Promise<void> {
    await ui.page.locator('.monaco-editor .view-lines').first().click();
    await ui.page.keyboard.press('Control+G');
    await ui.page.locator('.quick-input-widget input').fill(`:${from}`);
    await ui.page.keyboard.press('Enter');
    await ui.page.keyboard.press('Home');
    await ui.page.keyboard.press('Home');
    for (let line = from; line <= to; line++) await ui.page.keyboard.press('Shift+ArrowDown');
  }

  async function questionShown(text: string): Promise<string> {
    const webview = await ui.webview();
    const question = webview.locator('.question .question-text', { hasText: text }).last();
    await question.waitFor({ timeout: 60_000 });
    return question.innerText();
  }

  /** Waits for the visible panel to show `text` (the panel's frame is replaced when it reloads). */
  async function panelShows(text: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await (await ui.webview()).getByText(text).first().waitFor({ timeout: 5000 });
        return;
      } catch (error) {
        if (attempt === 5) throw error;
      }
    }
  }

  /** The Conversations view in the side bar, whatever the test before showed there. */
  async function conversationsView(): Promise<void> {
    await ui.runCommand('Deep Search: Focus on Conversations View');
    await ui.page.locator('.part.sidebar .title-actions .action-label[aria-label^="Refresh"]').first().waitFor();
  }

  function viewAction(label: string): Locator {
    // A container with one view shows the view's actions in the side bar's own title bar.
    return ui.page.locator(`.part.sidebar .title-actions .action-label[aria-label^="${label}"]`).first();
  }

  it('asks about the selection from the editor context menu, with the code, its path and lines', async () => {
    await ui.openFile('config.ts');
    await selectLines(11, 14);
    await ui.contextMenuItem(ui.editorLine('JSON.parse(text)'), 'Ask Deep Search About Selection');
    await ui.answerInputBox('Ask Deep Search About Selection', 'What does this check?');
    const text = await questionShown('What does this check?');
    assert.match(text, /src\/config\.ts/);
    assert.match(text, /lines 11.14/i);
    assert.match(text, /parseConfig/);
    await ui.screenshot('menus-ask-about-selection');
  });

  it('asks about the selection with the keybinding', async () => {
    await ui.openFile('server.ts');
    await selectLines(3, 5);
    await ui.page.keyboard.press('Control+Alt+D');
    await ui.answerInputBox('Ask Deep Search About Selection', 'Where is the port chosen?');
    assert.match(await questionShown('Where is the port chosen?'), /src\/server\.ts/);
  });

  it('goes to a definition in all repositories from the editor context menu', async () => {
    await ui.openFile('server.ts');
    await ui.contextMenuOnWord('loadConfig', 'Go to Definition in All Repositories');
    await ui.page.locator('.tabs-container .tab.active', { hasText: 'config.ts' }).waitFor();
    await ui.page.waitForFunction(() => /Ln 17,/.test(document.querySelector('[id="status.editor.selection"]')?.textContent ?? ''));
  });

  it('finds references in all repositories from the editor context menu', async () => {
    await ui.openFile('server.ts');
    await ui.contextMenuOnWord('loadConfig', 'Find References in All Repositories');
    const peek = ui.page.locator('.peekview-widget');
    await peek.waitFor();
    // Both uses in server.ts (the import and the call), found by the tool server.
    await peek.getByText('Locations (2)').waitFor();
    await ui.screenshot('menus-references');
    await ui.page.keyboard.press('Escape');
  });

  it('asks from the Conversations title bar and cancels with the inline button', async () => {
    await conversationsView();
    await viewAction('Ask Deep Search').click();
    const question = 'Which port does the server listen on?';
    await ui.answerInputBox('Ask Deep Search', question);
    await questionShown(question);
    const row = ui.treeRow(question);
    await row.waitFor();
    assert.match((await row.getAttribute('aria-label')) ?? '', /running/);
    // The title bar button's tooltip may still cover the first row: move away until it is gone.
    await ui.page.mouse.move(5, 450);
    await ui.page.locator('.context-view .hover-contents').waitFor({ state: 'detached' });
    await row.hover();
    await row.locator('.action-label[aria-label="Cancel Question"]').click();
    await ui.page.waitForFunction(
      (label) =>
        [...document.querySelectorAll('.monaco-list-row[role="treeitem"]')].some(
          (node) => (node.getAttribute('aria-label') ?? '').startsWith(label) && /cancelled/.test(node.getAttribute('aria-label') ?? ''),
        ),
      question,
    );
  });

  it("opens, exports, shares and opens in the browser from a conversation's context menu", async () => {
    await conversationsView();
    const row = ui.treeRow(STORED_TITLE);
    await ui.contextMenuItem(row, 'Open Conversation');
    await panelShows(STORED.questions[0].question);

    await ui.contextMenuItem(row, 'Export Conversation as Markdown');
    await ui.page.locator('.tabs-container .tab.active', { hasText: /Untitled/ }).waitFor();
    await ui.page.locator('.monaco-editor .view-line', { hasText: 'loadConfig' }).first().waitFor();

    await ui.contextMenuItem(row, 'Copy Share Link');
    const dialog = ui.page.locator('.monaco-dialog-box', { hasText: 'Anyone on the instance with this link' });
    await dialog.waitFor();
    await dialog.locator('.monaco-button', { hasText: /^Copy Link$/ }).click();
    await ui.toast('Share link copied.').waitFor();

    const before = ui.openedTabs.length;
    await ui.contextMenuItem(row, 'Open in Browser');
    await ui.eventually(() => Promise.resolve(ui.openedTabs.length > before), 'a browser tab');
    // A second tab would have been sent before the host answers what comes next.
    await ui.afterExtensionHost();
    const opened = await ui.tabUrls(before);
    assert.equal(opened.length, 1, opened.join(', '));
    assert.match(opened[0], new RegExp(`/deepsearch/${STORED.read_token}$`));
  });

  it('filters starred conversations and refreshes from the title bar', async () => {
    await conversationsView();
    await viewAction('Show Starred Only').click();
    await viewAction('Show All').waitFor();
    await ui.treeRow(STORED_TITLE).waitFor({ state: 'detached' });
    await viewAction('Show All').click();
    await ui.treeRow(STORED_TITLE).waitFor();
    await viewAction('Refresh').click();
    await ui.treeRow(STORED_TITLE).waitFor();
  });

  it("searches the conversations' text from the title bar and opens the one picked", async () => {
    await conversationsView();
    await viewAction('Search Conversations').click();
    await ui.answerInputBox('Search Conversations', 'SETTINGS');
    const widget = ui.page.locator('.quick-input-widget', { has: ui.page.locator('.quick-input-title', { hasText: 'Conversations that mention' }) });
    const row = widget.locator('.quick-input-list .monaco-list-row', { hasText: STORED_TITLE });
    await row.waitFor();
    await row.click();
    await panelShows(STORED.questions[0].question);
  });

  it('opens a shared conversation from the overflow menu', async () => {
    await conversationsView();
    await ui.page.locator('.part.sidebar .title-actions .action-label[aria-label$="More Actions..."]').first().click();
    await ui.menuItem('Open Shared Conversation');
    await ui.answerInputBox('Open Shared Conversation', `${ui.engine.url}/deepsearch/${STORED.read_token}`);
    await panelShows(STORED.questions[0].question);
  });

  it('deletes with the inline button after the confirmation', async () => {
    await conversationsView();
    const row = ui.treeRow(STORED_TITLE);
    await row.hover();
    await row.locator('.action-label[aria-label="Delete Conversation"]').click();
    const dialog = ui.page.locator('.monaco-dialog-box', { hasText: 'Delete the conversation' });
    await dialog.waitFor();
    await dialog.locator('.monaco-button', { hasText: /^Delete$/ }).click();
    await row.waitFor({ state: 'detached' });
  });

  it('signs out from the overflow menu, and the welcome view offers to sign in again', async () => {
    await conversationsView();
    await ui.page.locator('.part.sidebar .title-actions .action-label[aria-label$="More Actions..."]').first().click();
    await ui.menuItem('Sign Out');
    const welcome = ui.page.locator('.welcome-view-content');
    await welcome.locator('a, .monaco-button', { hasText: 'Sign In' }).first().click();
    await ui.page.locator('.quick-input-widget .quick-input-title', { hasText: 'Deep Search: Sign In' }).waitFor();
    await ui.screenshot('menus-sign-in-from-welcome');
    await ui.page.keyboard.press('Escape');
  });
});
