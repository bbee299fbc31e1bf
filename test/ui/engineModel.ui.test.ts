/**
 * The local engine investigating with one of VS Code's language models, in the real VS Code: a test
 * extension registers a model provider with scripted replies (test/fixtures/scripted-model-provider:
 * a stand-in for a model, which cannot run here) through VS Code's own API. A model chosen before
 * that VS Code does not offer is said once and the engine answers alone; then the model is chosen
 * from the palette and a question asked from the palette is answered in the panel by the model,
 * through the extension host's broker, with its citations checked by the engine. A model that fails
 * (each way VS Code's providers fail) is named in the answer's note, with the engine's own answer;
 * cancelling a question cancels the provider's request.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { Locator } from 'playwright-core';
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
    await ui.screenshotIfFailed(this.currentTest, 'model');
  });

  after(async () => {
    await ui?.close();
  });

  /** Waits until the question's article says it is answered. */
  async function completed(question: Locator): Promise<void> {
    const done = async () => ((await question.getAttribute('class')) ?? '').split(/\s+/).includes('is-completed');
    await ui.eventually(done, 'the question to be answered', 90_000);
  }

  it('says once that the chosen model is not available, and the engine answers on its own', async () => {
    await ui.runCommand('Deep Search: Use Local Engine');
    const warning = ui.page.locator('.notification-list-item', {
      hasText: 'The model "scripted/retired-model" chosen for the local engine is not available in VS Code, so the engine answers on its own.',
    });
    await warning.waitFor({ timeout: 60_000 });
    await ui.screenshot('model-unavailable');
    await ui.runCommand('Deep Search: Ask Deep Search');
    await ui.answerInputBox('Ask Deep Search', 'Where is parseConfig defined?');
    // This question's article, whichever panel shows it.
    const question = await ui.questionInPanel('Where is parseConfig defined?', 90_000);
    await completed(question);
    const answer = question.locator('.answer .markdown');
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
    await ui.runCommand('Deep Search: Use Local Engine');
    await ui.runCommand('Deep Search: Choose Model for the Local Engine');
    const pick = ui.page.locator('.quick-input-widget', { has: ui.page.locator('.quick-input-title', { hasText: 'Model for the Local Engine' }) });
    const rows = pick.locator('.monaco-list-row');
    await rows.filter({ hasText: 'Off' }).waitFor();
    await ui.screenshot('model-pick');
    await ui.clickWhenReady(rows.filter({ hasText: 'Scripted Investigator' }));
    await pick.waitFor({ state: 'hidden' });
    // The running engine learns the new model at once.
    await ui.runCommand('Deep Search: Ask Deep Search');
    await ui.answerInputBox('Ask Deep Search', 'What does retry_with_backoff do?');

    // This question's article: a panel of a question asked before may be open beside it.
    const question = await ui.questionInPanel('What does retry_with_backoff do?', 90_000);
    await completed(question);
    const answer = question.locator('.answer .markdown');
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
    await question.locator('button', { hasText: /^Where is retry_with_backoff called\?$/ }).waitFor();
    const outcome = await question.innerText();
    assert.match(outcome, /1 tool call/);
    assert.match(outcome, /\d+ tokens/);
    // Each step of the investigation is a turn of the reasoning.
    await ui.clickWhenReady(question.locator('summary', { hasText: /Reasoning/ }));
    const reasoning = await question.locator('details').innerText();
    await ui.screenshot('model-reasoning');
    assert.match(reasoning, /Investigating with Scripted Investigator \(scripted\)/);
    assert.match(reasoning, /Searching for retry_with_backoff|Searching for `retry_with_backoff`/);
  });
});

describe('the local engine with a VS Code model that fails (UI)', function () {
  this.timeout(180_000);
  const LABEL = 'Scripted Investigator (scripted)';
  let ui: VSCodeUi;

  before(async () => {
    ui = await VSCodeUi.launch({ paceMs: 0, signedIn: false, extensions: [PROVIDER], settings: { 'deepSearch.localEngine.model': 'scripted/investigator' } });
    await ui.runCommand('Deep Search: Use Local Engine');
    // Connected once the palette offers to sign out (before that, Ask would ask how to connect).
    await ui.eventually(() => ui.paletteOffers('Deep Search: Sign Out'), 'the local engine to be connected', 90_000);
  });

  afterEach(async function () {
    await ui.screenshotIfFailed(this.currentTest, 'model-fails');
  });

  after(async () => {
    await ui?.close();
  });

  /** Asks from the palette; the question's article in the panel that shows it. */
  async function ask(question: string): Promise<Locator> {
    await ui.runCommand('Deep Search: Ask Deep Search');
    await ui.answerInputBox('Ask Deep Search', question);
    return ui.questionInPanel(question);
  }

  /** The answer's note (its first line, quoted) once the engine has answered on its own; the answer checked to be the engine's. */
  async function noteOfAnswer(question: Locator): Promise<string> {
    const answer = question.locator('.answer .markdown');
    await answer.waitFor({ timeout: 90_000 });
    const text = await answer.innerText();
    // The engine's own answer follows the note.
    assert.match(text, /How it is reached/);
    const note = answer.locator('blockquote').first();
    await note.scrollIntoViewIfNeeded();
    return (await note.innerText()).trim();
  }

  const failures: Array<{ mode: string; why: string }> = [
    {
      mode: 'no-permissions',
      why: 'Deep Search may not use this model: allow it when VS Code asks (or in the Language Models settings), or choose another model',
    },
    {
      mode: 'blocked',
      why: 'the model’s provider blocked the request (Requests from this extension are blocked by the scripted provider’s policy): choose another model',
    },
    { mode: 'not-found', why: 'this model is no longer available in VS Code: choose another model' },
    {
      mode: 'quota',
      why:
        'this model has reached its usage limit (Request failed with status 429 Too Many Requests: you have exceeded your monthly quota. ' +
        'Request headers: Authorization: [redacted] api_key=[redacted]): wait, or choose another model',
    },
    { mode: 'mid-stream', why: 'the model’s provider failed (The connection to the scripted model broke in the middle of its reply)' },
    { mode: 'flood', why: 'the model’s reply ran past 512 KB, so Deep Search stopped it' },
    { mode: 'tool-flood', why: 'the model asked for more than 64 tool calls at once, so Deep Search stopped it' },
  ];
  for (const { mode, why } of failures) {
    it(`says in the answer's note that the model failed (${mode}), and the engine answers on its own`, async () => {
      const question = await ask(`[fail:${mode}] Where is parseConfig defined?`);
      const note = await noteOfAnswer(question);
      await ui.screenshot(`model-fails-${mode}`);
      assert.equal(note, `${LABEL} could not finish this answer: ${why}. This is the engine's own answer, from its search.`);
      // Nothing the provider echoed of its request's credentials reaches the panel.
      const shown = await question.innerText();
      assert.doesNotMatch(shown, /sk-scripted|scripted-secret-key/);
      if (mode === 'flood') {
        // The host stopped reading and cancelled the provider's request: the flood stopped long before its own 20 MB bound.
        await ui.eventually(() => ui.notified(/Scripted provider: the flood was cancelled after \d+ KB\./), 'the flood to be cancelled');
        assert.equal(await ui.notified(/the flood ran to its end/), false);
      }
    });
  }

  it("cancels the provider's request when the question is cancelled in the panel", async () => {
    const question = await ask('[hang] Where is parseConfig defined?');
    // The request reached the provider (it says so), and the question waits on it.
    await ui.eventually(() => ui.notified(/Scripted provider: a request hangs until it is cancelled\./), 'the request to reach the provider');
    // The click is taken once the button says it is cancelling (a hover over the panel may swallow one).
    const cancel = question.locator('.cancel-button');
    const canceled = question.locator('.status-label', { hasText: /^Canceled$/ });
    await ui.eventually(async () => {
      if ((await canceled.count()) > 0 || (await cancel.isDisabled().catch(() => true))) return true;
      await cancel.click({ timeout: 5000 }).catch(() => undefined);
      return false;
    }, 'the Cancel button to take the click');
    await canceled.waitFor({ timeout: 30_000 });
    await ui.eventually(() => ui.notified(/Scripted provider: the hanging request was cancelled\./), "the cancel to reach the provider's request");
    await ui.screenshot('model-cancelled');
  });
});
