/**
 * The local engine investigating with one of VS Code's language models, in the real VS Code: a test
 * extension registers a model provider with scripted replies (test/fixtures/scripted-model-provider:
 * a stand-in for a model, which cannot run here) through VS Code's own API; the model is chosen
 * from the palette, the engine is started with "Use Local Engine", and a question asked from the
 * palette is answered in the panel by the model, through the extension host's broker, with its
 * citations checked by the engine.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { VSCodeUi } from './vscodeUi';

const PROVIDER = path.join(__dirname, '..', 'fixtures', 'scripted-model-provider');

describe("the local engine with a VS Code model (UI)", function () {
  this.timeout(180_000);
  let ui: VSCodeUi;

  before(async () => {
    ui = await VSCodeUi.launch({ paceMs: 0, signedIn: false, extensions: [PROVIDER] });
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await ui.screenshot(`failed-model-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}`);
  });

  after(async () => {
    await ui?.close();
  });

  it('chooses the model from the palette, and the local engine answers with it in the panel, its citations checked', async () => {
    await ui.runCommand('Deep Search: Choose Model for the Local Engine');
    const pick = ui.page.locator('.quick-input-widget', { has: ui.page.locator('.quick-input-title', { hasText: 'Model for the Local Engine' }) });
    const rows = pick.locator('.monaco-list-row');
    await rows.filter({ hasText: 'Off' }).waitFor();
    await ui.screenshot('model-pick');
    await rows.filter({ hasText: 'Scripted Investigator' }).click();
    await pick.waitFor({ state: 'hidden' });

    await ui.runCommand('Deep Search: Use Local Engine');
    // Signed in to the local engine: the Conversations view offers Ask.
    await ui.runCommand('Deep Search: Focus on Conversations View');
    await ui.page.locator('.monaco-list-row, .welcome-view-content').first().waitFor();
    await ui.runCommand('Deep Search: Ask Deep Search');
    await ui.answerInputBox('Ask Deep Search', 'What does retry_with_backoff do?');

    const webview = await ui.webview();
    const answer = webview.locator('.question.is-completed .answer .markdown');
    await answer.waitFor({ timeout: 90_000 });
    await ui.screenshot('model-answer');
    const text = await answer.innerText();
    assert.match(text, /retry_with_backoff is defined in lib\/retry_policy\.py/);
    assert.match(text, /Citations checked: one link pointed at lines that do not hold what was cited and now points where the code is; one link named a file or lines that do not exist and was removed\./);
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
    assert.match(reasoning, /Investigating with Scripted Investigator \(scripted\)/);
    assert.match(reasoning, /Searching for retry_with_backoff|Searching for `retry_with_backoff`/);
  });
});
