import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { Question } from '../../src/model/conversation';
import { completedQuestion, conversation, processingQuestion, question, questionsUpdate, snapshot, turn } from './fixtures';
import { usePanelEnvironment } from './panelHarness';

/** Tags DOM nodes with an expando property so a later check can tell the same node from a rebuilt one. */
async function mark(page: Page, marks: Record<string, string>): Promise<void> {
  await page.evaluate((selectors) => {
    for (const [name, selector] of Object.entries(selectors)) {
      const node = document.querySelector(selector);
      if (!node) throw new Error(`nothing matches ${selector}`);
      (node as unknown as { __mark?: string }).__mark = name;
    }
  }, marks);
}

/** Which of the marked nodes are still the very same nodes at the same selectors. */
async function surviving(page: Page, marks: Record<string, string>): Promise<Record<string, boolean>> {
  return page.evaluate(
    (selectors) =>
      Object.fromEntries(
        Object.entries(selectors).map(([name, selector]) => [
          name,
          (document.querySelector(selector) as unknown as { __mark?: string } | null)?.__mark === name,
        ]),
      ),
    marks,
  );
}

async function nextFrame(page: Page): Promise<void> {
  await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
}

function longAnswer(id: number): Question {
  const paragraphs = Array.from({ length: 30 }, (_, index) => `Paragraph ${index + 1} of a long answer.`).join('\n\n');
  return completedQuestion(id, { answer: paragraphs });
}

describe('conversation panel: incremental updates and view state', function () {
  this.timeout(30_000);
  const env = usePanelEnvironment();

  const MARKS = {
    first: '.question[data-question-id="1"]',
    firstAnswer: '.question[data-question-id="1"] .markdown',
    firstPrompt: '.question[data-question-id="1"] .question-text',
    second: '.question[data-question-id="2"]',
    secondFirstTurn: '.question[data-question-id="2"] .turn:nth-child(1)',
    secondTurnList: '.question[data-question-id="2"] .turn-list',
  };

  it('a new turn is appended to its question without rebuilding other questions or earlier turns', async () => {
    const panel = await env.open();
    const value = conversation([completedQuestion(1), processingQuestion(2)]);
    await panel.send(snapshot(value));
    await mark(panel.page, MARKS);

    const withTurn = processingQuestion(2);
    withTurn.turns = [...withTurn.turns, turn('Comparing the two intervals.', 20, 'assistant')];
    await panel.send(questionsUpdate(value, [withTurn]));

    assert.deepEqual(await surviving(panel.page, MARKS), {
      first: true,
      firstAnswer: true,
      firstPrompt: true,
      second: true,
      secondFirstTurn: true,
      secondTurnList: true,
    });
    assert.deepEqual(await panel.page.locator('[data-question-id="2"] .turn-text').allTextContents(), [
      'Searching the repository for the poller and its interval settings.',
      'Reading src/api/poller.ts to see how backoff is computed.',
      'Comparing the two intervals.',
    ]);
  });

  it('a pending question that starts processing keeps its node and now shows its turns', async () => {
    const panel = await env.open();
    const value = conversation([question(1, { state: 'pending' })]);
    await panel.send(snapshot(value));
    await mark(panel.page, { first: MARKS.first, firstTurns: '.question[data-question-id="1"] .turn-list' });

    await panel.send(questionsUpdate(value, [processingQuestion(1)]));
    assert.deepEqual(await surviving(panel.page, { first: MARKS.first, firstTurns: '.question[data-question-id="1"] .turn-list' }), {
      first: true,
      firstTurns: true,
    });
    assert.equal(await panel.page.locator('[data-question-id="1"] .status-label').textContent(), 'Searching');
    assert.equal(await panel.page.locator('[data-question-id="1"] .turn').count(), 2);
    assert.equal(await panel.page.locator('[data-question-id="1"] .turn-placeholder').count(), 0);
  });

  it('re-renders only the question that finished; the others keep their nodes', async () => {
    const panel = await env.open();
    const value = conversation([completedQuestion(1), processingQuestion(2)]);
    await panel.send(snapshot(value));
    await mark(panel.page, MARKS);

    await panel.send(questionsUpdate(value, [completedQuestion(1), completedQuestion(2, { title: 'Second answer' })]));
    const kept = await surviving(panel.page, MARKS);
    assert.equal(kept.first, true);
    assert.equal(kept.firstAnswer, true, 'an unchanged question in the update is left alone');
    assert.equal(kept.second, true, 'the article itself stays');
    assert.equal(await panel.page.locator('[data-question-id="2"] .answer-title').textContent(), 'Second answer');
    assert.equal(await panel.page.locator('[data-question-id="2"] .cancel-button').count(), 0);
  });

  it('appends a new follow-up question after the others, keeping theirs', async () => {
    const panel = await env.open();
    const value = conversation([completedQuestion(1)]);
    await panel.send(snapshot(value));
    await mark(panel.page, { first: MARKS.first, firstAnswer: MARKS.firstAnswer });

    await panel.send(questionsUpdate(value, [question(2, { state: 'pending', text: 'And then?' })]));
    assert.deepEqual(await surviving(panel.page, { first: MARKS.first, firstAnswer: MARKS.firstAnswer }), {
      first: true,
      firstAnswer: true,
    });
    assert.deepEqual(await panel.page.locator('.question').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-question-id'))), ['1', '2']);
    assert.ok(await panel.page.locator('textarea').isDisabled(), 'the new question makes the box wait');
  });

  it('follows new content when the reader is at the bottom', async () => {
    const panel = await env.open({ viewport: { width: 700, height: 420 } });
    const value = conversation([longAnswer(1), processingQuestion(2)]);
    await panel.send(snapshot(value));
    await panel.page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));

    const more = processingQuestion(2);
    more.turns = [...more.turns, ...Array.from({ length: 6 }, (_, index) => turn(`Extra step ${index}.`, 30 + index))];
    await panel.send(questionsUpdate(value, [more]));
    // The panel follows in the next frame, once the browser lays the new content out anyway.
    await nextFrame(panel.page);
    const gap = await panel.page.evaluate(() => {
      const page = document.scrollingElement!;
      return page.scrollHeight - page.scrollTop - page.clientHeight;
    });
    assert.ok(gap <= 1, `still at the bottom (gap ${gap}px)`);
  });

  it('keeps the header in view when it opens at the latest question and when it follows new content', async () => {
    const panel = await env.open({ viewport: { width: 700, height: 420 } });
    const value = conversation([longAnswer(1), longAnswer(2), processingQuestion(3)]);
    await panel.send(snapshot(value));
    const layout = () =>
      panel.page.evaluate(() => {
        const header = document.querySelector('.conversation-header')!.getBoundingClientRect();
        const latest = [...document.querySelectorAll('.question')].pop()!.getBoundingClientRect();
        return { scrolled: document.scrollingElement!.scrollTop, headerTop: header.top, headerBottom: header.bottom, latestTop: latest.top };
      });
    const opened = await layout();
    assert.ok(opened.scrolled > 0, 'opened scrolled to the latest question');
    assert.equal(opened.headerTop, 0, 'the header is at the top, whole');
    assert.ok(opened.latestTop >= opened.headerBottom - 1, `the latest question starts below the header (${opened.latestTop} < ${opened.headerBottom})`);

    const more = processingQuestion(3);
    more.turns = [...more.turns, ...Array.from({ length: 12 }, (_, index) => turn(`Extra step ${index}.`, 30 + index))];
    await panel.page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await panel.send(questionsUpdate(value, [more]));
    await nextFrame(panel.page);
    assert.equal((await layout()).headerTop, 0, 'after following new content too');
    await panel.page.getByRole('button', { name: 'Export as Markdown' }).click({ trial: true });
  });

  it('keeps the scroll position when the reader has scrolled up', async () => {
    const panel = await env.open({ viewport: { width: 700, height: 420 } });
    const value = conversation([longAnswer(1), processingQuestion(2)]);
    await panel.send(snapshot(value));
    await panel.page.evaluate(() => window.scrollTo(0, 200));

    const more = processingQuestion(2);
    more.turns = [...more.turns, turn('Another step.', 40)];
    await panel.send(questionsUpdate(value, [more]));
    await nextFrame(panel.page);
    assert.equal(await panel.page.evaluate(() => document.scrollingElement!.scrollTop), 200);
  });

  it('restores the draft and the scroll position from its saved state after a reload', async () => {
    const panel = await env.open({ viewport: { width: 700, height: 420 } });
    const value = conversation([longAnswer(1), completedQuestion(2)]);
    await panel.send(snapshot(value));
    await panel.page.locator('textarea').fill('half-written follow-up');
    assert.equal((await panel.savedState())?.draft, 'half-written follow-up', 'the draft is saved as it is typed');
    await panel.page.evaluate(() => window.scrollTo(0, 300));
    await panel.page.waitForFunction(() => (JSON.parse(sessionStorage.getItem('__panelHarnessState') ?? '{}') as { scrollTop?: number }).scrollTop === 300);

    await panel.reload();
    assert.deepEqual(await panel.posted(), [{ type: 'ready' }]);
    assert.equal(await panel.page.locator('.question').count(), 0, 'nothing before the snapshot');
    await panel.send(snapshot(value));
    assert.equal(await panel.page.locator('textarea').inputValue(), 'half-written follow-up');
    assert.equal(await panel.page.evaluate(() => document.scrollingElement!.scrollTop), 300);
    assert.deepEqual(await panel.savedState(), { conversationId: value.id, draft: 'half-written follow-up', scrollTop: 300 });
  });

  it('ignores saved state that belongs to another conversation', async () => {
    const panel = await env.open();
    await panel.send(snapshot(conversation([completedQuestion(1)])));
    await panel.page.locator('textarea').fill('draft for conversation 140');
    await panel.reload();
    await panel.send(snapshot(conversation([completedQuestion(1)], { id: 999 })));
    assert.equal(await panel.page.locator('textarea').inputValue(), '');
  });

  it('keeps showing the same answer after an unrelated change, and the new one after an edit', async () => {
    const panel = await env.open();
    const value = conversation([completedQuestion(1), processingQuestion(2)]);
    await panel.send(snapshot(value));
    const before = await panel.page.locator('[data-question-id="1"] .markdown').innerHTML();
    await panel.send(questionsUpdate(value, [completedQuestion(1, { updatedAt: '2025-06-01T12:05:00.000Z' })]));
    assert.equal(await panel.page.locator('[data-question-id="1"] .markdown').innerHTML(), before);
    await panel.send(questionsUpdate(value, [completedQuestion(1, { answer: 'A **new** answer.' })]));
    assert.equal(await panel.page.locator('[data-question-id="1"] .markdown').innerHTML(), '<p>A <strong>new</strong> answer.</p>');
  });

  it('poll updates leave finished answers’ nodes alone, yet show a new title, turn and finished question', async () => {
    const panel = await env.open();
    const finished = [1, 2, 3].map((id) => completedQuestion(id, { answer: `Answer ${id} with \`code\`.\n\n\`\`\`ts\nconst x = ${id};\n\`\`\`` }));
    const value = conversation([...finished, processingQuestion(4)]);
    await panel.send(snapshot(value));
    const answers = {
      answer1: '.question[data-question-id="1"] .markdown',
      answer2: '.question[data-question-id="2"] .markdown',
      answer3: '.question[data-question-id="3"] .markdown',
      code2: '.question[data-question-id="2"] .markdown .code-block',
    };
    await mark(panel.page, answers);

    // One poll: a reasoning turn for the running question, and a new title for a finished one.
    const running = processingQuestion(4);
    running.turns = [...running.turns, turn('Reading the scheduler.', 30)];
    await panel.send(questionsUpdate(value, [completedQuestion(2, { answer: finished[1].answer, title: 'Renamed answer' }), running]));
    assert.deepEqual(await surviving(panel.page, answers), { answer1: true, answer2: true, answer3: true, code2: true });
    assert.equal(await panel.page.locator('[data-question-id="2"] .answer-title').textContent(), 'Renamed answer');
    assert.equal(await panel.page.locator('[data-question-id="4"] .turn').count(), 3);

    // The next: the running question finishes.
    await panel.send(questionsUpdate(value, [completedQuestion(4, { answer: 'The **fourth** answer.' })]));
    assert.deepEqual(await surviving(panel.page, answers), { answer1: true, answer2: true, answer3: true, code2: true });
    assert.equal(await panel.page.locator('[data-question-id="4"] .markdown').innerHTML(), '<p>The <strong>fourth</strong> answer.</p>');
    assert.equal(await panel.page.locator('[data-question-id="4"] .cancel-button').count(), 0);

    // A copy button of an answer that stayed keeps working.
    await panel.page.locator('[data-question-id="2"] .copy-code').click();
    assert.deepEqual(await panel.postedOfType('copyText'), [{ type: 'copyText', text: 'const x = 2;\n' }]);
    assert.deepEqual(panel.pageErrors, []);
  });

  it('a new snapshot of the same conversation keeps unchanged questions’ nodes and shows what changed', async () => {
    const panel = await env.open();
    const value = conversation([completedQuestion(1), completedQuestion(2), processingQuestion(3)]);
    await panel.send(snapshot(value));
    await mark(panel.page, { first: MARKS.first, firstAnswer: MARKS.firstAnswer, secondAnswer: '.question[data-question-id="2"] .markdown' });

    // As after a change of edit rights: the whole conversation again, read-only now, one question
    // gone, one finished, one with another answer.
    const next = conversation([completedQuestion(1), completedQuestion(3, { answer: 'Third, finished.' })], { isOwner: false });
    await panel.send(snapshot(next, { canEdit: false }));
    assert.deepEqual(await surviving(panel.page, { first: MARKS.first, firstAnswer: MARKS.firstAnswer }), { first: true, firstAnswer: true });
    assert.deepEqual(await panel.page.locator('.question').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-question-id'))), ['1', '3']);
    assert.equal(await panel.page.locator('[data-question-id="3"] .markdown').innerHTML(), '<p>Third, finished.</p>');
    assert.ok(await panel.page.locator('.readonly-note').isVisible());
    assert.equal(await panel.page.locator('.followup-suggestion:visible').count(), 0, 'suggestions hidden in a read-only view');

    // Another conversation's snapshot replaces everything.
    await panel.send(snapshot(conversation([completedQuestion(1)], { id: 999 })));
    assert.deepEqual(await surviving(panel.page, { first: MARKS.first, firstAnswer: MARKS.firstAnswer }), { first: false, firstAnswer: false });
    assert.equal(await panel.page.locator('.question').count(), 1);
  });
});
