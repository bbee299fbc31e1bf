/**
 * Activation and the Conversations tree, measured inside the extension host of a real VS Code
 * (bench/host, run by scripts/test-host.mjs on the production bundles bench/run.ts built).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { EngineLoad, HostBenchResults } from '../host/index';
import { kb, ms, spread, type BenchContext, type Figure, type Row } from '../report';
import { median, summarize } from '../stats';

const MB = 1024 * 1024;

async function run(context: BenchContext): Promise<Row[]> {
  const runs: HostBenchResults[] = [];
  const count = context.quick ? 1 : 3;
  for (let index = 0; index < count; index++) {
    const results = path.join(context.scratch, `host-${index}.json`);
    rmSync(results, { force: true });
    context.log(`VS Code run ${index + 1} of ${count} (10,000 conversations on the engine)…`);
    const child = spawnSync(
      process.execPath,
      ['scripts/test-host.mjs', '--suite', 'bench/host', '--results', results, '--no-build', ...(context.quick ? ['--quick'] : [])],
      {
        cwd: context.root,
        encoding: 'utf8',
        timeout: 10 * 60_000,
      },
    );
    if (child.status !== 0) throw new Error(`the host benchmark failed (exit ${child.status}):\n${(child.stdout + child.stderr).slice(-3000)}`);
    runs.push(JSON.parse(readFileSync(results, 'utf8')) as HostBenchResults);
  }

  const activation = summarize(runs.map((result) => result.activation.ms));
  const first = runs[0];
  const pathBytes = first.activation.loaded.reduce((sum, file) => sum + file.bytes, 0);
  const loadedNames = first.activation.loaded.map((file) => file.file);
  const onlyActivation = loadedNames.length === 1 && loadedNames[0] === path.join('dist', 'extension.js');
  // Signing in checks both interfaces: the network code and the MCP SDK load then, not at activation.
  const networkOnSignIn = first.activation.afterSignIn.includes(path.join('dist', 'network.js'));
  const mcpOnSignIn = first.activation.afterSignIn.includes(path.join('dist', 'mcp.js'));

  const firstPage = summarize(runs.flatMap((result) => result.tree.firstPageMs));
  const growth = runs.map((result) => result.tree.heapAfter - result.tree.heapMiddle);
  const total = runs.map((result) => result.tree.heapAfter - result.tree.heapBefore);
  const unbounded = runs.flatMap((result) => (result.tree.unboundedHeapAfter === undefined ? [] : [result.tree.unboundedHeapAfter - result.tree.heapAfter]));
  const mb = (bytes: number) => `${(bytes / MB).toFixed(2)} MB`;

  const own = runs.map((result) => result.engineLoad.ownProcess);
  const inHost = runs.map((result) => result.engineLoad.inExtensionHost);
  const loadLabel = 'local engine answering 6 questions and 24 searches over 20,000 files (index built meanwhile)';
  const allAnswered = [...own, ...inHost].every((load) => load.answered === 6);
  const describeLoad = (loads: EngineLoad[]) =>
    `+${median(loads.map((load) => load.peakRssGrowthMb)).toFixed(0)} MB RSS, event-loop delay p99 ` +
    `${ms(median(loads.map((load) => load.eventLoopDelayP99Ms)))} (max ` +
    `${ms(median(loads.map((load) => load.eventLoopDelayMaxMs)))})`;

  return [
    {
      figure: `extension host while the ${loadLabel}`,
      measured: `engine in its own process: ${describeLoad(own)}`,
      baseline: `engine in the extension host (as before): ${describeLoad(inHost)}`,
      goal: '≤ 50 MB growth, delay p99 ≤ 50 ms; all answered',
      met: allAnswered && median(own.map((load) => load.peakRssGrowthMb)) <= 50 && median(own.map((load) => load.eventLoopDelayP99Ms)) <= 50,
      data: { ownProcess: own, inExtensionHost: inHost },
    },
    {
      figure: 'activation: time in activate()',
      measured: spread(activation),
      baseline: '—',
      goal: '≤ 15 ms',
      met: activation.median <= 15,
      data: { samples: runs.map((result) => result.activation.ms) },
    },
    {
      figure: 'activation: code loaded by activate()',
      measured: `${kb(pathBytes)} (${loadedNames.join(', ')})`,
      baseline: '—',
      goal: '≤ 150 KB',
      met: pathBytes <= 150 * 1024,
      data: { loaded: first.activation.loaded },
    },
    {
      figure: 'activation: HTTP, MCP and Markdown loaded when first needed',
      measured:
        `activate: ${onlyActivation ? 'extension.js only' : loadedNames.join(', ')}; sign-in (both interfaces checked): ` +
        `${networkOnSignIn && mcpOnSignIn ? '+ network.js, mcp.js' : first.activation.afterSignIn.join(', ')}; Markdown: webview ` +
        `only`,
      baseline: '—',
      goal: 'none at activation; each when connecting',
      met: onlyActivation && networkOnSignIn && mcpOnSignIn,
      data: { afterSignIn: first.activation.afterSignIn, afterToolCall: first.activation.afterToolCall },
    },
    {
      figure: `tree: first page of ${first.tree.seeded.toLocaleString('en')} conversations`,
      measured: spread(firstPage),
      baseline: '—',
      goal: '≤ 300 ms',
      met: firstPage.median <= 300,
      data: { samples: runs.map((result) => result.tree.firstPageMs) },
    },
    {
      figure: `tree: host heap while scrolling ${first.tree.pages} pages (second half)`,
      measured: `${mb(median(growth))} (whole walk ${mb(median(total))}, ${first.tree.listedAtEnd} kept)`,
      baseline: unbounded.length > 0 ? `${mb(median(unbounded))} more when every page is kept` : 'every page kept: full run only',
      goal: 'no growth (≤ 1 MB)',
      met: median(growth) <= MB,
      data: { runs: runs.map((result) => result.tree) },
    },
  ];
}

export const hostFigure: Figure = { id: 'host', title: 'Activation and tree in the real VS Code', run };
