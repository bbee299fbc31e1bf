import assert from 'node:assert/strict';
import { completedQuestion, conversation, processingQuestion, snapshot } from './fixtures';
import { usePanelEnvironment } from './panelHarness';

/** A few of the panel's messages in other words, as `vscode.l10n.bundle` holds them for a display language. */
const BUNDLE: Record<string, string> = {
  'Loading conversation…': 'Unterhaltung wird geladen…',
  Cancel: 'Abbrechen',
  'Cancel this question': 'Diese Frage abbrechen',
  'Ctrl+Enter to send': 'Strg+Eingabe zum Senden',
  Searching: 'Suche läuft',
  'Copy share link': 'Freigabelink kopieren',
  'Reasoning ({0} steps)': 'Überlegungen ({0} Schritte)',
  '{0} tool calls': '{0} Werkzeugaufrufe',
  'Ask: {0}': 'Fragen: {0}',
};

describe('conversation panel: translations', function () {
  this.timeout(30_000);
  const env = usePanelEnvironment();

  it('shows the texts of the bundle the host passes, and English where it has none', async () => {
    const panel = await env.open({ l10nBundle: BUNDLE });
    const page = panel.page;
    assert.equal(await page.locator('.loading').textContent(), 'Unterhaltung wird geladen…');

    await panel.send(snapshot(conversation([completedQuestion(1), processingQuestion(2)])));
    const running = page.locator('[data-question-id="2"]');
    assert.equal(await running.locator('.status-label').textContent(), 'Suche läuft');
    const cancel = running.locator('.cancel-button');
    assert.equal(await cancel.locator('.button-label').textContent(), 'Abbrechen');
    assert.equal(await cancel.getAttribute('aria-label'), 'Diese Frage abbrechen');
    assert.equal(await page.locator('#followup-hint').textContent(), 'Strg+Eingabe zum Senden');
    assert.equal(await page.locator('.action-copyShareLink').getAttribute('aria-label'), 'Freigabelink kopieren');

    // Placeholders are filled in the translated text.
    const answered = page.locator('[data-question-id="1"]');
    assert.equal(await answered.locator('.turns-finished summary').textContent(), 'Überlegungen (2 Schritte)');
    assert.equal(await answered.locator('.stat-toolCalls .stat-value').textContent(), '7 Werkzeugaufrufe');
    assert.equal(await answered.locator('.followup-suggestion').first().getAttribute('aria-label'), 'Fragen: How is the interval configured?');

    // Messages the bundle does not translate stay English.
    assert.equal(await answered.locator('.status-label').textContent(), 'Answered');
    assert.equal(await answered.locator('.stat-tokens .stat-value').textContent(), '12.3k tokens');
    assert.equal(await page.locator('.send-button .button-label').textContent(), 'Send');

    assert.deepEqual(await panel.cspViolations(), []);
    assert.deepEqual(panel.pageErrors, []);
  });

  it('shows markup in a translation as text and runs none of it', async () => {
    const hostile = '</script><script>window.__hostile = ["bundle"]</script><img src=x onerror="window.__hostile = [\'img\']">';
    const panel = await env.open({ l10nBundle: { Cancel: hostile, 'Ctrl+Enter to send': '<b>bold?</b>' } });
    const page = panel.page;
    await panel.send(snapshot(conversation([processingQuestion(1)])));
    assert.equal(await page.locator('.cancel-button .button-label').textContent(), hostile);
    assert.equal(await page.locator('#followup-hint').textContent(), '<b>bold?</b>');
    assert.equal(await page.locator('.followup-hint b, .cancel-button img').count(), 0);
    assert.equal(await page.evaluate(() => window.__hostile), undefined);
    assert.equal(await page.locator('script').count(), 2, 'the bundle block and the panel script, nothing more');
    assert.deepEqual(panel.pageErrors, []);
  });

  it('stays in English when the bundle element is unreadable', async () => {
    const panel = await env.open({ l10nBundle: { Cancel: 'Abbrechen' } });
    const page = panel.page;
    // The same page again, its data block broken on the way: English, and no error.
    let broken = false;
    await page.route('**/panel.html*', async (route) => {
      const response = await route.fetch();
      const body = (await response.text()).replace(/(<script type="application\/json"[^>]*>)[^<]*/, '$1{not json');
      broken = body.includes('{not json</script>');
      await route.fulfill({ response, body });
    });
    await panel.reload();
    assert.ok(broken, 'the reloaded page had the broken bundle');
    assert.equal(await page.locator('.loading').count(), 1);
    await panel.send(snapshot(conversation([processingQuestion(1)])));
    assert.equal(await page.locator('.cancel-button .button-label').textContent(), 'Cancel');
    assert.deepEqual(panel.pageErrors, []);
  });
});
