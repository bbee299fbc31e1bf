/**
 * Figure "engine search, first query": `sg_keyword_search` through the extension's own MCP client
 * over HTTP on the search corpus (searchCorpus.ts), the first query of a freshly started engine,
 * before its index is built, each against ripgrep alone run just before it over the same files: on
 * a data folder of its own (a repository new to the engine) once its start-up work is done (the
 * commit's trigram filter built at start; goal: within ripgrep's own time, ratio of medians ≤ 1.0),
 * asked as soon as it starts (the filter still being built: ripgrep answers), and without ripgrep
 * (git grep answers); after a restart (the filter on disk from the run before; the same goal, and
 * the same answer). Also: the index builds in the background, and no search waits for it. The warm
 * figures, at growing sizes, are the scaling figure's.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { ToolClient } from '../../src/api/tools/toolClient';
import { startEngine } from '../../src/engine/server';
import { ms, ratio, spread, type BenchContext, type Figure, type Row } from '../report';
import { median, summarize } from '../stats';
import { benchRipgrep, ensureCorpus } from './searchCorpus';

const run = promisify(execFile);

const TOKEN = 'dse_bench_search_token';
/** What an engine logs once the filter is built (not put off for an index), or that it has none. */
const FILTER_AT_START = /^(search filter of .* ready: |no search filter for )/;
const FIRST = { name: 'keyword `mergeMap`', query: 'mergeMap', rg: ['-F', '-i', '-e', 'mergeMap'] };

export const engineSearchFigure: Figure = { id: 'search', title: 'Engine search, first query', run: measure };

async function measure(context: BenchContext): Promise<Row[]> {
  const corpus = await ensureCorpus(context);
  context.log(`search corpus: ${corpus.files} files, ${(corpus.bytes / 2 ** 20).toFixed(1)} MB in ${path.relative(context.root, corpus.dir)}`);
  const firstRuns = context.quick ? 3 : 7;
  const ripgrepPath = benchRipgrep(context.root);
  await mkdir(context.scratch, { recursive: true });
  /** ripgrep itself, run as a user would, over the files git has: its own walk of the working tree, output read in full. */
  const rgCall = async (): Promise<string> =>
    (
      await run(
        ripgrepPath,
        ['--no-config', '--hidden', '--no-ignore', '-g', '!.git', '--line-number', '--null', '--no-heading', '--color', 'never', ...FIRST.rg, '--', '.'],
        {
          cwd: corpus.dir,
          maxBuffer: 256 * 2 ** 20,
        },
      )
    ).stdout;
  const rows: Row[] = [];
  // Each engine freshly started on a data folder of its own, in turn: asked as soon as ripgrep's
  // read-ahead is done (its trigram filter still being built), asked once its start-up work is
  // done (the filter built), and without ripgrep once the filter is built.
  const modes = ['asStarting', 'afterStartUp', 'withoutRipgrep'] as const;
  // Each mode's ripgrep runs are its own baseline: ripgrep beside a filter build is slower too.
  const firstQuery = Object.fromEntries(modes.map((mode) => [mode, { engine: [] as number[], ripgrep: [] as number[] }])) as Record<
    (typeof modes)[number],
    { engine: number[]; ripgrep: number[] }
  >;
  let answeredByRipgrep = 0;
  const filterSeconds: number[] = [];
  let build: { line: string; waited: boolean; firstMs: number } | undefined;
  for (let index = 0; index < firstRuns * modes.length; index++) {
    const mode = modes[index % modes.length] ?? 'asStarting';
    const fresh = await startSearchEngine(context, corpus.dir, mode === 'withoutRipgrep' ? undefined : ripgrepPath);
    try {
      if (mode !== 'asStarting') {
        const line = await waitForLine(fresh.lines, FILTER_AT_START, 300_000);
        const seconds = / ready: .*, ([\d.]+) s$/.exec(line)?.[1];
        if (seconds === undefined) throw new Error(`the engine built no filter at start: ${line}`);
        filterSeconds.push(Number(seconds));
      }
      const { ripgrepMs, engineMs: took } = await firstQueryAfterRipgrep(fresh, rgCall);
      firstQuery[mode].ripgrep.push(ripgrepMs);
      firstQuery[mode].engine.push(took);
      if (mode === 'asStarting' && fresh.lines.some((line) => line.startsWith('ripgrep answers searches of'))) answeredByRipgrep++;
      if (mode === 'afterStartUp' && build === undefined) {
        const waited = fresh.lines.some((line) => line.startsWith('search index of'));
        build = { line: await waitForLine(fresh.lines, /^(search index of|no search index for|search index failed for)/, 180_000), waited, firstMs: took };
        context.log(build.line);
      }
    } finally {
      await fresh.close();
    }
  }

  // After a restart: an engine that built its index and the commit's trigram filter once, stopped,
  // and started again on the same data folder (the filter is on disk; the index is not).
  const keptDir = await mkdtemp(path.join(context.scratch, 'search-restart-'));
  const restart = { engine: [] as number[], ripgrep: [] as number[], same: true };
  try {
    const once = await startSearchEngine(context, corpus.dir, ripgrepPath, keptDir);
    let expected: string;
    try {
      expected = (await once.client.call('keyword_search', { query: FIRST.query })).text;
      context.log(await waitForLine(once.lines, FILTER_AT_START, 300_000));
    } finally {
      await once.close();
    }
    for (let index = 0; index < firstRuns; index++) {
      const restarted = await startSearchEngine(context, corpus.dir, ripgrepPath, keptDir);
      try {
        const { ripgrepMs, engineMs, text } = await firstQueryAfterRipgrep(restarted, rgCall);
        restart.ripgrep.push(ripgrepMs);
        restart.engine.push(engineMs);
        if (text !== expected) restart.same = false;
      } finally {
        await restarted.close();
      }
    }
  } finally {
    await rm(keptDir, { recursive: true, force: true });
  }
  const restartFactor = median(restart.engine) / median(restart.ripgrep);
  rows.push({
    figure: `engine search: first query after a restart (${FIRST.name}; the index not built yet, the commit's trigram filter on disk from the run before), engine given VS Code's ripgrep`,
    measured: `${spread(summarize(restart.engine))}: ${ratio(restartFactor)} rg${restart.same ? ', the same answer as before the restart' : ', **a different answer from before the restart**'}`,
    baseline: `rg ${spread(summarize(restart.ripgrep))}`,
    goal: '≤ 1.0 × rg, the same answer',
    met: restartFactor <= 1.0 && restart.same,
    data: { engineMs: restart.engine, ripgrepMs: restart.ripgrep, ratio: restartFactor, sameAnswer: restart.same },
  });
  const factor = ({ engine, ripgrep }: { engine: number[]; ripgrep: number[] }): number => median(engine) / median(ripgrep);
  const baseline = ({ ripgrep }: { ripgrep: number[] }): string => `rg ${spread(summarize(ripgrep))}`;
  const { asStarting, afterStartUp, withoutRipgrep } = firstQuery;
  const afterFactor = factor(afterStartUp);
  const filterBuild = `${median(filterSeconds).toFixed(1)} s`;
  rows.push({
    figure:
      `engine search: first query of a repository new to the engine (${FIRST.name}, ${corpus.files} files), once its start-up ` +
      `work is done (ripgrep's read-ahead; the commit's trigram filter, built at start in ${filterBuild}), engine given VS ` +
      `Code's ripgrep (baseline \`rg --hidden --no-ignore ${FIRST.rg.join(' ')}\`, run just before)`,
    measured: `${spread(summarize(afterStartUp.engine))}: ${ratio(afterFactor)} rg`,
    baseline: baseline(afterStartUp),
    goal: '≤ 1.0 × rg',
    met: afterFactor <= 1.0,
    data: { engineMs: afterStartUp.engine, ripgrepMs: afterStartUp.ripgrep, ratio: afterFactor, filterSeconds },
  });
  rows.push({
    figure:
      `engine search: first query of a repository new to the engine, asked as it starts (ripgrep's read-ahead done, the filter ` +
      `still being built, and ripgrep's baseline run beside that build), engine given VS Code's ripgrep`,
    measured: `${spread(summarize(asStarting.engine))}: ${ratio(factor(asStarting))} rg; ripgrep answered ${answeredByRipgrep} of ${asStarting.engine.length}`,
    baseline: baseline(asStarting),
    goal: '— (the filter takes the start-up time above)',
    data: { engineMs: asStarting.engine, ripgrepMs: asStarting.ripgrep, ratio: factor(asStarting), answeredByRipgrep },
  });
  rows.push({
    figure:
      'engine search: first query of a repository new to the engine once its filter is built, engine without ripgrep (git grep answers; the index build starts beside it)',
    measured: `${spread(summarize(withoutRipgrep.engine))}: ${ratio(factor(withoutRipgrep))} rg`,
    baseline: baseline(withoutRipgrep),
    goal: '—',
    data: { engineMs: withoutRipgrep.engine, ripgrepMs: withoutRipgrep.ripgrep, ratio: factor(withoutRipgrep) },
  });
  const built = build ? / ready: (\d+) text files, ([\d.]+ [KM]?B|\d+ bytes), ([\d.]+) s/.exec(build.line) : null;
  rows.push({
    figure: 'engine search: index build in the background, after the first query is answered',
    measured: built ? `${built[3]} s for ${built[1]} text files, ${built[2]}` : `no index: ${build?.line ?? 'none logged'}`,
    baseline: build ? `first query ${ms(build.firstMs)}` : '—',
    goal: 'no search waits for the index',
    met: built !== null && build?.waited === false,
    data: { logLine: build?.line ?? null, indexReadyBeforeFirstSearchAnswered: build?.waited ?? null },
  });
  return rows;
}

interface SearchEngine {
  client: ToolClient;
  /** The engine's log so far. */
  lines: string[];
  close(): Promise<void>;
}

/**
 * ripgrep alone, then the engine's first query (its client connected first: a session is opened
 * once, and is not part of a search), each timed.
 */
async function firstQueryAfterRipgrep(engine: SearchEngine, rgCall: () => Promise<string>): Promise<{ ripgrepMs: number; engineMs: number; text: string }> {
  await engine.client.server();
  let started = performance.now();
  await rgCall();
  const ripgrepMs = performance.now() - started;
  started = performance.now();
  const text = (await engine.client.call('keyword_search', { query: FIRST.query })).text;
  return { ripgrepMs, engineMs: performance.now() - started, text };
}

/** An engine on a data folder of its own (removed when closed), or on `keptDir` (kept), once it has started. */
async function startSearchEngine(context: BenchContext, repo: string, ripgrepPath: string | undefined, keptDir?: string): Promise<SearchEngine> {
  const dataDir = keptDir ?? (await mkdtemp(path.join(context.scratch, 'search-engine-')));
  const lines: string[] = [];
  const engine = await startEngine({
    repos: [repo],
    users: [{ token: TOKEN }],
    dataDir,
    port: 0,
    paceMs: 0,
    log: (line) => lines.push(line),
    ...(ripgrepPath ? { ripgrepPath } : {}),
  });
  const client = new ToolClient({ instanceUrl: engine.url, token: TOKEN, timeoutMs: 120_000 });
  // Given a moment to start, as an engine is before its first question: its read-ahead for
  // ripgrep (listings, the working tree checked) done, so that it does not run beside the baseline.
  if (ripgrepPath) await waitForLine(lines, /^ripgrep (is ready for|will not search) /, 60_000);
  return {
    client,
    lines,
    close: async () => {
      await client.close();
      await engine.close();
      if (keptDir === undefined) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export async function waitForLine(lines: readonly string[], pattern: RegExp, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const line = lines.find((candidate) => pattern.test(candidate));
    if (line) return line;
    if (Date.now() > deadline) throw new Error(`the engine logged no ${pattern} within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
