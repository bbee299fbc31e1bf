/**
 * Starts the engine's short-lived child processes (`git`) from a worker thread. Starting a process
 * copies the page tables of the whole engine process on the thread that starts it, which costs tens
 * of milliseconds once the engine holds a search index of hundreds of megabytes (measured: 4 ms at
 * 50 MB, 67 ms at 550 MB); on the engine's own thread, every other request would wait that long for
 * each `git` a search starts. The launcher runs the process to its end (output cap, timeout, kill
 * on request) and hands back its output; what the output means stays with the caller (git.ts).
 *
 * The worker is plain JavaScript started with `eval`, like the search worker, so that it runs the
 * same from TypeScript under tsx and from the esbuild bundles.
 */
import { Worker } from 'node:worker_threads';

export interface LaunchRequest {
  command: string;
  args: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  timeoutMs: number;
  /** Bytes of stdout kept; past them the process is killed and `truncate` says how that ends. */
  maxOutputBytes: number;
  /** Past the cap: keep what was read (`truncated`), or end with `output-limit`. */
  truncate: boolean;
  stderrKeptBytes: number;
  /** Written to the process's stdin (then closed); none: stdin is not connected. */
  input?: string;
}

export type LaunchOutcome =
  | { kind: 'exited'; code: number | null; stdout: Buffer; stderr: string; truncated: boolean }
  | { kind: 'start-failed'; errno: string | undefined; message: string }
  | { kind: 'timeout' }
  | { kind: 'output-limit' }
  | { kind: 'aborted' };

type WorkerReply = { id: number } & (
  | { kind: 'exited'; code: number | null; stdout: Uint8Array; stderr: string; truncated: boolean }
  | { kind: 'start-failed'; errno: string | undefined; message: string }
  | { kind: 'timeout' }
  | { kind: 'output-limit' }
  | { kind: 'aborted' }
);

const LAUNCHER_SOURCE = String.raw`
'use strict';
const { parentPort } = require('node:worker_threads');
const { spawn } = require('node:child_process');
const stops = new Map();

parentPort.on('message', (message) => {
  if (message.kind === 'stop') {
    stops.get(message.id)?.();
    return;
  }
  run(message.id, message.request);
});

function run(id, request) {
  let settled = false;
  const chunks = [];
  let stdoutBytes = 0;
  let stderr = '';
  let truncated = false;
  let timer;
  const finish = (outcome, transfer) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    stops.delete(id);
    parentPort.postMessage({ id, ...outcome }, transfer || []);
  };
  let child;
  try {
    child = spawn(request.command, request.args, { cwd: request.cwd, env: request.env, stdio: [request.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'], windowsHide: true });
  } catch (error) {
    finish({ kind: 'start-failed', errno: error && error.code, message: String(error && error.message) });
    return;
  }
  // Stopping settles at once: a killed process may leave a grandchild holding the pipes.
  const stop = (kind) => {
    child.kill('SIGKILL');
    child.stdout.destroy();
    child.stderr.destroy();
    finish({ kind });
  };
  stops.set(id, () => stop('aborted'));
  timer = setTimeout(() => stop('timeout'), request.timeoutMs);
  if (request.input !== undefined) {
    // A process that exits without reading it all closes the pipe: not an error of ours.
    child.stdin.on('error', () => undefined);
    child.stdin.end(request.input);
  }
  child.stdout.on('data', (chunk) => {
    if (truncated || settled) return;
    const room = request.maxOutputBytes - stdoutBytes;
    if (chunk.length <= room) {
      chunks.push(chunk);
      stdoutBytes += chunk.length;
      return;
    }
    if (!request.truncate) {
      stop('output-limit');
      return;
    }
    chunks.push(chunk.subarray(0, room));
    stdoutBytes += room;
    truncated = true;
    child.kill('SIGKILL');
  });
  child.stderr.on('data', (chunk) => {
    if (stderr.length < request.stderrKeptBytes) stderr += chunk.toString('utf8');
  });
  child.on('error', (error) => finish({ kind: 'start-failed', errno: error.code, message: error.message }));
  child.on('close', (code) => {
    // A buffer of its own (never the pool's), so that it can be transferred.
    const stdout = new Uint8Array(stdoutBytes);
    let at = 0;
    for (const chunk of chunks) {
      stdout.set(chunk, at);
      at += chunk.length;
    }
    finish({ kind: 'exited', code, stdout, stderr, truncated }, [stdout.buffer]);
  });
}
`;

let worker: Worker | undefined;
let nextId = 1;
const pending = new Map<number, (reply: WorkerReply | undefined) => void>();

/** Runs a process to its end in the launcher thread; `signal` stops it (the outcome is then `aborted`). */
export function launch(request: LaunchRequest, signal?: AbortSignal): Promise<LaunchOutcome> {
  if (signal?.aborted) return Promise.resolve({ kind: 'aborted' });
  const launcher = launcherWorker();
  const id = nextId++;
  return new Promise<LaunchOutcome>((resolve) => {
    const onAbort = (): void => {
      launcher.postMessage({ kind: 'stop', id });
      settle(undefined);
      resolve({ kind: 'aborted' });
    };
    const settle = (reply: WorkerReply | undefined): void => {
      if (!pending.delete(id)) return;
      signal?.removeEventListener('abort', onAbort);
      // An idle launcher must not keep the process alive; one with work must.
      if (pending.size === 0) launcher.unref();
      if (!reply) return;
      resolve(reply.kind === 'exited' ? { ...reply, stdout: Buffer.from(reply.stdout.buffer, reply.stdout.byteOffset, reply.stdout.byteLength) } : reply);
    };
    if (pending.size === 0) launcher.ref();
    pending.set(id, (reply) => {
      if (reply) settle(reply);
      else {
        settle(undefined);
        resolve({ kind: 'start-failed', errno: undefined, message: 'the process launcher thread stopped' });
      }
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    launcher.postMessage({ kind: 'run', id, request: { ...request, args: [...request.args], env: { ...request.env } } });
  });
}

/** Starts the launcher thread now, if it is not running: the engine does as it starts. */
export function startLauncher(): void {
  launcherWorker();
}

function launcherWorker(): Worker {
  if (worker) return worker;
  const started = new Worker(LAUNCHER_SOURCE, { eval: true });
  started.unref();
  started.on('message', (reply: WorkerReply) => pending.get(reply.id)?.(reply));
  const stopped = (): void => {
    if (worker === started) worker = undefined;
    for (const finish of [...pending.values()]) finish(undefined);
  };
  started.on('error', stopped);
  started.on('exit', stopped);
  worker = started;
  return started;
}
