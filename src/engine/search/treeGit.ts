/**
 * The search worker's own git (searchWorkerThread.ts): the engine's command line and environment
 * (searchWorker.ts's `WorkerInit`), each run bounded by runtime/boundedProcess.ts, so that the
 * engine's thread never handles the tree or its text.
 */
import { runBounded, type BoundedOutcome, type BoundedRun } from '../runtime/boundedProcess';
import type { WorkerInit } from './searchWorker';

/** Bytes of git's error output kept for its message. */
const STDERR_KEPT_BYTES = 4096;

export class TreeGit {
  constructor(private readonly git: WorkerInit['git']) {}

  /** Runs `git <args>` with `input` on stdin and resolves with its stdout, at most `maxBytes` of it. */
  async output(args: string[], input: Buffer | string | undefined, maxBytes: number): Promise<Buffer> {
    const outcome = await runBounded(this.run(args, input, maxBytes, false));
    return this.stdout(args, maxBytes, outcome);
  }

  /**
   * Runs `git <args>` after the machine's other work, and hands each piece of its stdout (at most
   * `maxBytes` in all) to `onChunk` as it comes; a piece `onChunk` throws on stops git, and the run
   * fails with that error.
   */
  async stream(args: string[], input: Buffer | string, maxBytes: number, onChunk: (chunk: Buffer) => void): Promise<void> {
    const stop = new AbortController();
    let refused: { error: unknown } | undefined = undefined;
    const outcome = await runBounded(this.run(args, input, maxBytes, true), {
      signal: stop.signal,
      onOutput: (chunk) => {
        if (refused) return;
        try {
          onChunk(chunk);
        } catch (error) {
          refused = { error };
          stop.abort();
        }
      },
    });
    if (refused) throw (refused as { error: unknown }).error;
    this.stdout(args, maxBytes, outcome);
  }

  private run(args: string[], input: Buffer | string | undefined, maxBytes: number, lowPriority: boolean): BoundedRun {
    const git = this.git;
    return {
      command: git.command,
      args: [...git.args, ...args],
      cwd: git.cwd,
      env: git.env,
      timeoutMs: git.timeoutMs,
      maxOutputBytes: maxBytes,
      truncate: false,
      stderrKeptBytes: STDERR_KEPT_BYTES,
      // Always a stdin: git reads none for most commands, and an empty one ends at once.
      input: input ?? Buffer.alloc(0),
      lowPriority,
    };
  }

  /** The output of a run that succeeded, or the error that says why it did not. */
  private stdout(args: string[], maxBytes: number, outcome: BoundedOutcome): Buffer {
    const command = 'git ' + args[0];
    switch (outcome.kind) {
      case 'exited':
        if (outcome.code !== 0) throw new Error(command + ' failed: ' + (outcome.stderr.trim().split('\n')[0] || 'exit code ' + outcome.code));
        return outcome.stdout;
      case 'timeout':
        throw new Error(command + ' took over ' + this.git.timeoutMs / 1000 + ' s');
      case 'output-limit':
        throw new Error(command + ' printed more than ' + maxBytes + ' bytes');
      case 'start-failed':
        throw new Error(outcome.message);
      case 'aborted':
        throw new Error(command + ' was stopped');
    }
  }
}
