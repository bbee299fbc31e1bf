import assert from 'node:assert/strict';
import type { Question } from '../../src/model/conversation';
import { conversation, question, snapshot } from './fixtures';
import { usePanelEnvironment } from './panelHarness';

const SUMMARY = '**So far:** settings are read by `parseConfig`.\n\nNext: ask about the server alone.';

function stopped(overrides: Partial<Question>): Question {
  return question(1, {
    text: 'Explain every module',
    state: 'failed',
    error: { title: 'Token limit reached', kind: 'TokenLimitExceeded', message: 'The question needed more tokens than allowed.', details: '' },
    ...overrides,
  });
}

describe('conversation panel: a question stopped at its token limit', function () {
  this.timeout(30_000);
  const env = usePanelEnvironment();

  for (const [where, overrides] of [
    ['its answer (7.x)', { answer: SUMMARY }],
    [
      'its error details (6.x)',
      { error: { title: 'Token limit reached', kind: 'TokenLimitExceeded', message: 'The question needed more tokens than allowed.', details: SUMMARY } },
    ],
  ] as const) {
    it(`shows the progress summary from ${where} as Markdown, once, and offers a narrower question`, async () => {
      const panel = await env.open();
      await panel.send(snapshot(conversation([stopped(overrides)])));
      const summary = panel.page.getByRole('region', { name: 'What Deep Search found before it stopped' });
      assert.equal(await summary.locator('strong').textContent(), 'So far:');
      assert.equal(await summary.locator('code').textContent(), 'parseConfig');
      assert.equal(await panel.page.getByText('Next: ask about the server alone.').count(), 1, 'the summary is not repeated in the callout');
      await panel.page.getByRole('button', { name: 'Ask a Narrower Question' }).click();
      assert.deepEqual(await panel.postedOfType('askNarrower'), [{ type: 'askNarrower', text: 'Explain every module' }]);
    });
  }

  it('offers no narrower question in a read-only (shared) view, and no summary for other failures', async () => {
    const panel = await env.open();
    await panel.send(snapshot(conversation([stopped({ answer: SUMMARY })]), { canEdit: false }));
    await panel.page.getByRole('region', { name: 'What Deep Search found before it stopped' }).waitFor();
    assert.equal(await panel.page.getByRole('button', { name: 'Ask a Narrower Question' }).isVisible(), false);

    await panel.send(
      snapshot(conversation([stopped({ answer: SUMMARY, error: { title: 'Failed', kind: 'InternalError', message: 'Something broke.', details: '' } })])),
    );
    await panel.page.getByText('Something broke.').waitFor();
    assert.equal(await panel.page.getByRole('region', { name: 'What Deep Search found before it stopped' }).count(), 0);
    assert.equal(await panel.page.getByRole('button', { name: 'Ask a Narrower Question' }).count(), 0);
  });
});
