/**
 * Figure "engine under a burst": the engine, as its own process (the shipped CLI bundle), serves
 * a generated repository of 100,000 files (10,000 quick), started with the environment the
 * extension gives it (ENGINE_ENVIRONMENT), and takes at once 50 questions and one
 * MCP batch of 100 keyword searches, while a prober asks for the first page of the conversation
 * list every 100 ms. Measured: the engine process's peak resident memory (the kernel's VmHWM)
 * and the prober's p95. Baseline, in the same run: the same burst on an engine whose limits on
 * concurrent answers and tool calls are lifted (`--max-answers 1000 --max-tool-calls 1000`), which
 * is how the engine behaved before it had them.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { API_PATH, MCP_PATH, type WireConversation } from '../../src/contract/legacyWire';
import { createTempDir, generateRepository, removeDir } from '../../test/support/gitRepos';
import { ms, type BenchContext, type Figure, type Row } from '../report';
import { startEngineProcess } from '../engineProcess';
import { summarize, type Summary } from '../stats';

const QUESTIONS = 50;
const BATCH_CALLS = 100;
const PROBE_EVERY_MS = 100;
const PEAK_GOAL_MB = 600;
const PROBE_P95_GOAL_MS = 50;
const ANSWERED_WITHIN_MS = 300_000;
const LIFTED = ['--max-answers', '1000', '--max-tool-calls', '1000'];
/** Words the generated files are made of, and the questions and searches ask about. */
const WORDS = ['config', 'retry', 'poller', 'session', 'invoice', 'render', 'parse', 'token', 'cache', 'queue', 'stream', 'schema'];

export const engineBurstFigure: Figure = { id: 'burst', title: 'Engine under a burst', run };

interface BurstResult {
  peakMb: number;
  probe: Summary;
  probeErrors: number;
  answered: number;
  /** Why questions that were not answered ended (the first ten), for the JSON. */
  failures: string[];
  batchMs: number;
}

async function run(context: BenchContext): Promise<Row[]> {
  const files = context.quick ? 10_000 : 100_000;
  const repo = await createTempDir('dse-bench-burst-');
  try {
    const generatedMb =
      (await generateRepository(
        repo,
        files,
        (index) => ({ path: `src/${WORDS[index % WORDS.length]}/${Math.floor(index / 1000)}/module${index}.ts`, content: sourceFile(index) }),
        { checkout: true },
      )) /
      2 ** 20;
    context.log(`generated a repository of ${files} files (${generatedMb.toFixed(0)} MB of text)`);
    const scratch = path.join(context.scratch, 'engine-burst');
    const bounded = await burst(context, { repo, dataDir: path.join(scratch, 'bounded'), extraArgs: [] });
    context.log(`bounded: peak ${bounded.peakMb.toFixed(0)} MB, probe p95 ${ms(bounded.probe.p95)}`);
    const lifted = await burst(context, { repo, dataDir: path.join(scratch, 'lifted'), extraArgs: LIFTED });
    context.log(`limits lifted: peak ${lifted.peakMb.toFixed(0)} MB, probe p95 ${ms(lifted.probe.p95)}`);
    const label = `engine, ${QUESTIONS} questions + a batch of ${BATCH_CALLS} searches at once, ${files.toLocaleString('en')} files`;
    const complete = bounded.answered === QUESTIONS && bounded.probeErrors === 0;
    return [
      {
        figure: `${label}: engine peak memory (RSS)`,
        measured: `${bounded.peakMb.toFixed(0)} MB`,
        baseline: `${lifted.peakMb.toFixed(0)} MB without limits`,
        goal: `≤ ${PEAK_GOAL_MB} MB`,
        met: complete && bounded.peakMb <= PEAK_GOAL_MB,
        data: { bounded, lifted, files, generatedMb },
      },
      {
        figure: `${label}: cheap GET (list) p95 meanwhile`,
        measured: `${ms(bounded.probe.p95)} (median ${ms(bounded.probe.median)}, n=${bounded.probe.n}, ${bounded.probeErrors} errors)`,
        baseline: `${ms(lifted.probe.p95)} without limits`,
        goal: `≤ ${PROBE_P95_GOAL_MS} ms`,
        met: complete && bounded.probe.p95 <= PROBE_P95_GOAL_MS,
      },
      {
        figure: `${label}: all answered, batch replied`,
        measured: `${bounded.answered} of ${QUESTIONS} answered; batch in ${ms(bounded.batchMs)}`,
        baseline: `${lifted.answered} of ${QUESTIONS}; batch in ${ms(lifted.batchMs)} without limits`,
        goal: `${QUESTIONS} of ${QUESTIONS}`,
        met: bounded.answered === QUESTIONS,
      },
    ];
  } finally {
    await removeDir(repo);
  }
}

/** A generated TypeScript-like file of about 1 KB (also the host bench's workspace files). */
export function sourceFile(index: number): string {
  const word = (offset: number) => WORDS[(index * 7 + offset) % WORDS.length];
  const name = `${word(0)}${word(3).replace(/^./, (c) => c.toUpperCase())}${index}`;
  return [
    `// ${word(1)} handling for the ${word(2)} module ${index}.`,
    `import { ${word(4)}Options } from '../${word(4)}/options';`,
    '',
    `export interface ${name.replace(/^./, (c) => c.toUpperCase())}State {`,
    `  ${word(5)}: string;`,
    `  attempts: number;`,
    '}',
    '',
    `/** Applies the ${word(6)} rules, then retries with backoff when the ${word(1)} fails. */`,
    `export function ${name}(options: ${word(4)}Options, input: string): string {`,
    `  let attempts = 0;`,
    `  while (attempts < options.maxAttempts) {`,
    `    attempts++;`,
    `    const value = input.split('${word(7)}').join('${word(8)}');`,
    `    if (value.length > ${index % 97}) return value.trim();`,
    `  }`,
    `  throw new Error('${word(9)} failed after ' + attempts + ' attempts');`,
    '}',
    '',
  ].join('\n');
}

async function burst(context: BenchContext, options: { repo: string; dataDir: string; extraArgs: string[] }): Promise<BurstResult> {
  await rm(options.dataDir, { recursive: true, force: true });
  await mkdir(options.dataDir, { recursive: true });
  const token = `bench_burst_${randomBytes(12).toString('hex')}`;
  const engine = await startEngineProcess(context, ['--repo', options.repo, '--data', options.dataDir, '--port', '0', '--token', token, ...options.extraArgs]);
  const headers = { Authorization: `token ${token}`, 'Content-Type': 'application/json', 'X-Requested-With': 'deep-search-bench 0.1.0' };
  const samples: number[] = [];
  let probeErrors = 0;
  let probing = true;
  const prober = (async () => {
    while (probing) {
      const started = performance.now();
      try {
        const response = await fetch(`${engine.url}${API_PATH}/?page_first=1`, { headers });
        await response.arrayBuffer();
        if (response.ok) samples.push(performance.now() - started);
        else probeErrors++;
      } catch {
        probeErrors++;
      }
      await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
    }
  })();
  try {
    const batchStarted = performance.now();
    const batch = fetch(`${engine.url}${MCP_PATH}`, {
      method: 'POST',
      headers: { ...headers, Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-03-26' },
      body: JSON.stringify(
        Array.from({ length: BATCH_CALLS }, (_, id) => ({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'sg_keyword_search', arguments: { query: `${WORDS[id % WORDS.length]} attempts` } },
        })),
      ),
    }).then(async (response) => {
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`the batch got HTTP ${response.status}`);
      return performance.now() - batchStarted;
    });
    const created = await Promise.all(
      Array.from({ length: QUESTIONS }, async (_, index) => {
        const question = `How does the ${WORDS[index % WORDS.length]} module retry after ${WORDS[(index + 5) % WORDS.length]} failures (${index})?`;
        const response = await fetch(`${engine.url}${API_PATH}/`, { method: 'POST', headers, body: JSON.stringify({ question }) });
        if (!response.ok) throw new Error(`creating a conversation got HTTP ${response.status}: ${await response.text()}`);
        return ((await response.json()) as { id: number }).id;
      }),
    );
    const { answered, failures } = await waitForAnswers(engine.url, headers, created).catch((error: unknown) => {
      throw new Error(`polling the answers failed (${describeFailure(error)}); ${engine.state()}`);
    });
    const batchMs = await batch;
    return { peakMb: peakResidentMb(engine.child), probe: summarize(samples), probeErrors, answered, failures, batchMs };
  } finally {
    probing = false;
    await prober;
    await engine.close();
  }
}

/** Polls every question until it ends (or the time is up): how many were answered, and why the others failed. */
async function waitForAnswers(url: string, headers: Record<string, string>, ids: number[]): Promise<{ answered: number; failures: string[] }> {
  const deadline = Date.now() + ANSWERED_WITHIN_MS;
  const ended = new Map<number, string | undefined>();
  while (ended.size < ids.length && Date.now() < deadline) {
    for (const id of ids) {
      if (ended.has(id)) continue;
      const response = await fetch(`${url}${API_PATH}/${id}`, { headers });
      const question = ((await response.json()) as WireConversation).questions.at(-1);
      if (!question || question.status === 'pending' || question.status === 'processing') continue;
      const answered = question.status === 'completed' && !question.error && question.answer;
      ended.set(id, answered ? undefined : `${question.status}: ${question.error?.title ?? 'no answer'}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const outcomes = [...ended.values()];
  return { answered: outcomes.filter((failure) => failure === undefined).length, failures: outcomes.filter((failure) => failure !== undefined).slice(0, 10) };
}

/** The kernel's high-water mark of the process's resident memory (Linux). */
function peakResidentMb(child: ChildProcess): number {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const kilobytes = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1]);
  return kilobytes / 1024;
}

function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message;
}
