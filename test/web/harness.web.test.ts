/**
 * The web harness itself, with a minimal web extension (test/fixtures/web-probe-extension): VS Code
 * for the Web runs it in the web-worker extension host, and its `fetch` from there reaches the
 * engine that `--cors-origin` lets the page call. (A page the engine does not name is blocked:
 * blockedOrigin.web.test.ts, with the extension itself.)
 */
import * as path from 'node:path';
import { VSCodeWeb, WEB_TEST_TOKEN } from './vscodeWeb';

const PROBE = path.join(__dirname, '..', 'fixtures', 'web-probe-extension');

function probeSettings(engineUrl: string): Record<string, unknown> {
  return { 'webProbe.instanceUrl': engineUrl, 'webProbe.token': WEB_TEST_TOKEN };
}

/** The probe's status bar item, once it says `what`. */
async function probeSays(web: VSCodeWeb, what: RegExp): Promise<string> {
  const item = web.page.locator('.statusbar-item', { hasText: /^\s*web-probe: / });
  await web.eventually(async () => what.test((await item.allInnerTexts()).join('\n')), `the probe to say ${what}`, 30_000);
  return (await item.allInnerTexts()).join('\n');
}

describe('web harness: VS Code for the Web with a web extension', function () {
  it('runs the extension in the web-worker extension host, whose fetch reaches the engine through --cors-origin', async function () {
    const web = await VSCodeWeb.launch({ extensionPath: PROBE, settings: probeSettings });
    try {
      await probeSays(web, /active in a web worker/);
      // The workspace is the repository the harness made, mounted.
      await web.page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'README.md' }).first().waitFor();
      await web.runCommand('Web Probe: List Conversations');
      await probeSays(web, /listed 200 0 conversations/);
      await web.screenshot('harness-cors-allowed');
    } finally {
      await web.close();
    }
  });
});
