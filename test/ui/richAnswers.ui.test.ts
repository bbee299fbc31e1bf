import * as assert from 'node:assert/strict';
import type { Frame } from 'playwright-core';
import { answeredConversation } from '../support/storedConversations';
import { VSCodeUi } from './vscodeUi';

const APP = 'github.com/acme/app';
const BILLING = 'github.com/acme/billing';
const TITLE = 'How prices and settings are read';

/** An answer as an instance writes one: citations of the workspace's repository and of one it lacks. */
const CITED = answeredConversation({
  id: 1,
  question: 'Where are settings parsed and prices formatted?',
  title: TITLE,
  answer: [
    `Settings are parsed by [parseConfig](/${APP}/-/blob/src/config.ts?L11-15), prices are formatted by`,
    `[formatPrice](/${BILLING}/-/blob/src/price.ts?L3-5).`,
  ].join('\n'),
  sources: [{ type: 'Repository', link: `/${APP}`, label: APP }],
  at: new Date().toISOString(),
});

/**
 * What the panel adds to an answer, through the real VS Code: citations with previews of the cited
 * lines (hovered and focused).
 */
describe('Rich answers in the real VS Code (UI)', function () {
  this.timeout(180_000);
  let ui: VSCodeUi;

  before(async () => {
    ui = await VSCodeUi.launch({ paceMs: 100, storedConversations: [CITED] });
    await ui.runCommand('Deep Search: Focus on Conversations View');
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await ui.screenshot(`failed-rich-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}`);
  });

  after(async () => {
    await ui?.close();
  });

  async function openConversation(title: string): Promise<Frame> {
    await ui.treeRow(title).click();
    const webview = await ui.webview();
    await webview.locator('.question.is-completed .answer').first().waitFor();
    return webview;
  }

  it('hovering a citation badge previews the cited lines from the workspace, and from the instance for a repository the workspace lacks', async () => {
    const webview = await openConversation(TITLE);
    const tooltip = webview.getByRole('tooltip');
    await webview.locator('.answer .citation-badge', { hasText: '1' }).hover();
    await tooltip.getByText('from your workspace').waitFor();
    assert.deepEqual(await tooltip.locator('.preview-line-number').allTextContents(), ['11', '12', '13', '14', '15']);
    assert.match((await tooltip.locator('.preview-lines').textContent()) ?? '', /export function parseConfig\(text: string\): AppConfig \{/);
    await tooltip.locator('.tok-keyword').first().waitFor();
    await ui.screenshot('rich-citation-preview');

    await webview.locator('.answer .citation-badge', { hasText: '2' }).hover();
    await tooltip.getByText('from the instance').waitFor();
    assert.match((await tooltip.locator('.preview-lines').textContent()) ?? '', /export function formatPrice\(cents: number\): string \{/);
    assert.deepEqual(await tooltip.locator('.preview-line-number').allTextContents(), ['3', '4', '5']);
  });

  it('shows the preview to the keyboard: Tab onto a citation of the list', async () => {
    const webview = await openConversation(TITLE);
    const entries = webview.getByRole('region', { name: 'Citations' }).locator('a');
    assert.deepEqual(await entries.allTextContents(), ['1src/config.ts:11–15github.com/acme/app', '2src/price.ts:3–5github.com/acme/billing']);
    await entries.first().focus();
    await ui.page.keyboard.press('Tab');
    const tooltip = webview.getByRole('tooltip');
    await tooltip.getByText('from the instance').waitFor();
    assert.equal(await entries.nth(1).getAttribute('aria-describedby'), 'citation-preview');
    // Enter opens the cited lines, as a click does.
    await ui.page.keyboard.press('Enter');
    const tab = ui.page.locator('.tabs-container .tab.active');
    await tab.filter({ hasText: 'price.ts' }).waitFor();
  });
});
