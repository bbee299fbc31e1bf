/**
 * The local engine investigating with one of VS Code's language models, in the real VS Code: a test
 * extension registers a model provider with scripted replies (test/fixtures/scripted-model-provider:
 * a stand-in for a model, which cannot run here) through VS Code's own API. A model chosen before
 * that VS Code does not offer is said once and the engine answers alone; then the model is chosen
 * from the palette and a question asked from the palette is answered in the panel by the model,
 * through the extension host's broker, with its citations checked by the engine.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { VSCodeUi } from './vscodeUi';

const PROVIDER = path.join(__dirname, '..', 'fixtures', 'scripted-model-provider');

describe('the local engine with a VS Code model (UI)', function () {
  this.timeout(180_000);
  let ui: VSCodeUi;

  before(async () => {
    // A model chosen earlier that VS Code no longer offers.
    ui = await VSCodeUi.launch({ paceMs: 0, signedIn: false, extensions: [PROVIDER], settings: { 'deepSearch.localEngine.model': 'scripted/retired-model' } });
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await ui.screenshot(`failed-model-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}`);
  });

  after(async () => {
    await ui?.close();
  });

  it('says once that the chosen model is not available, and the engine answers on its own', async () => {
    await ui.runCommand('Deep Search: Use Local Engine');
    const warning = ui.page.locator('.notification-list-item', {
      hasText: 'The model "scripted/retired-model" chosen for the local engine is not available in VS Code, so the engine answers on its own.',
    });
    await warning.waitFor({ timeout: 60_000 });
    await ui.screenshot('model-unavailable');
    await ui.runCommand('Deep Search: Ask Deep Search');
    await ui.answerInputBox('Ask Deep Search', 'Where is parseConfig defined?');
    const webview = await ui.webview();
    const answer = webview.locator('.question.is-completed .answer .markdown');
    await answer.waitFor({ timeout: 90_000 });
    const text = await answer.innerText();
    assert.match(text, /How it is reached/);
    assert.doesNotMatch(text, /could not finish/);
    // Said once: the notification center holds one such message after the engine started and answered.
    await ui.runCommand('Notifications: Show Notifications');
    const center = ui.page.locator('.notifications-center');
    await center.waitFor();
    assert.equal(await center.locator('.notification-list-item', { hasText: 'chosen for the local engine is not available' }).count(), 1);
    await ui.page.keyboard.press('Escape');
    await center.waitFor({ state: 'hidden' });
  });

  it('chooses the model from the palette, and the running local engine answers with it in the panel, its citations checked', async () => {
    await ui.runCommand('Deep Search: Choose Model for the Local Engine');
    const pick = ui.page.locator('.quick-input-widget', { has: ui.page.locator('.quick-input-title', { hasText: 'Model for the Local Engine' }) });
    const rows = pick.locator('.monaco-list-row');
    await rows.filter({ hasText: 'Off' }).waitFor();
    await ui.screenshot('model-pick');
    await rows.filter({ hasText: 'Scripted Investigator' }).click();
    await pick.waitFor({ state: 'hidden' });
    // The engine started in the test before learns the new model at once.
    await ui.runCommand('Deep Search: Ask Deep Search');
    await ui.answerInputBox('Ask Deep Search', 'What does retry_with_backoff do?');

    const webview = await ui.webview();
    const answer = webview.locator('.question.is-completed .answer .markdown');
    await answer.waitFor({ timeout: 90_000 });
    await ui.screenshot('model-answer');
    const text = await answer.innerText();
    assert.match(text, /retry_with_backoff is defined in lib\/retry_policy\.py/);
    assert.match(
      text,
      /Citations checked: one link pointed at lines that do not hold what was cited and now points where the code is; one link named a file or lines that do not exist and was removed\./,
    );
    // The model linked lines 40–41; the engine moved the link to the line that holds the quote.
    const repaired = answer.locator('a', { hasText: 'lib/retry_policy.py' });
    assert.match((await repaired.getAttribute('href')) ?? '', /lib\/retry_policy\.py\?L4-4$/);
    // The invented file is text now, not a link.
    assert.equal(await answer.locator('a', { hasText: 'the scheduler' }).count(), 0);
    assert.match(text, /It is helped by the scheduler:/);
    // The model's follow-up question is offered as plain text, and the stats count its tokens and its tool call.
    await webview.locator('button', { hasText: /^Where is retry_with_backoff called\?$/ }).waitFor();
    const outcome = await webview.locator('.question.is-completed').innerText();
    assert.match(outcome, /1 tool call/);
    assert.match(outcome, /\d+ tokens/);
    // Each step of the investigation is a turn of the reasoning.
    await webview.locator('.question.is-completed summary', { hasText: /Reasoning/ }).click();
    const reasoning = await webview.locator('.question.is-completed details').innerText();
    await ui.screenshot('model-reasoning');
    assert.match(reasoning, /Investigating with Scripted Investigator \(scripted\)/);
    assert.match(reasoning, /Searching for retry_with_backoff|Searching for `retry_with_backoff`/);
  });
});
