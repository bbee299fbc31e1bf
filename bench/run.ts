/**
 * `npm run bench [-- --quick] [-- --only <id>[,<id>…]]`: measures every figure of the performance
 * goals on this machine, prints one Markdown table and writes the same rows as JSON to
 * `.bench/results/` (git-ignored). Exits 1 when a figure misses its goal.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import path from 'node:path';
import { figures } from './figures';
import { table, type BenchContext, type Figure, type Row } from './report';

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const quick = args.includes('--quick');
  const onlyIndex = args.indexOf('--only');
  const only = onlyIndex >= 0 ? (args[onlyIndex + 1] ?? '').split(',').filter(Boolean) : undefined;
  const unknown = only?.filter((id) => !figures.some((figure) => figure.id === id)) ?? [];
  if (unknown.length > 0) {
    console.error(`Unknown figure ${unknown.join(', ')}; known: ${figures.map((figure) => figure.id).join(', ')}.`);
    return 2;
  }
  const root = path.resolve(__dirname, '..');
  const scratch = path.join(root, '.bench', 'run');
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const context: BenchContext = { quick, root, scratch, log: (line) => console.error(`  ${line}`) };

  const started = Date.now();
  // Every figure measures what ships: minified bundles, no source maps.
  execFileSync(process.execPath, ['esbuild.mjs', '--production'], { cwd: root, stdio: 'inherit' });
  const measure = async (figure: Figure) => {
    console.error(`${figure.title}…`);
    const figureStarted = Date.now();
    let rows: Row[];
    try {
      rows = await figure.run(context);
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      console.error(message);
      rows = [{ figure: figure.title, measured: `failed: ${message.split('\n')[0]}`, baseline: '—', goal: '—', met: false }];
    }
    return { id: figure.id, title: figure.title, seconds: (Date.now() - figureStarted) / 1000, rows };
  };
  const selected = figures.filter((candidate) => !only || only.includes(candidate.id));
  const alongside = selected.filter((figure) => figure.alongside).map(measure);
  const results: Awaited<ReturnType<typeof measure>>[] = [];
  for (const figure of selected.filter((candidate) => !candidate.alongside)) results.push(await measure(figure));
  results.push(...(await Promise.all(alongside)));
  results.sort((a, b) => selected.findIndex((figure) => figure.id === a.id) - selected.findIndex((figure) => figure.id === b.id));
  const rows = results.flatMap((result) => result.rows);
  const seconds = (Date.now() - started) / 1000;
  console.log(`\n${table(rows)}\n`);
  console.log(`${quick ? 'Quick run' : 'Run'} took ${seconds.toFixed(0)} s on ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB.`);

  const out = path.join(root, '.bench', 'results');
  mkdirSync(out, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const json = JSON.stringify(
    { date: new Date().toISOString(), quick, seconds, machine: { cores: cpus().length, memory: totalmem(), node: process.version }, figures: results },
    null,
    2,
  );
  writeFileSync(path.join(out, `${stamp}.json`), json);
  writeFileSync(path.join(out, 'latest.json'), json);
  console.log(`Results: .bench/results/${stamp}.json`);
  const missed = rows.filter((row) => row.met === false);
  if (missed.length > 0) console.log(`${missed.length} figure(s) missed the goal.`);
  return missed.length > 0 ? 1 : 0;
}

// A run whose event loop empties before main() settles was left waiting on something that holds
// nothing open (a close awaiting an unreferenced helper): it must fail, not end with status 0 and
// half its figures silently missing.
process.once('beforeExit', () => {
  console.error('The bench stopped before it finished: a step waited on something that keeps nothing running (nothing was measured after it).');
  process.exit(1);
});

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
