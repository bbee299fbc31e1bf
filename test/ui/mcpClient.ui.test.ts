/**
 * VS Code's own MCP client (the agent's) against the engine's tool server, in the real VS Code: the
 * Deep Search server the extension defines is started from "MCP: List Servers", lists its tools, and
 * a tool is called through VS Code's client. The call is made by a test extension's command
 * (test/fixtures/scripted-model-provider) through `vscode.lm.invokeTool`, as the agent would make it:
 * the agent itself needs a Copilot sign-in this machine cannot give.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { Locator } from 'playwright-core';
import { VSCodeUi } from './vscodeUi';

const FIXTURE = path.join(__dirname, '..', 'fixtures', 'scripted-model-provider');

describe("VS Code's own MCP client and the engine's tools (UI)", function () {
  this.timeout(180_000);
  let ui: VSCodeUi;
  const served: string[] = [];

  before(async () => {
    ui = await VSCodeUi.launch({ paceMs: 50, extensions: [FIXTURE], engineLog: (line) => served.push(line) });
  });

  afterEach(async function () {
    await ui.screenshotIfFailed(this.currentTest, 'mcp-client');
  });

  after(async () => {
    await ui?.close();
  });

  /** "MCP: List Servers", opened until it lists the Deep Search server; its row. */
  async function listedServer(): Promise<Locator> {
    // The extension defines the server once it has signed in (at start, from the launch token); the
    // list shows what was defined when it opened, so it is opened again until the server is there.
    const servers = ui.page.locator('.quick-input-list .monaco-list-row', { hasText: 'Deep Search' }).first();
    for (let attempt = 1; ; attempt++) {
      const opened = await ui.runCommand('MCP: List Servers').then(
        () => true,
        () => false,
      );
      if (
        opened &&
        (await servers.waitFor({ timeout: 5000 }).then(
          () => true,
          () => false,
        ))
      )
        return servers;
      if (attempt === 8) throw new Error('MCP: List Servers never listed Deep Search');
      await ui.page.keyboard.press('Escape');
      await ui.page.waitForTimeout(1000);
    }
  }

  /** Starts the server from its row; the server's output once VS Code's client has listed its tools. */
  async function startServer(servers: Locator): Promise<string> {
    await ui.clickWhenReady(servers);
    await ui.clickWhenReady(ui.page.locator('.quick-input-list .monaco-list-row', { hasText: 'Start Server' }).first());
    // The server's output (VS Code shows it as the server starts) says what VS Code's client found there.
    const output = ui.page.locator('.view-lines', { hasText: /Discovered\s+\d+\s+tools/ }).first();
    await output.waitFor({ timeout: 30_000 });
    return output.innerText();
  }

  it('starts the Deep Search server from MCP: List Servers and lists its tools', async () => {
    const servers = await listedServer();
    assert.match(await servers.innerText(), /Stopped/);
    const log = await startServer(servers);
    assert.match(log, /Connection\s+state:\s+Running/);
    const discovered = Number(/Discovered\s+(\d+)\s+tools/.exec(log)?.[1]);
    assert.ok(discovered >= 10, `tools listed: ${discovered}`);
    await ui.screenshot('mcp-client-started');
  });

  it("calls a tool of the engine through VS Code's MCP client", async () => {
    // Its own server, whether or not the test before started it.
    const servers = await listedServer();
    if (/Running/.test(await servers.innerText())) await ui.page.keyboard.press('Escape');
    else await startServer(servers);
    const before = served.length;
    await ui.runCommand("Scripted: Read a File Through VS Code's MCP Client");
    const note = ui.page.locator('.notification-list-item', { hasText: 'Through MCP' });
    await note.waitFor({ timeout: 30_000 });
    const text = await note.innerText();
    assert.match(text, /read_file/);
    assert.match(text, /11: export function parseConfig/);
    assert.ok(
      served.slice(before).some((line) => line.startsWith('POST /.api/mcp/all 200')),
      served.slice(before).join('\n'),
    );
    await ui.screenshot('mcp-client-called');
  });
});
