/**
 * `@deepsearch` in VS Code's real Chat view. The view sends nothing without a language model, and
 * none can run here: a test extension registers a model provider with scripted replies
 * (test/fixtures/scripted-model-provider) through VS Code's own API, so the view works as it does
 * with Copilot; the participant's answer comes from the engine.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { VSCodeUi } from './vscodeUi';

const PROVIDER = path.join(__dirname, '..', 'fixtures', 'scripted-model-provider');

describe('@deepsearch in the Chat view (UI)', function () {
  this.timeout(180_000);
  let ui: VSCodeUi;

  before(async () => {
    ui = await VSCodeUi.launch({ paceMs: 50, extensions: [PROVIDER] });
  });

  afterEach(async function () {
    await ui.screenshotIfFailed(this.currentTest, 'chat');
  });

  after(async () => {
    await ui?.close();
  });

  it('answers a question typed to @deepsearch in the Chat view, with its sources, and opens a link of the answer in an editor', async () => {
    await ui.runCommand('Chat: Open Chat');
    const input = ui.page.locator('.interactive-input-part .monaco-editor').first();
    await input.waitFor();
    // The view sends only once its model picker shows a model (here the scripted one).
    await ui.page.locator('.interactive-input-part', { hasText: 'Scripted Investigator' }).first().waitFor({ timeout: 60_000 });
    await ui.screenshot('chat-open');
    await input.click();
    await ui.page.keyboard.type('@deepsearch Where is parseConfig defined?');
    await ui.page.keyboard.press('Enter');
    const response = ui.page.locator('.interactive-response').last();
    await response
      .locator('a', { hasText: /src\/config\.ts/ })
      .first()
      .waitFor({ timeout: 90_000 });
    await ui.screenshot('chat-answer');
    const text = await response.innerText();
    assert.match(text, /parseConfig/);
    assert.match(text, /Sources/);
    // A link of the answer opens the workspace's own file in an editor.
    await response
      .locator('a', { hasText: /^src\/config\.ts:18$/ })
      .first()
      .click();
    await ui.page.locator('.tabs-container .tab.active', { hasText: 'config.ts' }).waitFor();
    await ui.screenshot('chat-link-opened');
  });
});
