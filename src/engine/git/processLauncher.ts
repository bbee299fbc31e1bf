/**
 * Starts the engine's short-lived child processes (`git`, ripgrep) from a small helper process.
 * Starting a process copies the page tables of the process that starts it: from the engine, once it
 * holds search indexes of hundreds of megabytes, that costs tens of milliseconds per process
 * (measured: 4 ms at 50 MB, 67 ms at 550 MB), on whichever thread starts it, and the starts of the
 * searches made at once queue behind each other. The helper stays as small as it started, so each
 * start costs it what it costs a bare Node. It runs the process to its end within its bounds
 * (runtime/boundedProcess.ts: output cap, timeout, kill on request) and hands back its output over
 * the IPC channel; what the output means stays with the caller (git.ts). Each running engine has
 * its own launcher (`ProcessLauncher`), whose helper exits when that engine closes, or with the
 * engine's process (its channel closes).
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

/**
 * The launcher of one running engine (server.ts makes it as the engine starts, while the engine is
 * small, and stops its helper when the engine closes): two engines in one process each have their
 * own helper and their own calls under way.
 */
export class ProcessLauncher {
  private helper: ChildProcess | undefined;
  private nextId = 1;
  private closed = false;
  private readonly pending = new Map<number, (reply: LauncherReply | undefined) => void>();
  /** The output so far of each process under way. */
  private readonly outputs = new Map<number, Uint8Array[]>();

  /** Runs a process to its end from the launcher; `signal` stops it (the outcome is then `aborted`). */
  launch(request: LaunchRequest, signal?: AbortSignal): Promise<LaunchOutcome> {
    if (signal?.aborted) return Promise.resolve({ kind: 'aborted' });
    if (this.closed) return Promise.resolve({ kind: 'start-failed', errno: undefined, message: 'the engine is stopping' });
    const launcher = this.start();
    const id = this.nextId++;
    const { pending, outputs } = this;
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
   * The helper, started now if it is not running: the engine starts it as it starts, while it is
   * small, so that the first search does not wait for it.
   */
  start(): ChildProcess {
    if (this.helper) return this.helper;
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
        this.pending.get(message.id)?.(message);
        return;
      }
      if (!this.pending.has(message.id)) return;
      let output = this.outputs.get(message.id);
      if (!output) {
        output = [];
        this.outputs.set(message.id, output);
      }
      output.push(message.chunk);
    });
    const stopped = (): void => {
      if (this.helper === started) this.helper = undefined;
      for (const finish of [...this.pending.values()]) finish(undefined);
    };
    started.on('error', stopped);
    started.on('exit', stopped);
    this.helper = started;
    return started;
  }

  /** The helper's process id while it runs (for tests and diagnostics). */
  get pid(): number | undefined {
    return this.helper?.pid;
  }

  /**
   * Stops the helper (it ends what it still runs as its channel closes) and refuses later calls;
   * resolves once it exited.
   */
  async close(): Promise<void> {
    this.closed = true;
    const helper = this.helper;
    if (!helper) return;
    const exited = new Promise<void>((resolve) => {
      if (helper.exitCode !== null || helper.signalCode !== null) resolve();
      else helper.once('exit', () => resolve());
    });
    // Whoever awaits the close keeps the process alive until the helper is gone: an idle helper is
    // unreferenced (holdOpen), and a process with nothing else to do would otherwise end before its
    // exit is seen, leaving the awaiting caller hanging with nothing to show for it.
    helper.ref();
    if (helper.connected) helper.disconnect();
    else helper.kill();
    await exited;
  }
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
