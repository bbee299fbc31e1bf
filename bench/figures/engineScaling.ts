/**
 * Figure "engine search as it grows": `sg_keyword_search` through the extension's own MCP client
 * over HTTP, on the search corpus (about 20,000 files, 120 MB) served once, twice and four times
 * (copies of it as separate repositories, one engine serving them all: the bundled engine in a
 * process of its own, given VS Code's ripgrep, as the extension runs it), with every index ready,
 * against the tools a user would pick instead, in the same run, over the very same files:
 *  - ripgrep over the working trees (`--hidden --no-ignore`, `.git` left out, so that it reads the
 *    files git has; all its threads), printing every matching line as it does;
 *  - `git grep` over each repository's commit, one after another (what the engine runs without
 *    its index).
 * Query shapes: a rare and a common literal, a case-sensitive one, a regular expression with
 * classes, an alternation, an AND of two terms (for ripgrep: the files of one, then the other in
 * those) and a `file:` filter. Every query must find the same number of files in all three, and
 * every file the engine shows must be one ripgrep found. Goals (ratio of medians to ripgrep):
 * ≤ 0.5 at 1×, ≤ 1.0 at 4×. Also per size: what the engine process's memory grew by from after a
 * first search (of the commit by its id, which builds no index) to every index built, against the
 * text indexed (≤ 1.5); and at 4× with an index budget of a quarter of the text (so the engine
 * reads three quarters of the tree per search, with ripgrep): no cliff, at most ripgrep's time.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { ToolClient } from '../../src/api/tools/toolClient';
import { runGit } from '../../src/engine/git/git';
import { startEngineProcess, type EngineProcess } from '../engineProcess';
import { ratio, spread, type BenchContext, type Figure, type Row } from '../report';
import { median, summarize } from '../stats';
import { benchRipgrep, corpusCopies, ensureCorpus } from './searchCorpus';

const run = promisify(execFile);
const TOKEN = 'dse_bench_scaling_token';
const SCALES = [1, 2, 4] as const;
/** The memory is steady once it has fallen by less than 1% over this long (at most STEADY_MAX_MS after the builds). */
const STEADY_WINDOW_MS = 5_000;
const STEADY_MAX_MS = 40_000;

interface Shape {
  name: string;
  /** The engine's query. */
  query: string;
  /** git grep's arguments before `<commit> --`, and ripgrep's before the folders. */
  grep: string[];
  rg: string[];
  /** An AND: the files of `rg` are then searched for this (ripgrep's arguments), and git grep's `--and`-free files are intersected. */
  and?: { grep: string[]; rg: string[] };
}

const SHAPES: readonly Shape[] = [
  { name: 'rare literal `mergeMap`', query: 'mergeMap', grep: ['-F', '-i', '-e', 'mergeMap'], rg: ['-F', '-i', '-e', 'mergeMap'] },
  { name: 'common literal `function`', query: 'function', grep: ['-F', '-i', '-e', 'function'], rg: ['-F', '-i', '-e', 'function'] },
  { name: 'case-sensitive `Observable`', query: 'case:yes Observable', grep: ['-F', '-e', 'Observable'], rg: ['-F', '-s', '-e', 'Observable'] },
  {
    name: 'regex `/function\\s+\\w+Sync\\(/`',
    query: '/function\\s+\\w+Sync\\(/',
    grep: ['-P', '-i', '-e', 'function\\s+\\w+Sync\\('],
    rg: ['-i', '-e', 'function\\s+\\w+Sync\\('],
  },
  {
    name: 'alternation `/(mergeMap|switchMap)\\(/`',
    query: '/(mergeMap|switchMap)\\(/',
    grep: ['-P', '-i', '-e', '(mergeMap|switchMap)\\('],
    rg: ['-i', '-e', '(mergeMap|switchMap)\\('],
  },
  {
    name: 'AND `mergeMap subscribe`',
    query: 'mergeMap subscribe',
    grep: ['-F', '-i', '-e', 'mergeMap'],
    rg: ['-F', '-i', '-e', 'mergeMap'],
    and: { grep: ['-F', '-i', '-e', 'subscribe'], rg: ['-F', '-i', '-e', 'subscribe'] },
  },
  {
    name: '`file:` filter `mergeMap file:\\.ts$`',
    query: 'mergeMap file:\\.ts$',
    grep: ['-F', '-i', '-e', 'mergeMap', '--', '*.ts'],
    rg: ['-F', '-i', '-g', '*.ts', '-e', 'mergeMap'],
  },
];

export const engineScalingFigure: Figure = { id: 'scaling', title: 'Engine search as it grows', run: measure };

async function measure(context: BenchContext): Promise<Row[]> {
  const corpus = await ensureCorpus(context);
  const ripgrepPath = benchRipgrep(context.root);
  const dirs = await corpusCopies(context, corpus, Math.max(...SCALES));
  const runs = context.quick ? 3 : 7;
  const rows: Row[] = [];
  for (const scale of SCALES) {
    const repos = dirs.slice(0, scale);
    rows.push(...(await measureScale(context, repos, ripgrepPath, runs, `${scale}×`, corpus.bytes * scale, undefined)));
  }
  // Past the budget: a quarter of the text indexed, the rest read per search.
  const repos = dirs.slice(0, 4);
  rows.push(...(await measureScale(context, repos, ripgrepPath, runs, '4×, index budget ¼ of the text', corpus.bytes * 4, Math.floor(corpus.bytes))));
  return rows;
}

async function measureScale(
  context: BenchContext,
  repos: readonly string[],
  ripgrepPath: string,
  runs: number,
  label: string,
  textBytes: number,
  budgetBytes: number | undefined,
): Promise<Row[]> {
  const commits = await Promise.all(repos.map(async (dir) => (await runGit(['rev-parse', 'HEAD'], { cwd: dir })).stdout.trim()));
  const dataDir = await mkdtemp(path.join(context.scratch, 'scaling-'));
  const engine = await startScalingEngine(context, repos, dataDir, ripgrepPath, budgetBytes);
  const lines = engine.lines;
  const client = new ToolClient({ instanceUrl: engine.url, token: TOKEN, timeoutMs: 300_000 });
  const rows: Row[] = [];
  try {
    await client.server();
    // The trigram filters the engine builds as it starts are done first: what is measured next is the indexes.
    await waitFor(() => lines.filter((line) => FILTER_DONE.test(line)).length >= repos.length, 600_000);
    // A first search of the same commit named by its id (not HEAD: no index is built, git grep
    // answers) warms the engine up, so that what the memory grows by next is the indexes'.
    await client.call('keyword_search', { query: `rev:${commits[0]} mergeMap` });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const rssBefore = await engine.rss();
    // The first search of each repository starts its index; all of them are waited for, the most
    // memory held meanwhile sampled.
    let peak = rssBefore;
    const sampler = setInterval(
      () =>
        void engine.rss().then(
          (rss) => (peak = Math.max(peak, rss)),
          () => undefined,
        ),
      200,
    ).unref();
    await client.call('keyword_search', { query: 'mergeMap' });
    await waitFor(() => lines.filter((line) => /^(search index of|no search index for|search index failed for)/.test(line)).length >= repos.length, 600_000);
    context.log(`${label}: ${lines.filter((line) => /^(no )?search (index|filter)/.test(line)).join('; ')}`);
    // Steady state: the builds' garbage and the listings ripgrep let go of are given back over the
    // following seconds (V8's memory reducer); measured once the memory stops falling.
    const steady = await steadyRss(engine);
    clearInterval(sampler);
    const peakMb = (Math.max(peak, steady.peak) - rssBefore) / 2 ** 20;
    const rssMb = (steady.rss - rssBefore) / 2 ** 20;
    const indexedMb = lines.reduce((sum, line) => sum + indexedSize(line), 0);

    for (const shape of SHAPES) {
      const engineCall = async (): Promise<string> => (await client.call('keyword_search', { query: shape.query })).text;
      const rgCall = (): Promise<Set<string>> => ripgrepFiles(ripgrepPath, repos, shape);
      const gitCall = (): Promise<Set<string>> => gitGrepFiles(repos, commits, shape);
      // Warm all three once, then alternate them.
      const engineText = await engineCall();
      const rgFiles = await rgCall();
      const gitFiles = await gitCall();
      const samples = { engine: [] as number[], rg: [] as number[], git: [] as number[] };
      for (let index = 0; index < runs; index++) {
        for (const [key, call] of [
          ['engine', engineCall],
          ['rg', rgCall],
          ['git', gitCall],
        ] as const) {
          const started = performance.now();
          await call();
          samples[key].push(performance.now() - started);
        }
      }
      const engineCount = Number(/^(\d+) files? match/.exec(engineText)?.[1] ?? -1);
      const shown = [...engineText.matchAll(/^## (\S+) — (.+)$/gm)].map((match) => `${repoIndex(repos, match[1] ?? '')}\0${match[2] ?? ''}`);
      const sameFiles = engineCount === rgFiles.size && engineCount === gitFiles.size && shown.every((file) => rgFiles.has(file));
      if (!sameFiles)
        context.log(
          `warning: ${label}, ${shape.name}: the engine found ${engineCount} files, ripgrep ${rgFiles.size}, git grep ` +
            `${gitFiles.size}; shown outside ripgrep's: ${shown.filter((file) => !rgFiles.has(file)).length}`,
        );
      const toRipgrep = median(samples.engine) / median(samples.rg);
      const toGit = median(samples.engine) / median(samples.git);
      const goal = budgetBytes !== undefined || label.startsWith('4') ? 1.0 : label.startsWith('1') ? 0.5 : undefined;
      rows.push({
        figure: `engine search, ${label} (${repos.length} × ${corpus(textBytes / repos.length)}), warm: ${shape.name}`,
        measured: `${spread(summarize(samples.engine))}: ${ratio(toRipgrep)} rg, ${ratio(toGit)} git grep; ${engineCount} files${sameFiles ? ', the same in all three' : ' (**not the same files**)'}`,
        baseline: `rg ${spread(summarize(samples.rg))}; git grep ${spread(summarize(samples.git))}`,
        goal: goal === undefined ? 'the same files (and, between 1× and 4×, ≤ 1.0 × rg)' : `≤ ${goal.toFixed(1)} × rg, the same files`,
        met: sameFiles && toRipgrep <= (goal ?? 1.0),
        data: {
          engineMs: samples.engine,
          ripgrepMs: samples.rg,
          gitGrepMs: samples.git,
          ratioToRipgrep: toRipgrep,
          ratioToGitGrep: toGit,
          engineFiles: engineCount,
          ripgrepFiles: rgFiles.size,
          gitGrepFiles: gitFiles.size,
          repositories: repos.length,
          budgetBytes,
        },
      });
    }
    const memoryRatio = rssMb / indexedMb;
    // Past the budget, the growth also holds what ripgrep keeps for the repositories it reads.
    const partial = budgetBytes !== undefined;
    rows.push({
      figure: `engine search, ${label}: memory with every index built, at steady state${partial ? ' (and ripgrep’s listings of the rest)' : ''}`,
      measured:
        `engine process RSS +${rssMb.toFixed(0)} MB for ${indexedMb.toFixed(1)} MB of text indexed = ${ratio(memoryRatio)} ` +
        `(${(steady.afterMs / 1000).toFixed(0)} s after the builds; peak +${peakMb.toFixed(0)} MB = ${ratio(peakMb / indexedMb)})`,
      baseline: '—',
      goal: partial ? '—' : '≤ 1.5 × the text indexed',
      ...(partial ? {} : { met: memoryRatio <= 1.5 }),
      data: {
        rssDeltaMb: rssMb,
        indexedMb,
        memoryRatio,
        steadyAfterMs: steady.afterMs,
        peakDeltaMb: peakMb,
        logLines: lines.filter((line) => line.includes('search index')),
      },
    });
  } finally {
    await client.close();
    await engine.close();
    await rm(dataDir, { recursive: true, force: true });
  }
  return rows;
}

/** The process's memory once it has stopped falling, how long that took, and the most it held meanwhile. */
async function steadyRss(engine: EngineProcess): Promise<{ rss: number; afterMs: number; peak: number }> {
  const started = Date.now();
  const samples: Array<{ at: number; rss: number }> = [];
  for (;;) {
    const now = Date.now();
    samples.push({ at: now, rss: await engine.rss() });
    const windowStart = samples.find((sample) => sample.at >= now - STEADY_WINDOW_MS);
    const latest = samples[samples.length - 1];
    const steady = latest && windowStart && now - started >= STEADY_WINDOW_MS && windowStart.rss - latest.rss < windowStart.rss / 100;
    if (latest && (steady || now - started >= STEADY_MAX_MS)) {
      return { rss: latest.rss, afterMs: now - started, peak: Math.max(...samples.map((sample) => sample.rss)) };
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** The engine over `repos`, with its index budget (MiB of the CLI's `--index-budget`) where one is given. */
function startScalingEngine(
  context: BenchContext,
  repos: readonly string[],
  dataDir: string,
  ripgrepPath: string,
  budgetBytes: number | undefined,
): Promise<EngineProcess> {
  const args = ['--port', '0', '--token', TOKEN, '--data', dataDir, '--pace', '0', '--ripgrep', ripgrepPath, ...repos.flatMap((dir) => ['--repo', dir])];
  if (budgetBytes !== undefined) args.push('--index-budget', String(Math.floor(budgetBytes / 2 ** 20)));
  return startEngineProcess(context, args);
}

/** The line of a filter built (or read from disk), or of none: not one put off for an index. */
const FILTER_DONE = /^(search filter of .* (ready|read from disk): |no search filter for )/;

/** `122.5 MB` from an index's "ready" log line, in MiB (0 for other lines). */
function indexedSize(line: string): number {
  const size = /^search index of .* ready: \d+ text files, ([\d.]+) (MB|KB|bytes)/.exec(line);
  if (!size) return 0;
  const value = Number(size[1]);
  return size[2] === 'MB' ? value : size[2] === 'KB' ? value / 1024 : value / 2 ** 20;
}

function corpus(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(0)} MB`;
}

/** Which of the repositories a name the engine shows is (its folder's name). */
function repoIndex(repos: readonly string[], name: string): number {
  return repos.findIndex((dir) => name === path.basename(dir) || name.endsWith(`/${path.basename(dir)}`));
}

/** The files ripgrep finds (repository index and path), as a user runs it: every matching line printed. */
async function ripgrepFiles(executable: string, repos: readonly string[], shape: Shape): Promise<Set<string>> {
  const common = ['--no-config', '--hidden', '--no-ignore', '-g', '!.git', '--line-number', '--null', '--no-heading', '--color', 'never'];
  const first = await rg(executable, repos, [...common, ...shape.rg]);
  if (!shape.and) return filesOf(first, repos);
  // AND: the files of the first term, then the second term in those files.
  const files = [
    ...new Set(
      first
        .split('\n')
        .filter(Boolean)
        .map((record) => record.slice(0, record.indexOf('\0'))),
    ),
  ];
  if (files.length === 0) return new Set();
  const second = await rg(executable, repos, [...common, ...shape.and.rg], files);
  return filesOf(second, repos);
}

async function rg(executable: string, repos: readonly string[], args: readonly string[], files?: readonly string[]): Promise<string> {
  const cwd = path.dirname(repos[0] ?? '.');
  const targets = files ?? repos.map((dir) => path.relative(cwd, dir) || '.');
  const result = await run(executable, [...args, '--', ...targets], { cwd, maxBuffer: 1024 * 2 ** 20 }).catch((error: { code?: number; stdout?: string }) => {
    if (error.code === 1) return { stdout: '' };
    throw error;
  });
  return result.stdout;
}

/** `<dir>/<path>\0…` records as repository index and path. */
function filesOf(output: string, repos: readonly string[]): Set<string> {
  const cwd = path.dirname(repos[0] ?? '.');
  const found = new Set<string>();
  for (const record of output.split('\n')) {
    const name = record.slice(0, record.indexOf('\0'));
    if (!name) continue;
    const absolute = path.resolve(cwd, name);
    const repo = repos.findIndex((dir) => absolute.startsWith(`${dir}${path.sep}`));
    if (repo >= 0)
      found.add(
        `${repo}\0${path
          .relative(repos[repo] ?? '', absolute)
          .split(path.sep)
          .join('/')}`,
      );
  }
  return found;
}

/** The files git grep finds over each repository's commit, one repository after another. */
async function gitGrepFiles(repos: readonly string[], commits: readonly string[], shape: Shape): Promise<Set<string>> {
  const found = new Set<string>();
  for (const [index, dir] of repos.entries()) {
    const grep = async (args: readonly string[]): Promise<Set<string>> => {
      const pathspecAt = args.indexOf('--');
      const patternArgs = pathspecAt >= 0 ? args.slice(0, pathspecAt) : args;
      const pathspecs = pathspecAt >= 0 ? args.slice(pathspecAt + 1) : [];
      const result = await runGit(['grep', '-I', '-l', '--null', '--no-color', ...patternArgs, commits[index] ?? 'HEAD', '--', ...pathspecs], {
        cwd: dir,
        okExitCodes: [0, 1],
        maxOutputBytes: 256 * 2 ** 20,
        timeoutMs: 300_000,
      });
      const prefix = `${commits[index]}:`;
      return new Set(
        result.stdout
          .split('\0')
          .filter(Boolean)
          .map((name) => (name.startsWith(prefix) ? name.slice(prefix.length) : name)),
      );
    };
    let files = await grep(shape.grep);
    if (shape.and) {
      const other = await grep(shape.and.grep);
      files = new Set([...files].filter((file) => other.has(file)));
    }
    for (const file of files) found.add(`${index}\0${file}`);
  }
  return found;
}

async function waitFor(done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not done within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
