import * as assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { VSCodeUi } from './vscodeUi';

/** A hover like VS Code's over `target`, the mouse resting on it; it goes once the mouse leaves it. */
async function coverWithHover(page: Page, target: Locator): Promise<void> {
  await target.waitFor();
  const box = await target.boundingBox();
  assert.ok(box, 'the target is shown');
  await page.evaluate((rect) => {
    const hover = document.createElement('div');
    hover.className = 'monaco-hover';
    Object.assign(hover.style, {
      position: 'fixed',
      left: `${rect.x - 20}px`,
      top: `${rect.y - 20}px`,
      width: `${rect.width + 40}px`,
      height: `${rect.height + 40}px`,
      zIndex: '100000',
      background: 'rgba(128, 128, 128, 0.5)',
    });
    hover.addEventListener('mouseleave', () => hover.remove());
    document.body.append(hover);
  }, box);
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
}

describe('Tools in a real VS Code (UI)', function () {
  this.timeout(180_000);
  let ui: VSCodeUi;

  before(async () => {
    ui = await VSCodeUi.launch({ paceMs: 100 });
  });

  afterEach(async function () {
    await ui.screenshotIfFailed(this.currentTest, 'tools');
  });

  after(async () => {
    await ui?.close();
  });

  it('Search Code: results appear as you type, and the picked one opens in the editor at its line', async () => {
    await ui.runCommand('Deep Search: Search Code…');
    const widget = ui.page.locator('.quick-input-widget', { has: ui.page.locator('.quick-input-title', { hasText: 'Search Code (keywords)' }) });
    const input = widget.locator('input.input');
    await input.waitFor();
    assert.equal(await widget.locator('.action-label[aria-label="Switch to natural-language search"]').count(), 1, 'both modes are offered');
    await input.fill('invoiceLine');
    // The billing repository is not checked out: the result opens as a remote document.
    const row = widget.locator('.quick-input-list .monaco-list-row', { hasText: 'invoice.ts' }).first();
    await row.waitFor({ timeout: 30_000 });
    assert.match(await row.innerText(), /github\.com\/acme\/billing/);
    assert.match(await row.innerText(), /3: export function invoiceLine/);
    await ui.screenshot('search-code-results');
    await ui.clickWhenReady(row);
    await ui.page.locator('.tabs-container .tab.active', { hasText: 'invoice.ts' }).waitFor();
    // The match is on line 3; the status bar shows where the selection ends.
    assert.match(await ui.page.locator('[id="status.editor.selection"]').innerText(), /Ln 3, Col 28/);
    await ui.page.locator('.view-line', { hasText: 'export function invoiceLine' }).waitFor();
    await ui.screenshot('search-code-opened');
  });

  it('Search Code in natural language: the code that answers comes first, before the docs that mention it', async () => {
    await ui.runCommand('Deep Search: Search Code…');
    const keywords = ui.page.locator('.quick-input-widget', { has: ui.page.locator('.quick-input-title', { hasText: 'Search Code (keywords)' }) });
    // As once on CI: a hover over the search box covers the switch and would take a plain click.
    const toggle = keywords.locator('.action-label[aria-label="Switch to natural-language search"]');
    await coverWithHover(ui.page, toggle);
    await assert.rejects(toggle.click({ trial: true, timeout: 1000 }), /intercepts pointer events/, 'the hover covers the switch');
    await ui.clickWhenReady(toggle);
    const widget = ui.page.locator('.quick-input-widget', { has: ui.page.locator('.quick-input-title', { hasText: /natural/i }) });
    const input = widget.locator('input.input');
    await input.waitFor();
    // The README says these very words ("Settings are read by parseConfig"); the definition answers them.
    await input.fill('where are the settings read by parseConfig');
    const rows = widget.locator('.quick-input-list .monaco-list-row');
    await rows.filter({ hasText: 'config.ts' }).first().waitFor({ timeout: 30_000 });
    await ui.screenshot('search-code-natural-language');
    const first = await rows.first().innerText();
    assert.match(first, /config\.ts/, `the first result: ${first}`);
    assert.match(first, /parseConfig/);
    await ui.page.keyboard.press('Escape');
  });
});
