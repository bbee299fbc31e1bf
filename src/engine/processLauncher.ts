/**
 * Starts the engine's short-lived child processes (`git`, ripgrep) from a small helper process.
 * Starting a process copies the page tables of the process that starts it: from the engine, once it
 * holds search indexes of hundreds of megabytes, that costs tens of milliseconds per process
 * (measured: 4 ms at 50 MB, 67 ms at 550 MB), on whichever thread starts it, and the starts of the
 * searches made at once queue behind each other. The helper stays as small as it started, so each
 * start costs it what it costs a bare Node. It runs the process to its end (output cap, timeout,
 * kill on request) and hands back its output over the IPC channel; what the output means stays
 * with the caller (git.ts). The helper exits with the engine (its channel closes).
 *
 * The helper is plain JavaScript run with `node -e`, like the search worker's source, so that it
 * runs the same from TypeScript under tsx and from the esbuild bundles.
 */
import { spawn, type ChildProcess } from 'node:child_process';

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
  input?: string | Uint8Array;
}

export type LaunchOutcome =
  | { kind: 'exited'; code: number | null; stdout: Buffer; stderr: string; truncated: boolean }
  | { kind: 'start-failed'; errno: string | undefined; message: string }
  | { kind: 'timeout' }
  | { kind: 'output-limit' }
  | { kind: 'aborted' };

/** A piece of a process's output, as it comes; then its outcome. */
type LauncherMessage = { id: number; kind: 'data'; chunk: Uint8Array } | LauncherReply;

type LauncherReply = { id: number } & (
  | { kind: 'exited'; code: number | null; stderr: string; truncated: boolean }
  | { kind: 'start-failed'; errno: string | undefined; message: string }
  | { kind: 'timeout' }
  | { kind: 'output-limit' }
  | { kind: 'aborted' }
);

const LAUNCHER_SOURCE = String.raw`
'use strict';
const { spawn } = require('node:child_process');
const stops = new Map();

// The engine is gone: so is every process started for it.
process.on('disconnect', () => {
  for (const stop of stops.values()) stop();
  process.exit(0);
});
process.on('message', (message) => {
  if (message.kind === 'stop') {
    stops.get(message.id)?.();
    return;
  }
  run(message.id, message.request);
});

function run(id, request) {
  let settled = false;
  let stdoutBytes = 0;
  let stderr = '';
  let truncated = false;
  let timer;
  const finish = (outcome) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    stops.delete(id);
    if (process.connected) process.send({ id, ...outcome });
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
  // Output goes to the engine as it comes, a message per piece: one message of megabytes would be
  // gathered there by copying all of it again for every piece the channel reads.
  const pass = (chunk) => {
    if (chunk.length > 0 && process.connected) process.send({ id, kind: 'data', chunk });
  };
  child.stdout.on('data', (chunk) => {
    if (truncated || settled) return;
    const room = request.maxOutputBytes - stdoutBytes;
    if (chunk.length <= room) {
      pass(chunk);
      stdoutBytes += chunk.length;
      return;
    }
    if (!request.truncate) {
      stop('output-limit');
      return;
    }
    pass(chunk.subarray(0, room));
    stdoutBytes += room;
    truncated = true;
    child.kill('SIGKILL');
  });
  child.stderr.on('data', (chunk) => {
    if (stderr.length < request.stderrKeptBytes) stderr += chunk.toString('utf8');
  });
  child.on('error', (error) => finish({ kind: 'start-failed', errno: error.code, message: error.message }));
  child.on('close', (code) => finish({ kind: 'exited', code, stderr, truncated }));
}
`;

let helper: ChildProcess | undefined;
let nextId = 1;
const pending = new Map<number, (reply: LauncherReply | undefined) => void>();
/** The output so far of each process under way. */
const outputs = new Map<number, Uint8Array[]>();

/** Runs a process to its end from the launcher; `signal` stops it (the outcome is then `aborted`). */
export function launch(request: LaunchRequest, signal?: AbortSignal): Promise<LaunchOutcome> {
  if (signal?.aborted) return Promise.resolve({ kind: 'aborted' });
  const launcher = startLauncher();
  const id = nextId++;
  return new Promise<LaunchOutcome>((resolve) => {
    const onAbort = (): void => {
      send(launcher, { kind: 'stop', id });
      settle(undefined);
      resolve({ kind: 'aborted' });
    };
    const settle = (reply: LauncherReply | undefined): void => {
      if (!pending.delete(id)) return;
      const output = outputs.get(id) ?? [];
      outputs.delete(id);
      signal?.removeEventListener('abort', onAbort);
      // An idle launcher must not keep the engine alive; one with work must.
      if (pending.size === 0) holdOpen(launcher, false);
      if (!reply) return;
      resolve(reply.kind === 'exited' ? { ...reply, stdout: Buffer.concat(output) } : reply);
    };
    if (pending.size === 0) holdOpen(launcher, true);
    pending.set(id, (reply) => {
      if (reply) settle(reply);
      else {
        settle(undefined);
        resolve({ kind: 'start-failed', errno: undefined, message: 'the process launcher stopped' });
      }
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    send(launcher, { kind: 'run', id, request: { ...request, args: [...request.args], env: { ...request.env } } });
  });
}

/**
 * The launcher, started now if it is not running: the engine starts it as it starts, while it is
 * small, so that the first search does not wait for it.
 */
export function startLauncher(): ChildProcess {
  if (helper) return helper;
  // On desktop VS Code the engine may run on Electron's executable: run it as Node.
  const started = spawn(process.execPath, ['-e', LAUNCHER_SOURCE], {
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    serialization: 'advanced',
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    windowsHide: true,
  });
  holdOpen(started, false);
  started.on('message', (message: LauncherMessage) => {
    if (message.kind !== 'data') {
      pending.get(message.id)?.(message);
      return;
    }
    if (!pending.has(message.id)) return;
    let output = outputs.get(message.id);
    if (!output) {
      output = [];
      outputs.set(message.id, output);
    }
    output.push(message.chunk);
  });
  const stopped = (): void => {
    if (helper === started) helper = undefined;
    for (const finish of [...pending.values()]) finish(undefined);
  };
  started.on('error', stopped);
  started.on('exit', stopped);
  helper = started;
  return started;
}

/** Lets the launcher keep the engine's event loop alive (work under way) or not (idle). */
function holdOpen(launcher: ChildProcess, open: boolean): void {
  if (open) {
    launcher.ref();
    launcher.channel?.ref();
  } else {
    launcher.unref();
    launcher.channel?.unref();
  }
}

/** A message to the launcher; one that stopped meanwhile fails its requests through 'exit'. */
function send(launcher: ChildProcess, message: unknown): void {
  if (launcher.connected) launcher.send(message as never, (error) => void error);
}

