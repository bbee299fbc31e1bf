/**
 * A VS Code workbench in a Chromium page, driven the way a user drives it: the palette, input boxes,
 * menus, the Conversations tree, the conversation panel's webview, notifications. Shared by the UI
 * tests (code-server, vscodeUi.ts) and the web tests (VS Code for the Web, test/web/vscodeWeb.ts):
 * the workbench is the same in both.
 */
import { mkdir } from 'node:fs/promises';
import * as path from 'node:path';
import type { Frame, Locator, Page } from 'playwright-core';

export class WorkbenchPage {
  /** The browser tabs VS Code opened, in order. */
  readonly openedTabs: Page[] = [];

  constructor(
    readonly page: Page,
    /** Where `screenshot` writes. */
    private readonly screenshots: string,
  ) {}

  /**
   * Clicks `target` once nothing covers it. A hover shown where the mouse last stopped (after typing
   * into a box, say) can lie over the target and take the click: move the mouse away, wait for the
   * hovers to go, and click only once a trial click says the target itself would receive it.
   */
  async clickWhenReady(target: Locator, options: { button?: 'left' | 'right'; timeoutMs?: number } = {}): Promise<void> {
    const deadline = Date.now() + (options.timeoutMs ?? 30_000);
    const hovers = this.page.locator('.monaco-hover:visible, .workbench-hover-container:visible, .monaco-hover-content:visible');
    // A browser tab opened meanwhile leaves VS Code's in the background, where animation frames (which
    // Playwright's check that the target stands still waits for) come about once a second.
    await this.page.bringToFront();
    await target.waitFor({ timeout: options.timeoutMs ?? 30_000 });
    let stuckUnderHover = 0;
    for (;;) {
      // The top-left corner of the window: the menu button's edge, which shows no hover.
      await this.page.mouse.move(1, 1);
      await hovers
        .first()
        .waitFor({ state: 'hidden', timeout: 2000 })
        .catch(() => undefined);
      const refused = await target.click({ trial: true, timeout: 5000, button: options.button }).then(
        () => undefined,
        (error: Error) => error,
      );
      if (!refused) {
        await target.click({ timeout: 5000, button: options.button });
        return;
      }
      // A hover VS Code keeps open wherever the mouse goes (the quick input's placeholder shown in full,
      // once in CI, over Search Code's switch): the click is given to the target itself, which is
      // there, visible and enabled; what the click does is for the test to assert.
      if (/hover[^\n]*intercepts pointer events/.test(refused.message) && options.button !== 'right' && ++stuckUnderHover >= 2) {
        await target.dispatchEvent('click');
        return;
      }
      if (Date.now() > deadline) throw new Error(`nothing would let a click reach ${target.toString()}: ${refused.message}`);
    }
  }

  /**
   * A round trip through the extension host, for asserting that something did not happen: one of the
   * extension's commands opens its box, which is then closed. The host answers in order, so whatever
   * it sent the window before (a notification, a browser tab) has arrived by then. Escape hides the
   * toasts: count notifications in the center (`notified`, `notifications`) afterwards.
   */
  async afterExtensionHost(): Promise<void> {
    await this.runCommand('Deep Search: Search Code…');
    const box = this.page.locator('.quick-input-widget', { has: this.page.locator('.quick-input-title', { hasText: /^\s*Search Code/ }) });
    await box.waitFor();
    await this.page.keyboard.press('Escape');
    await box.waitFor({ state: 'hidden' });
  }

  /** F1, the command's title, then a click on its row once the rows have arrived. */
  async runCommand(title: string): Promise<void> {
    const input = this.page.locator('.quick-input-widget input');
    // A panel or editor that opens meanwhile may take the focus and close the palette: open it again.
    // A webview that holds the focus may also swallow the key: try again, with the other shortcut too.
    for (let attempt = 1; ; attempt++) {
      await this.page.keyboard.press('Escape');
      await this.page.keyboard.press(attempt % 2 === 1 ? 'F1' : 'Control+Shift+P');
      try {
        await input.waitFor({ timeout: 5000 });
        await input.fill(`>${title}`, { timeout: 5000 });
        break;
      } catch (error) {
        if (attempt === 6) throw error;
      }
    }
    // Exact match: "Ask Deep Search" must not pick "Ask Deep Search About Selection".
    const row = this.page.locator('.quick-input-list .monaco-list-row').filter({ has: this.page.locator('.label-name', { hasText: exactly(title) }) });
    await this.clickWhenReady(row);
  }

  /** Types into the input box titled `title` (not the closing palette) and submits it. */
  async answerInputBox(title: string, text: string): Promise<void> {
    const widget = this.page.locator('.quick-input-widget', { has: this.page.locator('.quick-input-title', { hasText: exactly(title) }) });
    const input = widget.locator('input.input');
    await input.waitFor();
    await input.fill(text);
    // VS Code ignores Enter while the box is still validating the new value: press until it closes.
    for (let attempt = 0; attempt < 20; attempt++) {
      await input.press('Enter');
      if (
        await widget.waitFor({ state: 'hidden', timeout: 500 }).then(
          () => true,
          () => false,
        )
      )
        return;
    }
    throw new Error(`the input box "${title}" did not accept the text`);
  }

  /** The content frame of the visible conversation webview (`iframe#active-frame` inside `iframe.webview`). */
  async webview(): Promise<Frame> {
    for (let attempt = 0; attempt < 300; attempt++) {
      for (const frame of this.page.frames()) {
        if (frame.name() === 'active-frame' || frame.url().includes('fake.html')) {
          if (await frame.locator('[data-conversation-root], main, body').first().count()) return frame;
        }
      }
      await this.page.waitForTimeout(100);
    }
    throw new Error('no webview frame appeared');
  }

  /**
   * The article of a question, by its text, in whichever conversation panel shows it (a panel asked
   * from before may still be open beside it).
   */
  async questionInPanel(text: string, timeoutMs = 60_000): Promise<Locator> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (const frame of this.page.frames()) {
        if (frame.isDetached() || !(frame.name() === 'active-frame' || frame.url().includes('fake.html'))) continue;
        const article = frame.locator('article.question', { has: frame.locator('.question-text', { hasText: exactly(text) }) });
        if ((await article.count().catch(() => 0)) > 0) return article;
      }
      if (Date.now() > deadline) throw new Error(`no panel shows the question "${text}"`);
      await this.page.waitForTimeout(100);
    }
  }

  /** The Conversations view's row for a label. */
  treeRow(label: string | RegExp): Locator {
    return this.page.locator('.monaco-list-row[role="treeitem"]', { hasText: label });
  }

  /** The URLs of the browser tabs opened since tab `from` (once each has left about:blank). */
  async tabUrls(from = 0): Promise<string[]> {
    const tabs = this.openedTabs.slice(from);
    await Promise.all(tabs.map((tab) => tab.waitForURL((url) => url.href !== 'about:blank', { timeout: 5000, waitUntil: 'commit' }).catch(() => undefined)));
    return tabs.map((tab) => tab.url());
  }

  /** Right-click, let the menu settle (a click right after it opens can be ignored), then click the item. */
  async contextMenuItem(target: Locator, label: string): Promise<void> {
    await target.click({ button: 'right' });
    await this.menuItem(label);
  }

  /** Clicks the item `label` of the context menu that is open. */
  async menuItem(label: string): Promise<void> {
    const item = this.page.locator('.context-view .action-item .action-label', { hasText: exactly(label) }).first();
    await item.waitFor();
    await item.hover();
    await this.page.waitForTimeout(150);
    await item.click();
  }

  /** Quick Open (Ctrl+P), the file's row clicked; again if a panel took the focus meanwhile. */
  async openFile(name: string): Promise<void> {
    const active = this.page.locator(`.tabs-container .tab.active[aria-label^="${name}"]`);
    for (let attempt = 1; ; attempt++) {
      await this.page.keyboard.press('Escape');
      await this.page.keyboard.press('Control+P');
      const input = this.page.locator('.quick-input-widget input');
      await input.waitFor();
      await input.fill(name);
      await this.clickWhenReady(this.page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first());
      if (
        await active.waitFor({ timeout: 5000 }).then(
          () => true,
          () => false,
        )
      )
        break;
      if (attempt === 3) throw new Error(`${name} did not open`);
    }
    await this.page.locator('.monaco-editor .view-lines').first().waitFor();
  }

  /** A line of the active editor, by some of its text. */
  editorLine(text: string): Locator {
    return this.page.locator('.monaco-editor .view-line', { hasText: text }).first();
  }

  /** A name in the active editor where it is called (`name(`), as the editor renders it. */
  editorWord(text: string): Locator {
    return this.editorLine(`${text}(`)
      .locator('span span', { hasText: new RegExp(`^${text}$`) })
      .first();
  }

  /** Puts the cursor on a name (no selection), then opens the editor's context menu there. */
  async contextMenuOnWord(text: string, item: string): Promise<void> {
    const target = this.editorWord(text);
    // The blinking text cursor may sit on the name: click through it.
    await target.click({ force: true });
    await target.click({ button: 'right', force: true });
    await this.menuItem(item);
  }

  /**
   * Whether the palette lists a command by its exact title. Counted only once the rows show the
   * filtered list for the typed title (the palette opens on every command, unfiltered): the title's
   * row, VS Code's "No matching commands" row, its "similar commands" section (added after the
   * filtering, without highlights), or rows that each highlight what matched.
   */
  async paletteOffers(title: string): Promise<boolean> {
    await this.page.keyboard.press('Escape');
    await this.page.keyboard.press('F1');
    const input = this.page.locator('.quick-input-widget input');
    await input.waitFor();
    await input.fill(`>${title}`);
    const rows = this.page.locator('.quick-input-list .monaco-list-row').filter({ hasNot: this.page.locator('.quick-input-list-separator-as-item') });
    const offered = rows.filter({ has: this.page.locator('.label-name', { hasText: exactly(title) }) });
    const none = rows.filter({ has: this.page.locator('.label-name', { hasText: exactly('No matching commands') }) });
    const similar = this.page
      .locator('.quick-input-list .monaco-list-row')
      .locator('.quick-input-list-separator, .quick-input-list-separator-as-item')
      .filter({ hasText: /^\s*similar commands\s*$/ });
    const unfiltered = rows.filter({ hasNot: this.page.locator('.label-name .highlight') });
    await this.eventually(
      async () =>
        (await offered.count()) > 0 ||
        (await none.count()) > 0 ||
        (await similar.count()) > 0 ||
        ((await rows.count()) > 0 && (await unfiltered.count()) === 0),
      `the palette to filter its rows for "${title}"`,
    );
    const found = await offered.count();
    await this.page.keyboard.press('Escape');
    return found > 0;
  }

  /** Asks `probe` once a second until it says yes; fails after `timeoutMs` naming `what`. */
  async eventually(probe: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await probe())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await this.page.waitForTimeout(1000);
    }
  }

  /**
   * Whether the notification center holds a message that matches: every notification of this
   * window goes there, including toasts that have already hidden themselves.
   */
  async notified(message: RegExp): Promise<boolean> {
    return (await this.notifications(message)) > 0;
  }

  /**
   * How many notifications of the center match (every notification of this window goes there);
   * `errors` counts those shown as errors, whatever they say.
   */
  async notifications(message: RegExp | 'errors'): Promise<number> {
    const center = this.page.locator('.notifications-center');
    // Seen on a loaded machine: the center stays shut after the command (focus moving to a view that
    // opened meanwhile closes it). Ask again rather than wait on a center that will not open.
    for (let attempt = 1; !(await center.isVisible()); attempt++) {
      await this.runCommand('Notifications: Show Notifications');
      try {
        await center.waitFor({ timeout: 5000 });
      } catch (error) {
        if (attempt === 4) throw error;
      }
    }
    const found =
      message === 'errors'
        ? await center.locator('.notification-list-item', { has: this.page.locator('.codicon-error') }).count()
        : await center.locator('.notification-list-item-message', { hasText: message }).count();
    // Closed again (toasts do not show while it is open): the status bar's bell toggles it.
    if (await center.isVisible()) await this.page.locator('[id="status.notifications"]').click();
    await center.waitFor({ state: 'hidden', timeout: 5000 });
    return found;
  }

  /** The notification toast whose message matches. */
  toast(message: string | RegExp): Locator {
    return this.page.locator('.notification-toast', { hasText: message });
  }

  /** The text of an output channel (the Output view shows it; its first screenful is read). */
  async outputChannelText(channel: string): Promise<string> {
    // The channel picker is in the palette once the Output view has been shown.
    await this.runCommand('Output: Focus on Output View');
    await this.runCommand('Output: Show Output Channels...');
    await this.clickWhenReady(
      this.page.locator('.quick-input-list .monaco-list-row').filter({ has: this.page.locator('.label-name', { hasText: exactly(channel) }) }),
    );
    const lines = this.page.locator('.panel .output-view .view-lines, .panel [id="workbench.panel.output"] .view-lines').first();
    await lines.waitFor();
    return lines.innerText();
  }

  /** A picture of the window, in this harness's folder of test-results/. */
  async screenshot(name: string): Promise<void> {
    await mkdir(this.screenshots, { recursive: true });
    await this.page.screenshot({ path: path.join(this.screenshots, `${name}.png`) });
  }

  /** For `afterEach`: a picture of the window when `test` failed, named `failed-<label>-<its title>`. */
  async screenshotIfFailed(test: Mocha.Test | undefined, label: string): Promise<void> {
    if (test?.state !== 'failed') return;
    await this.screenshot(`failed-${label}-${test.title.slice(0, 40).replace(/\W+/g, '-')}`);
  }
}

/** A pattern that matches `text` whole, give or take surrounding spaces. */
export function exactly(text: string): RegExp {
  return new RegExp(`^\\s*${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`);
}
