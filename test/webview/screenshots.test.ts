import assert from 'node:assert/strict';
import { mkdirSync, statSync } from 'node:fs';
import { completedQuestion, conversation, failedQuestion, processingQuestion, snapshot, T0 } from './fixtures';
import { SCREENSHOT_DIR, usePanelEnvironment, type Theme } from './panelHarness';

/** Pictures for a human to check the panel looks native; saved under test-results/webview/. */
describe('conversation panel: screenshots', function () {
  this.timeout(60_000);
  const env = usePanelEnvironment();
  before(() => mkdirSync(SCREENSHOT_DIR, { recursive: true }));

  const scenes = {
    processing: conversation([completedQuestion(1), processingQuestion(2, { text: 'And how is the interval configured?' })]),
    completed: conversation([completedQuestion(1)]),
    failed: conversation([failedQuestion(1, { text: 'Summarise every commit of the monorepo since 2015.' })]),
  };

  for (const theme of ['light', 'dark', 'high-contrast'] as Theme[]) {
    it(`saves processing, completed and failed screenshots in the ${theme} theme without errors`, async () => {
      for (const [name, value] of Object.entries(scenes)) {
        const panel = await env.open({ theme, viewport: { width: 760, height: 1000 } });
        await panel.send(snapshot(value, { now: T0 + 83_000 }));
        // The live question is the point of the processing picture; the others start at the top.
        await panel.page.evaluate((bottom) => window.scrollTo(0, bottom ? document.documentElement.scrollHeight : 0), name === 'processing');
        const file = await panel.screenshot(`${name}-${theme}`);
        assert.ok(statSync(file).size > 10_000, `${file} has content`);
        assert.deepEqual(await panel.cspViolations(), []);
        assert.deepEqual(panel.pageErrors, []);
      }
    });
  }
});
