import assert from 'node:assert/strict';
import type { Locator } from 'playwright-core';
import { completedQuestion, conversation, snapshot } from './fixtures';
import { usePanelEnvironment } from './panelHarness';

const WHY = 'Not a link: addresses like this one are not opened from answers.';

/** Links the panel does not open: the host's refusals (linkTarget), then the sanitiser's. */
const NEUTRALISED = ['relative file', 'anchor', 'other host, no scheme', 'credentials', 'empty', 'script'];
const ANSWER = [
  'See [the real one](https://example.com/a) and [script](javascript:alert(1)), [relative file](docs/setup.md),',
  '[anchor](#usage), [other host, no scheme](//evil.example/x), [credentials](https://user:secret@example.com/) and [empty]().',
].join('\n');
/** The same through the sanitiser (raw HTML), and a relative source link. */
const RAW_ANSWER = 'Raw <a href="docs/setup.md">raw relative</a> and <a href="https://example.com/b">raw real</a> <kbd>HTML</kbd>.';

interface Look {
  href: string | null;
  title: string | null;
  color: string;
  decoration: string;
  cursor: string;
}

async function look(link: Locator): Promise<Look> {
  return link.evaluate((node) => {
    const style = getComputedStyle(node);
    return {
      href: node.getAttribute('href'),
      title: node.getAttribute('title'),
      color: style.color,
      decoration: style.textDecorationLine,
      cursor: style.cursor,
    };
  });
}

describe('conversation panel: links the panel does not open', function () {
  this.timeout(30_000);
  const env = usePanelEnvironment();

  it('read as plain text, with a tooltip saying why, where a real link looks like a link', async () => {
    const panel = await env.open();
    const page = panel.page;
    await panel.send(
      snapshot(
        conversation([
          completedQuestion(1, { answer: ANSWER }),
          completedQuestion(2, { answer: RAW_ANSWER, sources: [{ type: 'File', link: 'docs/setup.md', label: 'setup notes' }] }),
        ]),
      ),
    );
    const first = page.locator('[data-question-id="1"] .markdown');
    const text = await first.locator('p').evaluate((node) => getComputedStyle(node).color);
    const real = first.locator('a', { hasText: 'the real one' });
    await real.hover();
    const realLook = await look(real);
    assert.equal(realLook.href, 'https://example.com/a');
    assert.notEqual(realLook.color, text, 'a real link has the link colour');
    assert.equal(realLook.cursor, 'pointer');
    assert.equal(realLook.decoration, 'underline', 'and is underlined under the pointer');

    const neutralised = [
      ...NEUTRALISED.map((name) => first.locator('a', { hasText: name })),
      page.locator('[data-question-id="2"] .markdown a', { hasText: 'raw relative' }),
    ];
    for (const link of neutralised) {
      await link.hover();
      const shown = await look(link);
      const name = await link.textContent();
      assert.deepEqual(shown, { href: null, title: WHY, color: text, decoration: 'none', cursor: 'auto' }, `${name}: as the text around it`);
      await link.click();
    }
    const rawReal = await look(page.locator('[data-question-id="2"] .markdown a', { hasText: 'raw real' }));
    assert.deepEqual([rawReal.href, rawReal.color, rawReal.cursor], ['https://example.com/b', realLook.color, 'pointer']);

    const source = page.locator('[data-question-id="2"] .source-link', { hasText: 'setup notes' });
    assert.equal(await source.evaluate((node) => node.tagName), 'SPAN', 'a source the host would refuse is no link either');
    assert.equal(await source.getAttribute('title'), WHY);
    assert.deepEqual(await panel.postedOfType('openLink'), [], 'clicking them asks the host for nothing');
  });
});
