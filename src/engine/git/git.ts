/**
 * The one way the engine runs git: no shell, a fixed safe environment, a timeout, an output cap and
 * cancellation. Callers put anything that came from a user after `-e` or `--`, never as an option.
 */
import { accessSync, constants } from 'node:fs';
import { runBounded } from '../runtime/boundedProcess';
import type { LaunchRequest, ProcessLauncher } from './processLauncher';

export interface GitRunOptions {
  /** Working directory: a work tree or a bare repository. */
  cwd: string;
  /** Default 15 s. */
  timeoutMs?: number;
  /** Bytes of stdout kept before the run stops. Default 8 MiB. */
  maxOutputBytes?: number;
  /** When stdout exceeds `maxOutputBytes`: fail (default) or stop git and return what was read. */
  onOutputLimit?: 'fail' | 'truncate';
  /** Exit codes that count as success. Default `[0]` (`git grep` uses 1 for "no match"). */
  okExitCodes?: readonly number[];
  signal?: AbortSignal;
  /** Written to git's stdin. */
  input?: string | Uint8Array;
  /** An index of the caller's own (`GIT_INDEX_FILE`), so that the repository's is neither read nor written. */
  indexFile?: string;
  /**
   * The engine's process launcher, which starts git off the engine's thread; without one (a caller
   * outside a running engine: the CLI's check, tests) git starts from this process.
   */
  launcher?: ProcessLauncher;
}

export interface GitResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** True when the output hit `maxOutputBytes` and `onOutputLimit` was `truncate`. */
  truncated: boolean;
}

/** `unavailable`: the repository's folder is gone or cannot be read (git itself is there). */
export type GitErrorKind = 'not-found' | 'unavailable' | 'exit' | 'timeout' | 'output-limit' | 'aborted';

export class GitError extends Error {
  constructor(
    message: string,
    readonly kind: GitErrorKind,
    readonly exitCode?: number,
    readonly stderr = '',
  ) {
    super(message);
    this.name = 'GitError';
  }
}

const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_MAX_OUTPUT_BYTES = 8 * 1024 * 1024;
const STDERR_KEPT_BYTES = 16 * 1024;

/** Config that keeps git from running repository-controlled helpers or rewriting names. */
const SAFE_CONFIG = ['-c', 'core.quotepath=off', '-c', 'core.fsmonitor=false', '-c', 'core.pager=cat'];

function gitEnvironment(indexFile?: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...(indexFile !== undefined ? { GIT_INDEX_FILE: indexFile } : {}),
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    GIT_OPTIONAL_LOCKS: '0',
    LC_ALL: 'C',
  };
}

/**
 * Runs `git <args>` in `options.cwd` and resolves with its output, or rejects with a `GitError`.
 * Within an engine the process is started off the engine's thread (processLauncher.ts).
 */
export async function runGit(args: readonly string[], options: GitRunOptions): Promise<GitResult> {
  const result = await runGitBytes(args, options);
  return { ...result, stdout: result.stdout.toString('utf8') };
}

/** `runGit` with stdout as the bytes git printed. */
export async function runGitBytes(args: readonly string[], options: GitRunOptions): Promise<Omit<GitResult, 'stdout'> & { stdout: Buffer }> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const okExitCodes = options.okExitCodes ?? [0];
  const command = describe(args);
  if (options.signal?.aborted) throw new GitError(`${command} was cancelled before it started`, 'aborted');
  const request: LaunchRequest = {
    command: 'git',
    args: [...SAFE_CONFIG, ...args],
    cwd: options.cwd,
    env: gitEnvironment(options.indexFile),
    timeoutMs,
    maxOutputBytes,
    truncate: options.onOutputLimit === 'truncate',
    stderrKeptBytes: STDERR_KEPT_BYTES,
    ...(options.input !== undefined ? { input: options.input } : {}),
  };
  const signal = options.signal;
  const outcome = options.launcher ? await options.launcher.launch(request, signal) : await runBounded(request, signal ? { signal } : {});
  switch (outcome.kind) {
    case 'aborted':
      throw new GitError(`${command} was cancelled`, 'aborted');
    case 'timeout':
      throw new GitError(`${command} timed out after ${timeoutMs} ms`, 'timeout');
    case 'output-limit':
      throw new GitError(`${command} produced more than ${maxOutputBytes} bytes of output`, 'output-limit');
    case 'start-failed':
      throw startError(outcome.errno, outcome.message, command, options.cwd);
    case 'exited': {
      const { code, stderr, truncated, stdout } = outcome;
      if (truncated) return { stdout, stderr, exitCode: code ?? 0, truncated };
      if (code !== null && okExitCodes.includes(code)) return { stdout, stderr, exitCode: code, truncated };
      const detail = firstLine(stderr) || `exit code ${code ?? 'none'}`;
      throw new GitError(`${command} failed: ${detail}`, 'exit', code ?? undefined, stderr);
    }
  }
}

/** The command line and environment every git of the engine runs with, for a thread that starts one itself. */
export function gitCommand(args: readonly string[]): { command: string; args: string[]; env: NodeJS.ProcessEnv } {
  return { command: 'git', args: [...SAFE_CONFIG, ...args], env: gitEnvironment() };
}

/**
 * Why git could not start. A working folder that is gone fails the same way as a missing git
 * (ENOENT), so the folder is checked first: a deleted repository is never reported as a missing git.
 */
function startError(errno: string | undefined, message: string, command: string, cwd: string): GitError {
  try {
    accessSync(cwd, constants.R_OK | constants.X_OK);
  } catch {
    return new GitError(`the repository folder ${cwd} is gone or cannot be read (moved, deleted, or its permissions changed)`, 'unavailable');
  }
  if (errno === 'ENOENT') return new GitError('git was not found: install git and make sure it is on PATH', 'not-found');
  return new GitError(`could not start ${command}: ${message}`, 'not-found');
}

/** `git grep` etc.: names the subcommand in errors without repeating user-supplied patterns. */
function describe(args: readonly string[]): string {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '-c' || arg === '-C') i++;
    else if (!arg.startsWith('-')) return `git ${arg}`;
  }
  return 'git';
}

function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? ''
  );
}
