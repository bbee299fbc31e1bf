import * as assert from 'node:assert/strict';
import { HOST_TEST_TOKEN } from '../host/fixtures';
import { VSCodeUi } from './vscodeUi';

/**
 * A server of tomorrow: the 7.x conversation API only (the legacy one answers 404), the 2026 tool
 * server family without the deprecated v1, and two tools an administrator turned off. Everything
 * is reached the way a user reaches it: the palette, the panel, the editor's context menu.
 */
describe('Against a server with only the 7.x interfaces (UI)', function () {
  this.timeout(180_000);
  let ui: VSCodeUi;
  /** The engine's request lines (`METHOD path status …`). */
  const requests: string[] = [];

  before(async () => {
    ui = await VSCodeUi.launch({
      paceMs: 200,
      variant: { conversationApis: 'connect', toolServer: 'current', disabledTools: ['nls_search', 'go_to_definition', 'compare_revisions'] },
      engineLog: (line) => requests.push(line),
    });
  });

  afterEach(async function () {
    await ui.screenshotIfFailed(this.currentTest, 'generations');
  });

  after(async () => {
    await ui?.close();
  });

  it('says once which features the instance lacks when it connects, and not again at the next start', async () => {
    const lacking =
      /does not offer natural-language code search, Go to Definition across repositories, comparing revisions \(an older server, or an administrator turned them off\): Deep Search leaves them out/;
    // The extension starts when it is first used: here, when its view opens.
    await ui.runCommand('Deep Search: Focus on Conversations View');
    // The welcome view renders links only: no Markdown markers may show as text.
    const tip = ui.page.getByText(/Tip: select code in an editor/);
    await tip.waitFor();
    assert.doesNotMatch((await tip.textContent()) ?? '', /\*\*/);
    await ui.eventually(() => ui.notified(lacking), 'the notice of the features the instance lacks');
    await ui.screenshot('generations-lacking-tools');
    await ui.page.reload();
    await ui.page.waitForFunction(() => performance.getEntriesByName('code/didLoadExtensions').length > 0, null, { timeout: 90_000 });
    await ui.runCommand('Deep Search: Focus on Conversations View');
    // The tool server was found again once the command has left the palette.
    await ui.eventually(
      async () => !(await ui.paletteOffers('Deep Search: Compare Revisions…')),
      'the command whose tool is missing to leave the palette after the reload',
    );
    assert.equal(await ui.notified(lacking), false, 'said again at the next start');
  });

  it('signs in from the palette and says which features the instance lacks', async () => {
    await ui.runCommand('Deep Search: Sign In');
    await ui.answerInputBox('Deep Search: Sign In (1/2)', ui.engine.url);
    // The engine has an OAuth server: the ways to sign in are offered; this one pastes a token.
    const ways = ui.page.locator('.quick-input-widget', { has: ui.page.locator('.quick-input-title', { hasText: 'Deep Search: Sign In (2/2)' }) });
    await ui.clickWhenReady(ways.locator('.monaco-list-row', { hasText: 'Paste an access token' }));
    await ui.answerInputBox('Deep Search: Access Token', HOST_TEST_TOKEN);
    const report = ui.toast(
      /Signed in to http:\/\/127\.0\.0\.1:\d+\. Conversations work\. Its tool server does not offer natural-language code search, Go to Definition across repositories, comparing revisions/,
    );
    await report.waitFor({ timeout: 30_000 });
    await ui.screenshot('generations-sign-in-report');
  });

  it('asks from the palette, answers in the panel through the 7.x API only, and opens a file link of the answer', async () => {
    await ui.runCommand('Deep Search: Ask Deep Search');
    await ui.answerInputBox('Ask Deep Search', 'Where is parseConfig defined?');
    const webview = await ui.webview();
    const link = webview.locator('.question.is-completed .answer .markdown a[href*="src/config.ts"]').first();
    await link.waitFor({ timeout: 60_000 });
    await ui.screenshot('generations-answer');
    await link.click();
    await ui.page.locator('.tabs-container .tab.active', { hasText: 'config.ts' }).waitFor();
    assert.ok(
      requests.some((line) => line.startsWith('POST /api/deepsearch.v1.Service/CreateConversation 200')),
      requests.join('\n'),
    );
    assert.deepEqual(
      requests.filter((line) => line.includes('/.api/deepsearch/v1')),
      [],
      'no call to the legacy API',
    );
  });

  it('leaves out of the palette a command whose tool the instance lacks, and keeps the others', async () => {
    assert.equal(await ui.paletteOffers('Deep Search: Search Code…'), true, 'keyword search is there');
    assert.equal(await ui.paletteOffers('Deep Search: Search Diffs…'), true, 'diff search is there');
    assert.equal(await ui.paletteOffers('Deep Search: Compare Revisions…'), false, 'compare_revisions was turned off');
  });

  it('offers Search Code by keywords only where natural-language search is turned off', async () => {
    await ui.runCommand('Deep Search: Search Code…');
    const widget = ui.page.locator('.quick-input-widget', { has: ui.page.locator('.quick-input-title', { hasText: 'Search Code (keywords)' }) });
    await widget.locator('input.input').waitFor();
    assert.equal(await widget.locator('.action-label[aria-label="Switch to natural-language search"]').count(), 0, 'no switch to a mode the instance lacks');
    await ui.page.keyboard.press('Escape');
  });

  it('finds a definition by keyword search where go_to_definition is turned off, and says so once', async () => {
    await ui.openFile('server.ts');
    await ui.contextMenuOnWord('loadConfig', 'Go to Definition in All Repositories');
    await ui.page.locator('.tabs-container .tab.active', { hasText: 'config.ts' }).waitFor();
    await ui.page.waitForFunction(() => /Ln 17,/.test(document.querySelector('[id="status.editor.selection"]')?.textContent ?? ''));
    const notice = ui.toast(/does not offer Go to Definition across repositories, so definitions are found by keyword search/);
    await notice.waitFor();
    await ui.screenshot('generations-definition-by-search');
    // VS Code folds a repeated message into the one shown: clear it, so a second one would show.
    await ui.runCommand('Notifications: Clear All Notifications');
    await notice.waitFor({ state: 'detached' });
    await ui.openFile('server.ts');
    await ui.contextMenuOnWord('loadConfig', 'Go to Definition in All Repositories');
    await ui.page.locator('.tabs-container .tab.active', { hasText: 'config.ts' }).waitFor();
    await ui.page.waitForFunction(() => /Ln 17,/.test(document.querySelector('[id="status.editor.selection"]')?.textContent ?? ''));
    // The definition was found (the notice would be said before the search), and the host has answered since.
    await ui.afterExtensionHost();
    assert.equal(await ui.notifications(/does not offer Go to Definition across repositories/), 0, 'said once per connection');
  });
});
