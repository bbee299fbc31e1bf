/**
 * Figure "engine API under load": 50 simulated clients (10 users, 5 windows each) create, poll and
 * list conversations on a real engine over loopback for 30 s (6 s quick), while the engine answers
 * from a real git repository (the tests' sample application) at its default pace of 150 ms a step,
 * as `npm start` and the extension run it. Then the load stops, every question is let finish, and
 * every conversation the engine acknowledged is checked: there, complete, answered and listed,
 * both on the running engine and after a restart from its data folder.
 *
 * The engine runs on this thread; the clients run in a worker thread, so the latency measured is
 * the engine's and the loopback's, not time spent waiting behind the load generator's own work.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { Agent } from 'undici';
import { API_PATH } from '../../src/contract/legacyWire';
import type { EngineOptions, RunningEngine } from '../../src/engine/options';
import { startEngine } from '../../src/engine/server';
import { createSampleAppRepo } from '../../test/support/gitRepos';
import { ms, type BenchContext, type Figure, type Row } from '../report';
import { summarize, type Summary } from '../stats';
import type { CallSample, ClientsOptions, ClientsResult } from './engineApiClients';
import { findLosses, waitUntilAllFinished, type LossReport, type VerifyTarget } from './engineApiVerify';

const CLIENTS = 50;
const USERS = 10;
/** The extension polls a conversation someone is looking at twice a second. */
const POLL_INTERVAL_MS = 500;
/** The extension's list page size. */
const PAGE_SIZE = 50;
const REQUEST_TIMEOUT_MS = 10_000;
const GET_P95_GOAL_MS = 50;
/** Bounds of each phase, so a hung engine ends the figure instead of the bench. */
const LOAD_GRACE_MS = POLL_INTERVAL_MS + REQUEST_TIMEOUT_MS + 10_000;
const DRAIN_MS = 60_000;
const VERIFY_MS = 120_000;
const START_STOP_MS = 30_000;

export const engineApiFigure: Figure = { id: 'api', title: 'Engine API under load', run };

async function run(context: BenchContext): Promise<Row[]> {
  const durationMs = context.quick ? 6_000 : 30_000;
  const dataDir = path.join(context.scratch, 'engine-api', 'data');
  await rm(dataDir, { recursive: true, force: true });
  await mkdir(dataDir, { recursive: true });
  const repo = await createSampleAppRepo();
  const tokens = Array.from({ length: USERS }, (_, index) => `bench_api_${index + 1}_${randomBytes(12).toString('hex')}`);
  const options: EngineOptions = {
    repos: [repo.dir],
    users: tokens.map((token, index) => ({ token, id: index + 1, name: `bench${index + 1}` })),
    dataDir,
    port: 0,
  };
  const dispatcher = new Agent();
  let engine: RunningEngine | undefined;
  try {
    engine = await bounded(startEngine(options), START_STOP_MS, 'starting the engine');
    context.log(`${CLIENTS} clients as ${USERS} users for ${durationMs / 1000} s against ${engine.url} (default pace)`);
    const { load, facts } = await underLoad(engine.url + API_PATH, tokens, durationMs);
    context.log(`load done: ${load.samples.length} calls, ${load.created.length} conversations; letting every question finish`);

    const target: VerifyTarget = { dispatcher, apiUrl: engine.url + API_PATH, tokens, created: load.created };
    const drainStarted = Date.now();
    const unfinished = await bounded(waitUntilAllFinished(target, drainStarted + DRAIN_MS), DRAIN_MS + VERIFY_MS, 'letting every question finish');
    const drainMs = Date.now() - drainStarted;
    const live = await bounded(findLosses(target), VERIFY_MS, 'checking the conversations');
    await bounded(engine.close(), START_STOP_MS, 'stopping the engine');
    engine = undefined;
    engine = await bounded(startEngine(options), START_STOP_MS, 'restarting the engine');
    const restarted = await bounded(findLosses({ ...target, apiUrl: engine.url + API_PATH }), VERIFY_MS, 'checking after the restart');
    return rows(durationMs, load, live, restarted, { unfinished, drainMs, ...facts });
  } finally {
    await bounded(engine?.close() ?? Promise.resolve(), START_STOP_MS, 'stopping the engine').catch((error: unknown) => context.log(String(error)));
    await dispatcher.close();
    await repo.remove();
  }
}

/** Runs the clients for `durationMs` while watching the engine's thread. */
async function underLoad(
  apiUrl: string,
  tokens: string[],
  durationMs: number,
): Promise<{ load: ClientsResult; facts: Omit<RunFacts, 'unfinished' | 'drainMs'> }> {
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const processCpu = process.cpuUsage();
  const engineCpu = mainThreadCpuSeconds();
  const load = await runLoadInWorker(
    {
      apiUrl,
      tokens,
      clients: CLIENTS,
      durationMs,
      pollIntervalMs: POLL_INTERVAL_MS,
      pageSize: PAGE_SIZE,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
    },
    durationMs + LOAD_GRACE_MS,
  );
  loopDelay.disable();
  const processCpuUsed = process.cpuUsage(processCpu);
  return {
    load,
    facts: {
      eventLoopDelayP99Ms: loopDelay.percentile(99) / 1e6,
      eventLoopDelayMaxMs: loopDelay.max / 1e6,
      processCpuSeconds: (processCpuUsed.user + processCpuUsed.system) / 1e6,
      engineThreadCpuSeconds: (mainThreadCpuSeconds() ?? Number.NaN) - (engineCpu ?? Number.NaN),
      rssMegabytes: process.memoryUsage().rss / 2 ** 20,
    },
  };
}

interface RunFacts {
  /** Questions still processing when the drain gave up. */
  unfinished: number;
  drainMs: number;
  eventLoopDelayP99Ms: number;
  eventLoopDelayMaxMs: number;
  /** CPU time of the whole process: the engine, the clients' worker and the I/O threads. */
  processCpuSeconds: number;
  /** CPU time of the engine's thread alone (Linux; NaN elsewhere). */
  engineThreadCpuSeconds: number;
  /** Process size at the end of the load: the larger it is, the longer starting a git process blocks. */
  rssMegabytes: number;
}

function rows(durationMs: number, load: ClientsResult, live: LossReport, restarted: LossReport, extra: RunFacts): Row[] {
  const label = `engine API, ${CLIENTS} clients for ${durationMs / 1000} s`;
  const gets = load.samples.filter((sample) => sample.kind === 'poll' || sample.kind === 'list');
  const getSummary = summarize(okTimes(gets));
  const seconds = load.elapsedMs / 1000;
  const answered = live.questions - live.lostQuestions;
  const failures = load.samples.filter(isFailure);
  const lost = Math.max(live.lostConversations, restarted.lostConversations);
  return [
    {
      figure: `${label}: GET (poll, list) p95`,
      measured: `${ms(getSummary.p95)} (median ${ms(getSummary.median)}, n=${getSummary.n})`,
      baseline: '—',
      goal: `≤ ${GET_P95_GOAL_MS} ms`,
      met: getSummary.n > 0 && getSummary.p95 <= GET_P95_GOAL_MS,
      data: {
        byKind: Object.fromEntries((['poll', 'list', 'create', 'followup'] as const).map((kind) => [kind, summaryOf(load.samples, kind)])),
        throughput: {
          callsPerSecond: load.samples.length / seconds,
          getsPerSecond: gets.length / seconds,
          conversationsPerSecond: live.conversations / seconds,
          questionsAnsweredPerSecond: answered / seconds,
        },
        ...extra,
      },
    },
    {
      figure: `${label}: errors (non-2xx, network, timeouts)`,
      measured: `${failures.length} of ${load.samples.length} calls${failures.length ? ` (${describeFailures(failures)})` : ''}`,
      baseline: '—',
      goal: '0',
      met: failures.length === 0,
      data: { failures: failures.slice(0, 20) },
    },
    {
      figure: `${label}: conversations lost (missing, unanswered or unlisted; live and after a restart)`,
      measured:
        `${lost} of ${live.conversations} conversations (${live.questions} questions)` +
        (extra.unfinished ? `; ${extra.unfinished} still processing after ${DRAIN_MS / 1000} s` : ''),
      baseline: '—',
      goal: '0',
      met: live.conversations > 0 && lost === 0 && extra.unfinished === 0,
      data: { live, afterRestart: restarted },
    },
  ];
}

function okTimes(samples: readonly CallSample[]): number[] {
  return samples.filter((sample) => !isFailure(sample)).map((sample) => sample.ms);
}

function summaryOf(samples: readonly CallSample[], kind: CallSample['kind']): Summary & { errors: number } {
  const ofKind = samples.filter((sample) => sample.kind === kind);
  return { ...summarize(okTimes(ofKind)), errors: ofKind.filter(isFailure).length };
}

function isFailure(sample: CallSample): boolean {
  return sample.error !== undefined;
}

/** `3× 503, 1× ECONNRESET`. */
function describeFailures(failures: readonly CallSample[]): string {
  const counts = new Map<string, number>();
  for (const failure of failures) {
    const key = failure.status === 0 ? (failure.error ?? 'network') : String(failure.status);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, count]) => `${count}× ${key}`).join(', ');
}

/** Runs the clients in a worker thread (TypeScript loaded through tsx) and ends it after `timeoutMs`. */
function runLoadInWorker(options: ClientsOptions, timeoutMs: number): Promise<ClientsResult> {
  const entry = path.join(__dirname, 'engineApiWorker.ts');
  const code = `require(${JSON.stringify(require.resolve('tsx/cjs/api'))}).register(); require(${JSON.stringify(entry)});`;
  const worker = new Worker(code, { eval: true, workerData: options });
  let timer: NodeJS.Timeout | undefined;
  return new Promise<ClientsResult>((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`the clients did not stop within ${timeoutMs / 1000} s`)), timeoutMs);
    worker.once('message', (message: { ok: true; result: ClientsResult } | { ok: false; error: string }) =>
      message.ok ? resolve(message.result) : reject(new Error(`the clients failed: ${message.error}`)),
    );
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the clients' worker exited (code ${code}) before reporting`)));
  }).finally(() => {
    clearTimeout(timer);
    void worker.terminate();
  });
}

/** CPU seconds used so far by this process's main thread, which runs the engine (Linux only). */
function mainThreadCpuSeconds(): number | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    // Fields after the command name: state is the 3rd, utime the 14th and stime the 15th, in clock ticks (100 a second).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** `promise`, or a rejection naming `what` once `timeoutMs` has passed. */
function bounded<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${timeoutMs / 1000} s`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
