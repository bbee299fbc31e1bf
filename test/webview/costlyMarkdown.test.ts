import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { ADVERSARIAL_INPUTS, type AdversarialGroup, type AdversarialInput } from './adversarialMarkdown';
import { completedQuestion, conversation, processingQuestion, snapshot, turn } from './fixtures';
import { usePanelEnvironment } from './panelHarness';

/** The note above an answer shown as plain text, by reason (English: the panel's own strings). */
const NOTES: Record<string, string> = {
  size: 'Shown as plain text: this answer is too long to render as Markdown.',
  emphasis: 'Shown as plain text: this answer has too many emphasis markers to render as Markdown in reasonable time.',
  nesting: 'Shown as plain text: this answer nests lists or quotes too deeply to render as Markdown.',
  markup: 'Shown as plain text: this answer has too much markup (links, lists, table cells, code) to render as Markdown in reasonable time.',
  html: 'Shown as plain text: this answer has too much HTML, or HTML nested too deeply, to render in reasonable time.',
};

/** The classes of adversarial answers, in words. */
const GROUPS: Record<AdversarialGroup, string> = {
  emphasis: 'emphasis',
  links: 'links and brackets',
  nesting: 'nested lists and quotes',
  blocks: 'tables, code and other blocks',
  html: 'raw HTML',
  other: 'entities, long lines, backticks, size',
};

interface Shown {
  note: string | null;
  /** The text of the plain-text parts, joined; null when the answer shows as Markdown. */
  plain: string | null;
  more: string | null;
  /** Lines in the longest plain-text part: layout costs per line. */
  longestPart: number;
  /** Elements of the answer other than the plain-text parts and the note. */
  rendered: number;
}

async function shownAnswers(page: Page): Promise<Shown[]> {
  return page.locator('.question .answer .markdown').evaluateAll((answers) =>
    answers.map((answer) => {
      const parts = Array.from(answer.querySelectorAll(':scope > pre'));
      return {
        note: answer.querySelector(':scope > .markdown-plain-note')?.textContent ?? null,
        plain: parts.length > 0 ? parts.map((part) => part.textContent).join('') : null,
        more: answer.querySelector(':scope > button.plain-text-more')?.textContent ?? null,
        longestPart: Math.max(0, ...parts.map((part) => (part.textContent ?? '').split('\n').length)),
        rendered: answer.querySelectorAll(':scope > :not(pre, .markdown-plain-note, .plain-text-more)').length,
      };
    }),
  );
}

describe('conversation panel: answers too costly to render as Markdown', function () {
  this.timeout(120_000);
  const env = usePanelEnvironment();

  for (const [group, words] of Object.entries(GROUPS)) {
    it(`shows each costly answer of a class (${words}) as plain text with a note saying why, the others as Markdown, and the rest of the conversation`, async () => {
      const inputs = ADVERSARIAL_INPUTS.filter((input) => input.group === group);
      const panel = await env.open();
      const page = panel.page;
      const questions = [
        ...inputs.map((input, index) => completedQuestion(index + 1, { answer: input.markdown, title: input.name })),
        completedQuestion(90, { answer: 'The **last** answer, with [a link](https://example.com/last).' }),
        processingQuestion(91, { turns: [turn('Still reading src/api/poller.ts.', 3)] }),
      ];
      await panel.send(snapshot(conversation(questions)));

      const shown = await shownAnswers(page);
      assert.equal(shown.length, inputs.length + 1, 'every answer is shown');
      inputs.forEach((input: AdversarialInput, index) => {
        const answer = shown[index];
        if (input.shown.as === 'plain') {
          assert.equal(answer.note, NOTES[input.shown.reason], `${input.name}: the note says why`);
          assert.ok(answer.plain !== null && input.markdown.startsWith(answer.plain), `${input.name}: its text, as it is`);
          assert.equal(answer.rendered, 0, `${input.name}: nothing rendered as Markdown`);
          assert.ok(answer.longestPart <= 5_001, `${input.name}: in parts of at most 5,000 lines (${answer.longestPart})`);
          assert.equal(answer.more !== null, answer.plain.length < input.markdown.length, `${input.name}: a button for the rest, if any`);
        } else {
          assert.deepEqual([answer.note, answer.plain], [null, null], `${input.name}: rendered as Markdown`);
          assert.ok(answer.rendered > 0, `${input.name}: its elements are there`);
        }
      });
      const last = page.locator('[data-question-id="90"] .markdown');
      assert.equal(await last.locator('strong').textContent(), 'last');
      assert.equal(await last.locator('a[href="https://example.com/last"]').count(), 1);
      assert.deepEqual(await page.locator('[data-question-id="91"] .turn-text').allTextContents(), ['Still reading src/api/poller.ts.']);
      assert.deepEqual(panel.pageErrors, []);
    });
  }

  it('shows a long plain-text answer in parts, the next one on request, until all of it is there', async () => {
    const panel = await env.open();
    const page = panel.page;
    // Lines of 15 characters: 12,000 of them, in parts of 5,000.
    const lines = Array.from({ length: 12_000 }, (_, index) => `line ${String(index).padStart(5, '0')} *a`);
    const answer = lines.join('\n');
    await panel.send(snapshot(conversation([completedQuestion(1, { answer })])));
    const markdown = page.locator('.answer .markdown');
    assert.equal(await markdown.locator('.markdown-plain-note').textContent(), NOTES.emphasis);
    assert.deepEqual(await markdown.locator(':scope > pre').allTextContents(), [`${lines.slice(0, 5_000).join('\n')}\n`]);
    const more = markdown.getByRole('button', { name: 'Show more (41% shown)' });
    await more.click();
    assert.equal(await markdown.locator(':scope > pre').count(), 2);
    await markdown.getByRole('button', { name: 'Show more (83% shown)' }).focus();
    await page.keyboard.press('Enter');
    assert.equal((await markdown.locator(':scope > pre').allTextContents()).join(''), answer, 'all of it, in order');
    assert.equal(await markdown.locator('button').count(), 0, 'no button once all is shown');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent?.startsWith('line 10000 ')), true, 'focus on the part shown last');
    assert.deepEqual(panel.pageErrors, []);
  });

  it('shows reasoning turns as plain text, never as Markdown, and a long one in parts', async () => {
    const panel = await env.open();
    const page = panel.page;
    const costly = ADVERSARIAL_INPUTS.filter((input) => /nested `<div>`|emphasis `_a_a…`|nested links/.test(input.name)).map((input) => input.markdown);
    const long = 'x\n'.repeat(20_000);
    await panel.send(snapshot(conversation([processingQuestion(1, { turns: [...costly, long].map((text, index) => turn(text, index + 1)) })])));
    const turns = page.locator('[data-question-id="1"] .turn');
    assert.equal(await turns.count(), costly.length + 1);
    for (let index = 0; index < costly.length; index++) {
      const item = turns.nth(index);
      assert.equal(await item.locator('.turn-text').textContent(), costly[index], 'the text as it is');
      assert.equal(await item.locator('.turn-text *').count(), 0, 'no markup made of it');
    }
    const longTurn = turns.nth(costly.length);
    assert.deepEqual(await longTurn.locator('.turn-text').allTextContents(), ['x\n'.repeat(5_000)]);
    await longTurn.getByRole('button', { name: 'Show more (25% shown)' }).click();
    await longTurn.getByRole('button', { name: 'Show more (50% shown)' }).click();
    await longTurn.getByRole('button', { name: 'Show more (75% shown)' }).click();
    assert.equal((await longTurn.locator('.turn-text').allTextContents()).join(''), long);
    assert.deepEqual(panel.pageErrors, []);
  });
});
