/**
 * Starts the engine's short-lived child processes (`git`, ripgrep) from a small helper process.
 * Starting a process copies the page tables of the process that starts it: from the engine, once it
 * holds search indexes of hundreds of megabytes, that costs tens of milliseconds per process
 * (measured: 4 ms at 50 MB, 67 ms at 550 MB), on whichever thread starts it, and the starts of the
 * searches made at once queue behind each other. The helper stays as small as it started, so each
 * start costs it what it costs a bare Node. It runs the process to its end within its bounds
 * (runtime/boundedProcess.ts: output cap, timeout, kill on request) and hands back its output over
 * the IPC channel; what the output means stays with the caller (git.ts). The helper exits with the
 * engine (its channel closes).
 *
 * The helper is processLauncherChild.ts, a bundle of its own in dist/ (entryPoints.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { BoundedOutcome, BoundedRun } from '../runtime/boundedProcess';
import { entryPoint } from '../runtime/entryPoints';

/** A process to run (runtime/boundedProcess.ts says each bound); the launcher runs it at normal priority. */
export type LaunchRequest = Omit<BoundedRun, 'lowPriority'>;

export type LaunchOutcome = BoundedOutcome;

/** What the engine asks of the launcher: run a process, or stop one under way. */
export type LauncherRequest = { kind: 'run'; id: number; request: LaunchRequest } | { kind: 'stop'; id: number };

/** A piece of a process's output, as it comes; then its outcome. */
export type LauncherMessage = { id: number; kind: 'data'; chunk: Uint8Array } | LauncherReply;

/** How a process ended, as the launcher tells it (its output came before, in pieces). */
export type LauncherOutcome = Exclude<BoundedOutcome, { kind: 'exited' }> | { kind: 'exited'; code: number | null; stderr: string; truncated: boolean };

export type LauncherReply = { id: number } & LauncherOutcome;

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
  const child = entryPoint('git/processLauncherChild');
  // On desktop VS Code the engine may run on Electron's executable: run it as Node.
  const started = spawn(process.execPath, [...child.nodeOptions, child.file], {
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
function send(launcher: ChildProcess, message: LauncherRequest): void {
  if (launcher.connected) launcher.send(message, (error) => void error);
}
