/**
 * Runs caller-supplied JavaScript regular expressions (filters on names and paths, match ranges in
 * diffs) in a worker thread (regexWorkerThread.ts), under a time limit: a catastrophic pattern is
 * stopped there after its time, and the engine's event loop never waits for it meanwhile.
 */
import { Worker } from 'node:worker_threads';
import { entryPoint } from '../runtime/entryPoints';
import { ToolError } from '../messages/toolError';
import { echo } from '../http/echo';
import { errorMessage } from '../../contract/errorMessage';

const DEFAULT_TIMEOUT_MS = 1_000;
const MAX_PATTERN_LENGTH = 1_000;

/** What the worker (regexWorkerThread.ts) is asked: which inputs match, or where (at most `limit` ranges each). */
type RegexQuestion = { pattern: string; flags: string; inputs: string[]; timeoutMs: number } & ({ kind: 'test' } | { kind: 'ranges'; limit: number });

export type RegexRequest = RegexQuestion & { id: number };

export interface RegexReply {
  id: number;
  result?: unknown;
  error?: string;
  timedOut?: boolean;
}

/**
 * The worker thread of one running engine (server.ts makes it, its tools reach it through their
 * ToolContext, and closing the engine stops it): started on first use, it keeps nothing alive when
 * idle. Two engines in one process each have their own.
 */
export class RegexWorker {
  private worker: Worker | undefined;
  private nextId = 1;
  private closed = false;
  private readonly pending = new Map<number, (reply: RegexReply) => void>();

  run(question: RegexQuestion): Promise<RegexReply> {
    if (this.closed) return Promise.resolve({ id: 0, error: 'the engine is stopping' });
    const worker = this.start();
    const id = this.nextId++;
    worker.ref();
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      const request: RegexRequest = { ...question, id };
      worker.postMessage(request);
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const thread = entryPoint('search/regexWorkerThread');
    const worker = new Worker(thread.file, { execArgv: thread.nodeOptions });
    worker.on('message', (reply: RegexReply) => {
      this.pending.get(reply.id)?.(reply);
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
    });
    const fail = (message: string): void => {
      this.worker = undefined;
      for (const [id, resolve] of this.pending) resolve({ id, error: message });
      this.pending.clear();
    };
    worker.on('error', (error) => fail(error.message));
    worker.on('exit', () => fail('the regular expression worker stopped'));
    worker.unref();
    this.worker = worker;
    return worker;
  }

  /** Whether its thread is running (for tests and diagnostics). */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /** Stops the thread (questions under way fail, later ones are refused); resolves once it exited. */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    if (!worker) return;
    await worker.terminate();
    this.worker = undefined;
  }
}

/** POSIX bracket classes (`[[:digit:]]`), which git's regular expressions know, in JavaScript terms. */
const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alpha: 'A-Za-z',
  digit: '0-9',
  alnum: 'A-Za-z0-9',
  upper: 'A-Z',
  lower: 'a-z',
  space: '\\s',
  blank: ' \\t',
  xdigit: '0-9A-Fa-f',
  word: '\\w',
  punct: '!-\\/:-@\\[-`{-~',
  cntrl: '\\x00-\\x1f\\x7f',
  print: '\\x20-\\x7e',
  graph: '\\x21-\\x7e',
};

/** A POSIX-style pattern as the equivalent JavaScript one (only the bracket classes differ in practice). */
export function fromPosix(pattern: string): string {
  return pattern.replace(/\[:([a-z]+):\]/g, (match, name: string) => POSIX_CLASSES[name] ?? match);
}

/** Checks that `pattern` compiles as a JavaScript regular expression; the message names `what`. */
export function checkRegex(pattern: string, flags: string, what: string): void {
  if (pattern.length > MAX_PATTERN_LENGTH) throw new ToolError(`${what} is longer than ${MAX_PATTERN_LENGTH} characters: shorten it.`);
  try {
    new RegExp(pattern, flags);
  } catch (error) {
    const reason = errorMessage(error);
    throw new ToolError(`${what} ${echo(pattern)} is not a valid regular expression (${reason}): fix it, or escape special characters such as ( [ . * + ?.`);
  }
}

async function run(regexWorker: RegexWorker, question: RegexQuestion, what: string): Promise<unknown> {
  const pattern = question.pattern;
  const reply = await regexWorker.run(question);
  if (reply.timedOut) {
    throw new ToolError(`${what} ${echo(pattern)} takes too long to match and was stopped: simplify it (avoid nested repetition such as (a+)+).`);
  }
  if (reply.error !== undefined) throw new ToolError(`${what} ${echo(pattern)} could not be used: ${reply.error}`);
  return reply.result;
}

/** Which of `inputs` the pattern matches, bounded in time. */
export async function testEach(
  regexWorker: RegexWorker,
  pattern: string,
  flags: string,
  inputs: readonly string[],
  what: string,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<boolean[]> {
  checkRegex(pattern, flags, what);
  if (inputs.length === 0) return [];
  const result = await run(regexWorker, { kind: 'test', pattern, flags, inputs: [...inputs], timeoutMs }, what);
  return Array.isArray(result) ? result.map((value) => value === true) : inputs.map(() => false);
}

/** Where the pattern matches in each input: `[start, end)` character offsets, at most `limit` each. */
export async function matchRangesEach(
  regexWorker: RegexWorker,
  pattern: string,
  flags: string,
  inputs: readonly string[],
  what: string,
  limit = 20,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<Array<Array<[number, number]>>> {
  checkRegex(pattern, flags, what);
  if (inputs.length === 0) return [];
  const result = await run(regexWorker, { kind: 'ranges', pattern, flags, inputs: [...inputs], limit, timeoutMs }, what);
  if (!Array.isArray(result)) return inputs.map(() => []);
  return result.map((ranges: unknown) =>
    Array.isArray(ranges)
      ? ranges.flatMap((range: unknown) =>
          Array.isArray(range) && typeof range[0] === 'number' && typeof range[1] === 'number' ? [[range[0], range[1]] as [number, number]] : [],
        )
      : [],
  );
}

/** Offsets of every occurrence of `needle` in `text` (case-insensitive unless asked), at most `limit`. */
export function literalRanges(text: string, needle: string, caseSensitive: boolean, limit = 20): Array<[number, number]> {
  if (needle === '') return [];
  const haystack = caseSensitive ? text : text.toLowerCase();
  const wanted = caseSensitive ? needle : needle.toLowerCase();
  const ranges: Array<[number, number]> = [];
  let from = 0;
  while (ranges.length < limit) {
    const index = haystack.indexOf(wanted, from);
    if (index < 0) break;
    ranges.push([index, index + wanted.length]);
    from = index + wanted.length;
  }
  return ranges;
}
