/**
 * The engine's one way to run a short-lived process: no shell, its stdout bounded in bytes (kept,
 * or handed on piece by piece as it comes), its time bounded, and cancellation. The process
 * launcher's helper runs git and ripgrep with it (git/processLauncherChild.ts), the search worker
 * its own git (search/treeGit.ts); what the output means stays with them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';

export interface BoundedRun {
  command: string;
  args: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  timeoutMs: number;
  /** Bytes of stdout the process may print; past them it is killed and `truncate` says how that ends. */
  maxOutputBytes: number;
  /** Past the cap: keep what was read (`truncated`), or end with `output-limit`. */
  truncate: boolean;
  stderrKeptBytes: number;
  /** Written to the process's stdin (then closed); none: stdin is not connected. */
  input?: string | Uint8Array;
  /** Runs after the machine's other work (a higher nice value) where the system lets it. */
  lowPriority?: boolean;
}

export type BoundedOutcome =
  | { kind: 'exited'; code: number | null; stdout: Buffer; stderr: string; truncated: boolean }
  | { kind: 'start-failed'; errno: string | undefined; message: string }
  | { kind: 'timeout' }
  | { kind: 'output-limit' }
  | { kind: 'aborted' };

export interface BoundedOptions {
  /** Each piece of stdout as it comes; without it, stdout is gathered into the outcome's `stdout`. */
  onOutput?: (chunk: Buffer) => void;
  /** Stops the process; the outcome is then `aborted`. */
  signal?: AbortSignal;
}

/** Runs a process to its end within its bounds; never rejects (a failure is an outcome). */
export function runBounded(run: BoundedRun, options: BoundedOptions = {}): Promise<BoundedOutcome> {
  const { onOutput, signal } = options;
  if (signal?.aborted) return Promise.resolve({ kind: 'aborted' });
  return new Promise((resolve) => {
    let settled = false;
    let stdoutBytes = 0;
    let stderr = '';
    let truncated = false;
    const kept: Buffer[] = [];
    // Set once the process starts: a start that fails finishes before it.
    let timer: NodeJS.Timeout | undefined = undefined;
    let onAbort: (() => void) | undefined = undefined;
    const finish = (outcome: BoundedOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    let child: ChildProcess;
    try {
      child = spawn(run.command, [...run.args], {
        cwd: run.cwd,
        env: run.env,
        stdio: [run.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        windowsHide: true,
      });
    } catch (error) {
      const failure = error as NodeJS.ErrnoException | undefined;
      finish({ kind: 'start-failed', errno: failure?.code, message: String(failure?.message) });
      return;
    }
    // No pid: it did not start ('error' says so below).
    if (run.lowPriority && child.pid !== undefined) {
      try {
        os.setPriority(child.pid, os.constants.priority.PRIORITY_BELOW_NORMAL);
      } catch {
        // Not allowed here: it runs at the engine's own priority.
      }
    }
    const { stdin, stdout, stderr: errors } = child;
    // Stopping settles at once: a killed process may leave a grandchild holding the pipes.
    const stop = (kind: 'aborted' | 'timeout' | 'output-limit'): void => {
      child.kill('SIGKILL');
      stdout?.destroy();
      errors?.destroy();
      finish({ kind });
    };
    onAbort = () => stop('aborted');
    signal?.addEventListener('abort', onAbort, { once: true });
    timer = setTimeout(() => stop('timeout'), run.timeoutMs);
    if (run.input !== undefined) {
      // A process that exits without reading it all closes the pipe: not an error of ours.
      stdin?.on('error', () => undefined);
      stdin?.end(run.input);
    }
    const pass = (chunk: Buffer): void => {
      if (chunk.length === 0) return;
      if (onOutput) onOutput(chunk);
      else kept.push(chunk);
    };
    stdout?.on('data', (chunk: Buffer) => {
      if (truncated || settled) return;
      const room = run.maxOutputBytes - stdoutBytes;
      if (chunk.length <= room) {
        stdoutBytes += chunk.length;
        pass(chunk);
        return;
      }
      if (!run.truncate) {
        stop('output-limit');
        return;
      }
      stdoutBytes += room;
      truncated = true;
      pass(chunk.subarray(0, room));
      child.kill('SIGKILL');
    });
    errors?.on('data', (chunk: Buffer) => {
      if (stderr.length < run.stderrKeptBytes) stderr += chunk.toString('utf8');
    });
    child.on('error', (error: NodeJS.ErrnoException) => finish({ kind: 'start-failed', errno: error.code, message: error.message }));
    child.on('close', (code: number | null) => finish({ kind: 'exited', code, stdout: Buffer.concat(kept), stderr, truncated }));
  });
}
