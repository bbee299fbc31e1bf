/**
 * An instance whose `corsOrigin` does not name the page's origin (the engine started without
 * `--cors-origin`): the browser blocks every call of the web build, and the extension says which
 * origin to add, never a bare "Failed to fetch".
 */
import * as assert from 'node:assert/strict';
import { VSCodeWeb, WEB_TEST_TOKEN } from './vscodeWeb';

describe('Deep Search in VS Code for the Web, on an instance that refuses the page (web)', function () {
  this.timeout(180_000);
  let web: VSCodeWeb;

  before(async () => {
    web = await VSCodeWeb.launch({ corsAllowed: false });
  });

  afterEach(async function () {
    await web.screenshotIfFailed(this.currentTest, 'blocked-origin');
  });

  after(async () => {
    await web?.close();
  });

  it('names the origin a site admin adds to corsOrigin when signing in, and stays signed out', async () => {
    const page = new URL(web.origin);
    const refusal = new RegExp(
      `127\\.0\\.0\\.1:${web.engine.port} does not accept requests from ${page.host.replace(/\./g, '\\.')}: ` +
        `a site admin adds the origin ${web.origin.replace(/[.:/]/g, '\\$&')} to \`corsOrigin\``,
    );
    await web.runCommand('Deep Search: Sign In');
    await web.answerInputBox('Deep Search: Sign In (1/2)', web.engine.url);
    // Looking up how the instance signs in (its OAuth discovery) is the first call the browser blocks.
    const lookup = web.toast(/corsOrigin/);
    await lookup.waitFor({ timeout: 30_000 });
    const said = await lookup.innerText();
    assert.match(said, refusal);
    assert.doesNotMatch(said, /Failed to fetch/);
    await web.screenshot('web-blocked-origin');
    // The way that remains, a token, is checked against the instance: refused the same way.
    await web.clickWhenReady(lookup.locator('.monaco-button', { hasText: 'Paste an Access Token' }));
    // Its button closes the notification: what says so next is the token check's.
    await lookup.waitFor({ state: 'detached' });
    await web.answerInputBox('Deep Search: Access Token', WEB_TEST_TOKEN);
    await web.eventually(async () => (await web.notifications(refusal)) === 1, 'the token check to be refused naming corsOrigin');
    assert.equal(await web.notifications(/Could not look up/), 0, 'the refusal is the token check’s');
    assert.equal(await web.notifications(/Failed to fetch/), 0);
    assert.equal(await web.paletteOffers('Deep Search: Sign Out'), false, 'not signed in');
  });
});
