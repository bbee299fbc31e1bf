// Runs test/host/*.test.ts inside the extension host of a real VS Code (code-server + Chromium):
// builds the extension and the tests, creates the workspace, opens VS Code with the development
// payload and exits with the tests' exit code. Usage: node scripts/test-host.mjs [--grep <text>]
// `--suite <folder>` runs another suite laid out the same way (index.ts, fixtures.ts): the host
// benchmarks in bench/host; `--results <file>` and `--quick` are passed on to it in its options.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { format } from 'node:util';
import * as esbuild from 'esbuild';
import { chromium } from 'playwright-core';
import { chromiumArgs, freePort, newRunFolder, root, startVSCodeServer } from './vscodeServer.mjs';

const argument = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const grep = argument('--grep') ?? '';
const suite = join(root, argument('--suite') ?? join('test', 'host'));
const results = argument('--results');

run(spawnSync('bash', [join(root, 'scripts', 'setup-vscode.sh')], { stdio: 'inherit' }), 'setting up VS Code');
// `--no-build`: test the bundles already in dist/ (the benchmarks build production ones first;
// `npm test` has built them a few steps before).
if (!process.argv.includes('--no-build')) run(spawnSync(process.execPath, [join(root, 'esbuild.mjs')], { cwd: root, stdio: 'inherit' }), 'building');

const outDir = join(root, 'out', relative(root, suite).replace(/[\\/]/g, '-'));
await esbuild.build({
  entryPoints: {
    index: join(suite, 'index.ts'),
    fixtures: join(suite, 'fixtures.ts'),
    // The fixtures bundle holds the engine, which starts these as threads and a process of their own
    // from beside its bundle (ENTRY_MODULES of src/engine/runtime/entryPoints.ts).
    searchWorkerThread: join(root, 'src', 'engine', 'search', 'searchWorkerThread.ts'),
    regexWorkerThread: join(root, 'src', 'engine', 'search', 'regexWorkerThread.ts'),
    processLauncherChild: join(root, 'src', 'engine', 'git', 'processLauncherChild.ts'),
  },
  bundle: true,
  outdir: outDir,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: 'inline',
  external: ['vscode', 'mocha'],
  logLevel: 'warning',
});
const fixtures = createRequire(import.meta.url)(join(outDir, 'fixtures.js'));

const runDir = newRunFolder('host');
const workspace = join(runDir, 'workspace');
mkdirSync(workspace, { recursive: true });
await fixtures.prepareWorkspace(workspace);
// The engines run here, outside VS Code, so that they outlive the window reload under test.
const { engines, options } = await fixtures.startHostTestEngines(runDir, workspace);
writeFileSync(join(runDir, 'test-options.json'), JSON.stringify({ ...options, grep, results, quick: process.argv.includes('--quick') }));

const port = await freePort();
const server = await startVSCodeServer({
  runDir,
  port,
  smokeTestDriver: true,
  env: { DEEP_SEARCH_TEST_OPTIONS: join(runDir, 'test-options.json') },
});
let exitCode = 1;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: chromiumArgs });
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const remote = (path) => `vscode-remote://127.0.0.1:${port}${path}`;
  const payload = JSON.stringify([
    ['extensionDevelopmentPath', remote(root)],
    ['extensionTestsPath', remote(join(outDir, 'index.js'))],
    ['skipWelcome', 'true'],
  ]);
  let finish;
  const finished = new Promise((resolve) => (finish = resolve));
  // VS Code forwards the extension host's console and its own messages here: print the test
  // reporter's lines, not the workbench's chatter (it stays in the run folder's logs).
  const workbenchChatter = /^(\[|Resolving connection|Resolved connection|Creating a socket|Updating additional)/;
  await page.exposeFunction('codeAutomationLog', (type, args) => {
    const line = format(...(args ?? []));
    if (type === 'info' && !workbenchChatter.test(line)) console.log(line);
  });
  await page.exposeFunction('codeAutomationExit', (code) => finish(code));
  await page.goto(`${server.url}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(payload)}`);
  const timeout = new Promise((resolve) => setTimeout(() => resolve('timeout'), 20 * 60_000));
  const result = await Promise.race([finished, timeout]);
  await page.screenshot({ path: join(runDir, 'final.png') }).catch(() => {});
  if (result === 'timeout') console.error('Host tests did not finish within 20 minutes.');
  exitCode = result === 0 ? 0 : 1;
} finally {
  await browser.close();
  server.stop();
  await Promise.all(engines.map((engine) => engine.close()));
}
console.log(`Host tests ${exitCode === 0 ? 'passed' : 'FAILED'}; server log and screenshot in ${runDir}`);
process.exit(exitCode);

function run(result, what) {
  if (result.status !== 0) {
    console.error(`Failed while ${what}.`);
    process.exit(result.status ?? 1);
  }
}
