import assert from 'node:assert/strict';
import { canceledQuestion, completedQuestion, conversation, failedQuestion, processingQuestion, question, snapshot, T0, turn } from './fixtures';
import { usePanelEnvironment } from './panelHarness';
import { normalizeConnectConversation } from '../../src/api/normalizeConnect';

describe('conversation panel: rendering each question state', function () {
  this.timeout(30_000);
  const env = usePanelEnvironment();

  it('posts ready before anything else and renders nothing until the snapshot', async () => {
    const panel = await env.open();
    assert.deepEqual(await panel.posted(), [{ type: 'ready' }]);
    assert.equal(await panel.page.locator('.question').count(), 0);
    assert.equal(await panel.page.locator('#app').getAttribute('aria-busy'), 'true');

    await panel.send(snapshot(conversation([completedQuestion(1)])));
    assert.equal(await panel.page.locator('.question').count(), 1);
    assert.equal(await panel.page.locator('#app').getAttribute('aria-busy'), null);
    assert.equal((await panel.posted())[0]?.type, 'ready');
    assert.deepEqual(panel.pageErrors, []);
  });

  it('shows a pending question as waiting, with its elapsed time and a cancel button', async () => {
    const panel = await env.open();
    const pending = question(1, { state: 'pending', text: 'Where is the retry policy?' });
    await panel.send(snapshot(conversation([pending]), { now: T0 + 5_000 }));
    const article = panel.page.locator('.question[data-question-id="1"]');
    assert.equal(await article.locator('.question-text').textContent(), 'Where is the retry policy?');
    assert.equal(await article.locator('.status-label').textContent(), 'Waiting to start');
    assert.equal(await article.locator('.elapsed').textContent(), '5s');
    assert.ok(await article.getByRole('button', { name: 'Cancel this question' }).isVisible());
    assert.equal(await article.locator('.turn').count(), 0, 'the user turn only repeats the question');
    assert.equal(await article.locator('.answer').count(), 0);
  });

  it('shows a processing question with its reasoning turns of any role, ticking elapsed time and a cancel button', async () => {
    const createdAt = T0;
    const panel = await env.open({ clockAt: Date.parse('2030-01-01T00:00:00Z') });
    const processing = processingQuestion(7, {
      turns: [
        { role: 'user', reasoning: 'USER TURN TEXT', time: createdAt },
        turn('Looking for the poller.', 3, 'assistant'),
        turn('Planning the next search.', 5, 'planner'),
      ],
    });
    await panel.send(snapshot(conversation([processing]), { now: createdAt + 65_000 }));
    const article = panel.page.locator('.question[data-question-id="7"]');

    assert.equal(await article.locator('.status-label').textContent(), 'Searching');
    assert.deepEqual(await article.locator('.turn-role').allTextContents(), ['assistant', 'planner']);
    assert.deepEqual(await article.locator('.turn-text').allTextContents(), ['Looking for the poller.', 'Planning the next search.']);
    assert.ok(!(await article.textContent())!.includes('USER TURN TEXT'));
    assert.equal(await article.locator('.elapsed').textContent(), '1m 05s');
    assert.equal(await article.locator('.elapsed').getAttribute('role'), 'timer');

    await panel.page.clock.runFor(2_000);
    assert.equal(await article.locator('.elapsed').textContent(), '1m 07s', 'the elapsed time ticks');

    const cancel = article.getByRole('button', { name: 'Cancel this question' });
    assert.ok(await cancel.isVisible());
    await cancel.click();
    assert.deepEqual(await panel.postedWithoutIds('cancel'), [{ type: 'cancel', questionId: 7 }]);
    assert.ok(await cancel.isDisabled(), 'one click, one cancel request');
    assert.equal(await article.locator('.answer, .stats, .followups').count(), 0);
  });

  it('shows a completed question with its title, answer, sources, stats and follow-ups', async () => {
    const panel = await env.open();
    await panel.send(snapshot(conversation([completedQuestion(1)])));
    const article = panel.page.locator('.question[data-question-id="1"]');

    assert.equal(await article.locator('.status-label').textContent(), 'Answered');
    assert.equal(await article.locator('.answer-title').textContent(), 'How the poller backs off');
    const markdown = article.locator('.answer .markdown');
    assert.equal(await markdown.locator('strong').textContent(), 'backs off');
    assert.equal(await markdown.locator('li').count(), 2);
    assert.equal(await markdown.locator('table tr').count(), 3);
    assert.match((await markdown.locator('pre code').textContent())!, /export function nextInterval/);
    assert.equal(await markdown.locator('.code-language').textContent(), 'ts');
    assert.equal(
      await markdown.locator('a', { hasText: 'poller.ts' }).getAttribute('href'),
      'https://sourcegraph.example.com/github.com/org/repo/-/blob/src/api/poller.ts?L12-30',
    );

    const sources = article.locator('.sources a.source-link');
    assert.deepEqual(await sources.allTextContents(), ['github.com/org/repo', 'src/api/poller.ts']);
    assert.deepEqual(await sources.evaluateAll((links) => links.map((link) => link.getAttribute('href'))), [
      '/github.com/org/repo',
      '/github.com/org/repo/-/blob/src/api/poller.ts',
    ]);

    assert.deepEqual(await article.locator('.stat-value').allTextContents(), ['42s', '7 tool calls', '12.3k tokens', '3 credits']);

    const followups = article.locator('.followups button');
    assert.deepEqual(await followups.allTextContents(), ['How is the interval configured?', 'What happens after a reload?']);
    assert.equal(await article.locator('.elapsed, .cancel-button').count(), 0, 'nothing to cancel once answered');
    assert.equal(await article.locator('details.turns-finished summary').textContent(), 'Reasoning (2 steps)');
  });

  it('shows a 7.x answer of the documented minimal shape (no sources, turns, stats, follow-ups, title) without an empty section', async () => {
    // Through the client's own reading of the wire, as the host would send it.
    const minimal = normalizeConnectConversation({
      name: 'users/~self/conversations/140',
      state: { completed: {} },
      createTime: '2026-08-01T10:00:00Z',
      questions: [
        { input: [{ question: { text: 'Where is the poller?' } }], answer: [{ markdown: { text: 'In `poller.ts`.' } }], createTime: '2026-08-01T10:00:00Z' },
      ],
    });
    const panel = await env.open();
    await panel.send(snapshot(minimal));
    const article = panel.page.locator('.question[data-question-id="1"]');
    assert.equal(await article.locator('.status-label').textContent(), 'Answered');
    assert.equal(await article.locator('.answer .markdown code').textContent(), 'poller.ts');
    assert.equal(await article.locator('.answer-title, .sources, .stats, .followups, details.turns').count(), 0, 'a section with nothing in it');
    // Every section the panel shows has something in it.
    const emptySections = await article
      .locator('section, ul, details')
      .evaluateAll((nodes: Element[]) => nodes.filter((node) => !node.textContent?.trim()).map((node): string => node.className));
    assert.deepEqual(emptySections, []);
    assert.deepEqual(panel.pageErrors, []);
  });

  it('counts down to when a quota lets the user ask again, then says they can', async () => {
    const panel = await env.open({ clockAt: Date.parse('2030-01-01T00:00:00Z') });
    const retryAt = new Date(T0 + 3 * 60_000 + 30_000).toISOString();
    const failed = failedQuestion(4, { error: { kind: 'QuotaExceeded', title: 'Your Deep Search quota is used up', message: 'Quota used.', retryAt } });
    await panel.send(snapshot(conversation([failed]), { now: T0 }));
    const retry = panel.page.locator('.question[data-question-id="4"] .callout-error .callout-retry');
    assert.equal(await retry.textContent(), 'You can ask again in 3m 30s.');
    assert.equal(await retry.getAttribute('role'), 'timer');
    await panel.page.clock.runFor(60_000);
    assert.equal(await retry.textContent(), 'You can ask again in 2m 30s.', 'it counts down');
    await panel.page.clock.runFor(151_000);
    assert.equal(await retry.textContent(), 'You can ask again now.');
    assert.equal(await panel.page.locator('.question[data-question-id="4"] .answer').count(), 0);
  });

  it('shows a failed question as an error with its title, message and kind, never as an answer', async () => {
    const panel = await env.open();
    const failed = failedQuestion(3, { answer: 'SHOULD NOT APPEAR' });
    await panel.send(snapshot(conversation([failed])));
    const article = panel.page.locator('.question[data-question-id="3"]');

    assert.equal(await article.locator('.status-label').textContent(), 'Failed');
    const callout = article.locator('.callout-error');
    assert.equal(await callout.locator('.callout-title').textContent(), 'Token limit exceeded');
    assert.equal(await callout.locator('.callout-message').textContent(), 'The question needed more context than the model allows. Try a narrower question.');
    assert.equal(await callout.locator('.callout-kind').textContent(), 'Error kind: TokenLimitExceeded');
    assert.equal(await article.locator('.answer, .followups, .answer-actions:not(.narrower-actions)').count(), 0, 'no answer, follow-ups or answer actions');
    // Over its token limit, what the instance wrote is its progress summary, and shown as that only.
    const summary = article.getByRole('region', { name: 'What Deep Search found before it stopped' });
    assert.equal(await summary.textContent(), 'What Deep Search found before it stoppedSHOULD NOT APPEAR');

    // Any other failure shows nothing of what the instance wrote as an answer.
    await panel.send(
      snapshot(
        conversation([
          failedQuestion(3, {
            answer: 'SHOULD NOT APPEAR',
            error: { title: 'Internal error', kind: 'InternalError', message: 'Something broke.', details: '' },
          }),
        ]),
      ),
    );
    await article.getByText('Something broke.').waitFor();
    assert.equal(await article.locator('.answer, .markdown, .followups, .progress-summary').count(), 0);
    assert.ok(!(await article.textContent())!.includes('SHOULD NOT APPEAR'));
  });

  it('shows a canceled question as canceled with its message, never its partial answer', async () => {
    const panel = await env.open();
    await panel.send(snapshot(conversation([canceledQuestion(4)])));
    const article = panel.page.locator('.question[data-question-id="4"]');

    assert.equal(await article.locator('.status-label').textContent(), 'Canceled');
    assert.equal(await article.locator('.callout-canceled .callout-title').textContent(), 'The question was canceled');
    assert.equal(await article.locator('.callout-canceled .callout-message').textContent(), 'Canceled by the user.');
    assert.equal(await article.locator('.answer, .markdown, .callout-error').count(), 0);
    assert.ok(!(await article.textContent())!.includes('PARTIAL ANSWER'));
  });

  it('titles the panel after the first question, or its text while it has no title', async () => {
    const panel = await env.open();
    await panel.send(snapshot(conversation([processingQuestion(1, { text: 'Where is the poller?' })])));
    assert.equal(await panel.page.locator('h1.conversation-title').textContent(), 'Where is the poller?');

    const second = await env.open();
    await second.send(snapshot(conversation([completedQuestion(1), processingQuestion(2)])));
    assert.equal(await second.page.locator('h1.conversation-title').textContent(), 'How the poller backs off');
  });

  it('offers share link, browser, export and delete, each posting its action', async () => {
    const panel = await env.open();
    await panel.send(snapshot(conversation([completedQuestion(1)])));
    for (const name of ['Copy share link', 'Open in browser', 'Export as Markdown', 'Delete conversation']) {
      await panel.page.getByRole('button', { name, exact: true }).click();
    }
    assert.deepEqual(await panel.postedOfType('action'), [
      { type: 'action', action: 'copyShareLink' },
      { type: 'action', action: 'openInBrowser' },
      { type: 'action', action: 'export' },
      { type: 'action', action: 'delete' },
    ]);
  });

  it('in a read-only view has no follow-up box, cancel or delete, and says it is read-only', async () => {
    const panel = await env.open();
    await panel.send(snapshot(conversation([completedQuestion(1), processingQuestion(2)], { isOwner: false }), { canEdit: false }));
    const page = panel.page;
    assert.equal(await page.locator('textarea').count(), 0);
    assert.ok(await page.locator('.readonly-note').isVisible());
    assert.ok(await page.locator('.readonly-badge').isVisible());
    assert.equal(await page.getByRole('button', { name: 'Cancel this question' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Delete conversation' }).count(), 0);
    assert.equal(await page.locator('.followup-suggestion:visible').count(), 0);
    assert.ok(await page.getByRole('button', { name: 'Open in browser' }).isVisible());
    assert.ok(await page.locator('.answer .markdown').isVisible(), 'the answer is still readable');
  });
});
