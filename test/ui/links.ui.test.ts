import * as assert from 'node:assert/strict';
import { answeredConversation } from '../support/storedConversations';
import { VSCodeUi } from './vscodeUi';

const APP = 'github.com/acme/app';
const BILLING = 'github.com/acme/billing';
const TITLE = 'Links of every kind';

/** An answer as an instance could send it, with one link of each kind the panel can show. */
const LINKS = answeredConversation({
  id: 1,
  question: 'Which links can an answer hold?',
  title: TITLE,
  answer: [
    'Links of every kind:',
    '',
    `- [local file](/${APP}/-/blob/src/config.ts?L11)`,
    `- [remote file](/${BILLING}/-/blob/src/price.ts?L2)`,
    '- [instance page](/search?q=parseConfig)',
    '- [external page](https://example.com/docs/retries)',
    '- [mail](mailto:owner@example.com)',
    '- [refused](https://user:secret@example.com/private)',
  ].join('\n'),
  sources: [{ type: 'File', link: `/${APP}/-/blob/src/server.ts?L4`, label: 'src/server.ts' }],
  at: new Date().toISOString(),
});

describe('Links in an answer, clicked in the real VS Code (UI)', function () {
  this.timeout(180_000);
  let ui: VSCodeUi;

  before(async () => {
    ui = await VSCodeUi.launch({ paceMs: 100, storedConversations: [LINKS] });
    // No network here: the external pages the extension opens are answered by the test.
    await ui.page.context().route('https://example.com/**', (route) => route.fulfill({ status: 200, contentType: 'text/plain', body: 'example' }));
    await ui.runCommand('Deep Search: Focus on Conversations View');
    await ui.treeRow(TITLE).click();
    await (await ui.webview()).locator('.question.is-completed .answer .markdown a').first().waitFor();
  });

  afterEach(async function () {
    await ui.screenshotIfFailed(this.currentTest, 'links');
  });

  after(async () => {
    await ui?.close();
  });

  const click = (text: string, handled: Handled, scope?: string) => clickLink(ui, text, handled, { scope, roundTrip: () => ui.afterExtensionHost() });

  async function activeTab(): Promise<{ title: string; line: string }> {
    const tab = ui.page.locator('.tabs-container .tab.active');
    await tab.waitFor();
    return { title: (await tab.getAttribute('aria-label')) ?? '', line: await ui.page.locator('[id="status.editor.selection"]').innerText() };
  }

  it('opens a link to a file of the workspace in an editor at its lines, and nothing in the browser', async () => {
    assert.deepEqual(await click('local file', editorOf(ui, /config\.ts/)), []);
    const tab = await activeTab();
    assert.match(tab.title, /config\.ts/);
    assert.match(tab.line, /Ln 11,/);
    await ui.screenshot('links-local-file');
  });

  it('opens a source link the same way', async () => {
    assert.deepEqual(await click('src/server.ts', editorOf(ui, /server\.ts/), '.sources'), []);
    const tab = await activeTab();
    assert.match(tab.title, /server\.ts/);
    assert.match(tab.line, /Ln 4,/);
  });

  it('opens a file of a repository the workspace lacks as a remote document, and nothing in the browser', async () => {
    assert.deepEqual(await click('remote file', editorOf(ui, /price\.ts/)), []);
    const tab = await activeTab();
    assert.match(tab.title, /price\.ts/);
    assert.match(tab.line, /Ln 2,/);
    await ui.screenshot('links-remote-file');
  });

  it('opens an instance page in one browser tab, on the instance', async () => {
    const opened = await click('instance page', browserTab(ui));
    assert.equal(opened.length, 1, opened.join(', '));
    // code-server reaches loopback servers through its own port proxy (VS Code's asExternalUri).
    const proxied = new RegExp(`^http://127\\.0\\.0\\.1:\\d+/proxy/${ui.engine.port}/search\\?q=parseConfig$`);
    assert.ok(opened[0] === `${ui.engine.url}/search?q=parseConfig` || proxied.test(opened[0]), opened[0]);
  });

  it('opens an external page in one browser tab', async () => {
    assert.deepEqual(await click('external page', browserTab(ui)), ['https://example.com/docs/retries']);
  });

  it('hands a mail address to the system once (the mail client), and opens no web page', async () => {
    // VS Code hands other schemes to the system by navigating its window to them (nothing loads).
    const cdp = await ui.page.context().newCDPSession(ui.page);
    await cdp.send('Page.enable');
    const handedOver: string[] = [];
    cdp.on('Page.frameRequestedNavigation', (event) => handedOver.push(event.url));
    const opened = await click('mail', () => ui.eventually(async () => handedOver.length > 0, 'the mail address to be handed over'));
    assert.deepEqual(opened, []);
    assert.deepEqual(handedOver, ['mailto:owner@example.com']);
    // Counted in the notification center: the round trip after the click hid the toasts.
    assert.equal(await ui.notifications(/are not opened/), 0, 'not refused');
    await cdp.detach();
  });

  it('shows a link that carries credentials as text saying why, and opens nothing when it is clicked', async () => {
    const webview = await ui.webview();
    const refused = webview.locator('.answer .markdown a', { hasText: 'refused' }).first();
    assert.equal(await refused.getAttribute('href'), null, 'no address to follow');
    assert.match((await refused.getAttribute('title')) ?? '', /^Not a link: /);
    // In VS Code's own webview, whose default styles colour every <a>: the colour of the text around it.
    const colours = await refused.evaluate((node) => [
      getComputedStyle(node).color,
      getComputedStyle(node.parentElement!).color,
      getComputedStyle(node).cursor,
    ]);
    assert.equal(colours[0], colours[1], 'the colour of the text around it');
    assert.equal(colours[2], 'auto');
    // Nothing shows that the click was handled: a link clicked after it opens its file, so the panel
    // and the host have dealt with this click (they take them in order).
    const opened = await click('refused', async () => {
      await ui.clickWhenReady(webview.locator('.answer .markdown a', { hasText: 'local file' }).first());
      await editorOf(ui, /config\.ts/)(0);
    });
    assert.deepEqual(opened, []);
    // The panel sends nothing for it (the host would refuse it too: linkTarget's tests).
    assert.equal(await ui.notifications(/are not opened/), 0);
    await ui.screenshot('links-refused');
  });
});

/** Waits for the sign that VS Code acted on a click (`before`: the browser tabs open before it). */
type Handled = (before: number) => Promise<void>;

/** The sign that a click opened an editor whose tab is named so. */
function editorOf(ui: VSCodeUi, name: RegExp): Handled {
  return () => ui.page.locator('.tabs-container .tab.active', { hasText: name }).waitFor({ timeout: 30_000 });
}

/** The sign that a click opened a browser tab. */
function browserTab(ui: VSCodeUi): Handled {
  return (before) => ui.eventually(async () => ui.openedTabs.length > before, 'a browser tab to open');
}

/**
 * Clicks the link in the panel and waits for `handled`, the sign that VS Code acted on the click;
 * then `roundTrip`, a round trip through the extension host that answers in order, so that a second
 * open (the bug) has shown too. Resolves with the tabs VS Code opened in the browser meanwhile.
 */
async function clickLink(
  ui: VSCodeUi,
  text: string,
  handled: Handled,
  { scope = '.answer .markdown', roundTrip }: { scope?: string; roundTrip: () => Promise<void> },
): Promise<string[]> {
  await ui.page.locator('.tabs-container .tab', { hasText: TITLE }).click();
  const webview = await ui.webview();
  const before = ui.openedTabs.length;
  await webview.locator(`${scope} a`, { hasText: text }).first().click();
  // VS Code asks before it opens a web page outside its trusted domains: the user says Open.
  const trust = ui.page.locator('.monaco-dialog-box', { hasText: 'open the external website' });
  let done = false;
  const sign = handled(before).finally(() => (done = true));
  while (!done) {
    if (await trust.isVisible()) {
      await trust.locator('.monaco-button', { hasText: /^Open$/ }).click();
      await trust.waitFor({ state: 'hidden' });
    }
    await ui.page.waitForTimeout(100);
  }
  await sign;
  await roundTrip();
  // A second open of an outside page would be waiting behind the question.
  assert.equal(await trust.isVisible(), false, 'VS Code asks to open a page again');
  return ui.tabUrls(before);
}

describe('Links in an answer from an instance without a tool server (UI)', function () {
  this.timeout(180_000);
  let ui: VSCodeUi;

  before(async () => {
    ui = await VSCodeUi.launch({ paceMs: 100, storedConversations: [LINKS], variant: { toolServer: 'none' } });
    await ui.runCommand('Deep Search: Focus on Conversations View');
    await ui.treeRow(TITLE).click();
    await (await ui.webview()).locator('.question.is-completed .answer .markdown a').first().waitFor();
  });

  afterEach(async function () {
    await ui.screenshotIfFailed(this.currentTest, 'links-no-tools');
  });

  after(async () => {
    await ui?.close();
  });

  it('opens a remote file in the browser and says once why', async () => {
    // The tool commands are hidden here: a link to a file of the workspace, opened after the click,
    // is the round trip through the panel and the host.
    const roundTrip = async () => {
      await clickLink(ui, 'local file', editorOf(ui, /config\.ts/), { roundTrip: async () => undefined });
    };
    const notice = /has no tool server .* conversations work as before/;
    const first = await clickLink(
      ui,
      'remote file',
      async (before) => {
        await browserTab(ui)(before);
        await ui.toast(notice).waitFor();
        await ui.screenshot('links-no-tool-server');
      },
      { roundTrip },
    );
    assert.equal(first.length, 1, first.join(', '));
    assert.match(first[0], /\/github\.com\/acme\/billing\/-\/blob\/src\/price\.ts\?L2$/);
    // Counted in the notification center, which keeps the toasts that have hidden themselves.
    assert.equal(await ui.notifications(notice), 1);
    assert.equal((await clickLink(ui, 'remote file', browserTab(ui), { roundTrip })).length, 1, 'the second click opens the browser too');
    assert.equal(await ui.notifications(notice), 1, 'said once');
  });
});
