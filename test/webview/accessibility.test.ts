import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { completedQuestion, conversation, processingQuestion, snapshot } from './fixtures';
import { usePanelEnvironment, type Theme } from './panelHarness';

/** axe-core's own script, run in the page (through the DevTools protocol, as extensions run it). */
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** An answer with everything the panel adds to one: citations, a diagram, a code block, a table. */
const RICH_ANSWER = [
  '## How a question is answered',
  '',
  'The poller backs off in [nextInterval](/github.com/org/repo/-/blob/src/poller.ts?L10-12), and stops in',
  '[stop](/github.com/org/repo/-/blob/src/poller.ts?L40-44).',
  '',
  '```mermaid',
  'flowchart LR',
  '  ask[Ask] --> poll[Poll] --> answer[Answer]',
  '```',
  '',
  '| Step | Where |',
  '| --- | --- |',
  '| poll | `src/poller.ts` |',
  '',
  '```ts',
  'export const interval = 2_000;',
  '```',
].join('\n');

interface Finding {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

async function axeFindings(page: Page): Promise<Finding[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            context: Document,
            options: object,
          ): Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }> }>;
        };
      }
    ).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.map((node) => JSON.stringify(node.target)),
    }));
  });
}

const serious = (findings: Finding[]) => findings.filter((finding) => finding.impact === 'serious' || finding.impact === 'critical');

describe('conversation panel: accessibility (axe-core)', function () {
  this.timeout(60_000);
  const env = usePanelEnvironment();

  for (const theme of ['dark', 'light', 'high-contrast'] as Theme[]) {
    it(`has no serious or critical findings with an answer, citations, a diagram and a live question (${theme} theme)`, async () => {
      const panel = await env.open({ theme });
      await panel.send({
        ...snapshot(conversation([completedQuestion(1, { answer: RICH_ANSWER }), processingQuestion(2)])),
        instanceUrl: 'https://sourcegraph.example.com',
      });
      await panel.page.locator('.diagram-block img').waitFor({ timeout: 30_000 });
      // The preview of a citation open too, as a keyboard user has it.
      await panel.page.locator('.answer a.citation').first().focus();
      await panel.page.waitForFunction(() => window.__posted.some((message) => message.type === 'preview'));
      const ask = (await panel.postedOfType('preview'))[0];
      await panel.send({
        type: 'preview',
        previewId: ask.previewId,
        preview: { ok: true, from: 'workspace', startLine: 10, lines: ['export function nextInterval() {', '  return 2_000;', '}'], more: 0 },
      });
      await panel.page.getByRole('tooltip').locator('.preview-line').first().waitFor();

      const findings = await axeFindings(panel.page);
      assert.deepEqual(serious(findings), [], JSON.stringify(findings, null, 2));
    });
  }

  it('gives the panel landmarks, headings in order, a live region for the steps, and a focus order that follows the page', async () => {
    const panel = await env.open();
    await panel.send(snapshot(conversation([completedQuestion(1, { answer: RICH_ANSWER }), processingQuestion(2)])));
    const page = panel.page;
    assert.equal(await page.getByRole('main').count(), 1, 'one main landmark');
    assert.equal((await page.getByRole('contentinfo').count()) + (await page.locator('footer').count()) > 0, true, 'the follow-up box sits in a footer');
    assert.equal(await page.locator('[role="status"][aria-live="polite"]').count(), 1, 'one polite live region announces the steps and outcomes');
    const levels = await page
      .locator('h1, h2, h3, h4, h5, h6')
      .evaluateAll((headings) => headings.map((heading) => Number(heading.getAttribute('aria-level') ?? heading.tagName[1])));
    assert.equal(levels[0], 1, 'the conversation title is the first heading');
    for (let index = 1; index < levels.length; index++) assert.ok(levels[index] <= levels[index - 1] + 1, `no heading level skipped: ${levels.join(' ')}`);
    // Tab through the page: focus follows the document's order (no positive tabindex, nothing out of place).
    assert.equal(await page.locator('[tabindex]:not([tabindex="0"]):not([tabindex="-1"])').count(), 0, 'no positive tabindex');
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    let steps = 0;
    for (; steps < 30; steps++) {
      await page.keyboard.press('Tab');
      const marked = await page.evaluate((step) => {
        const active = document.activeElement;
        if (!(active instanceof HTMLElement) || active === document.body || active.dataset.focusStep) return false;
        active.dataset.focusStep = String(step);
        return true;
      }, steps);
      if (!marked) break;
    }
    assert.ok(steps > 10, `the panel has its controls in the tab order (${steps})`);
    const inOrder = await page.evaluate(() => {
      const visited = Array.from(document.querySelectorAll<HTMLElement>('[data-focus-step]')).sort(
        (a, b) => Number(a.dataset.focusStep) - Number(b.dataset.focusStep),
      );
      return visited.every((element, index) => index === 0 || Boolean(visited[index - 1].compareDocumentPosition(element) & Node.DOCUMENT_POSITION_FOLLOWING));
    });
    assert.ok(inOrder, 'each Tab moves focus to a control further down the page');
  });
});
