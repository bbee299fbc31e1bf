/**
 * The editor's code tools against tool servers of each MCP revision, in the real VS Code: a server of
 * the 2025 handshake only (as every server before 2026-07-28) and one of the stateless 2026-07-28
 * revision only (a server that dropped the handshake). The extension's client finds out which it is
 * and speaks it; a server of both is what every other UI test runs against.
 */
import * as assert from 'node:assert/strict';
import { VSCodeUi } from './vscodeUi';

for (const toolProtocol of ['2025', '2026'] as const) {
  describe(`Code tools against a tool server of MCP ${toolProtocol === '2025' ? '2025 (the handshake) only' : '2026-07-28 only'} (UI)`, function () {
    this.timeout(180_000);
    let ui: VSCodeUi;
    const methods: string[] = [];

    before(async () => {
      ui = await VSCodeUi.launch({ paceMs: 100, variant: { toolProtocol }, engineLog: (line) => methods.push(line) });
    });

    afterEach(async function () {
      await ui.screenshotIfFailed(this.currentTest, `mcp-${toolProtocol}`);
    });

    after(async () => {
      await ui?.close();
    });

    it('searches code and opens a result of a repository the workspace lacks as a remote document', async () => {
      await ui.runCommand('Deep Search: Search Code…');
      const widget = ui.page.locator('.quick-input-widget', { has: ui.page.locator('.quick-input-title', { hasText: 'Search Code (keywords)' }) });
      await widget.locator('input.input').fill('invoiceLine');
      const row = widget.locator('.quick-input-list .monaco-list-row', { hasText: 'invoice.ts' }).first();
      await row.waitFor({ timeout: 30_000 });
      await ui.clickWhenReady(row);
      // Read through the tool server (read_file), in the revision it speaks.
      await ui.page.locator('.tabs-container .tab.active', { hasText: 'invoice.ts' }).waitFor();
      await ui.page.locator('.view-line', { hasText: 'export function invoiceLine' }).waitFor();
      await ui.screenshot(`mcp-${toolProtocol}-remote-file`);
      const mcp = methods.filter((line) => line.startsWith('POST /.api/mcp'));
      assert.ok(
        mcp.some((line) => line.startsWith('POST /.api/mcp/all 200')),
        mcp.join('\n'),
      );
      if (toolProtocol === '2025') {
        // The client asked for the revision first, was refused, and spoke the handshake.
        assert.ok(
          mcp.some((line) => line.startsWith('POST /.api/mcp/all 400')),
          mcp.join('\n'),
        );
      } else {
        assert.ok(!mcp.some((line) => / 4\d\d /.test(line)), `nothing refused: ${mcp.join('\n')}`);
      }
    });
  });
}
