/**
 * Runs caller-supplied JavaScript regular expressions (filters on names and paths, match ranges in
 * diffs) in a worker thread, in a separate V8 context with a time limit: a catastrophic pattern is
 * stopped there after its time, and the engine's event loop never waits for it meanwhile.
 */
import { Worker } from 'node:worker_threads';
import { ToolError } from '../tools/context';
import { echo } from '../echo';
import { errorMessage } from '../../contract/errorMessage';

const DEFAULT_TIMEOUT_MS = 1_000;
const MAX_PATTERN_LENGTH = 1_000;

const TEST_SCRIPT = 'const re = new RegExp(pattern, flags); result = inputs.map((input) => re.test(input));';
const RANGES_SCRIPT = `
  const re = new RegExp(pattern, flags.includes('g') ? flags : flags + 'g');
  result = inputs.map((input) => {
    const found = [];
    re.lastIndex = 0;
    let match;
    while (found.length < limit && (match = re.exec(input)) !== null) {
      if (match[0] === '') { re.lastIndex++; continue; }
      found.push([match.index, match.index + match[0].length]);
    }
    return found;
  });
`;

/**
 * The worker: runs one script at a time in a fresh context under the time limit and posts back the
 * result or what went wrong. Source text, so that it runs the same from the bundles and from tsx.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const vm = require('node:vm');
const scripts = { test: new vm.Script(${JSON.stringify(TEST_SCRIPT)}), ranges: new vm.Script(${JSON.stringify(RANGES_SCRIPT)}) };
parentPort.on('message', ({ id, script, sandbox, timeoutMs }) => {
  try {
    const context = vm.createContext(sandbox, { codeGeneration: { strings: false, wasm: false } });
    scripts[script].runInContext(context, { timeout: timeoutMs });
    parentPort.postMessage({ id, result: sandbox.result });
  } catch (error) {
    const message = error && error.message ? String(error.message) : String(error);
    parentPort.postMessage({ id, error: message, timedOut: /timed out/i.test(message) });
  }
});
`;

interface WorkerReply {
  id: number;
  result?: unknown;
  error?: string;
  timedOut?: boolean;
}

/** One worker for the engine process, started on first use; it keeps nothing alive when idle. */
class RegexWorker {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, (reply: WorkerReply) => void>();

  run(script: 'test' | 'ranges', sandbox: Record<string, unknown>, timeoutMs: number): Promise<WorkerReply> {
    const worker = this.start();
    const id = this.nextId++;
    worker.ref();
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      worker.postMessage({ id, script, sandbox, timeoutMs });
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.on('message', (reply: WorkerReply) => {
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
}

const regexWorker = new RegexWorker();

/** POSIX bracket classes (`[[:digit:]]`), which git's regular expressions know, in JavaScript terms. */
const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alpha: 'A-Za-z', digit: '0-9', alnum: 'A-Za-z0-9', upper: 'A-Z', lower: 'a-z', space: '\\s', blank: ' \\t',
  xdigit: '0-9A-Fa-f', word: '\\w', punct: '!-\\/:-@\\[-`{-~', cntrl: '\\x00-\\x1f\\x7f', print: '\\x20-\\x7e', graph: '\\x21-\\x7e',
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

async function run(script: 'test' | 'ranges', sandbox: Record<string, unknown>, what: string, pattern: string, timeoutMs: number): Promise<unknown> {
  const reply = await regexWorker.run(script, sandbox, timeoutMs);
  if (reply.timedOut) {
    throw new ToolError(`${what} ${echo(pattern)} takes too long to match and was stopped: simplify it (avoid nested repetition such as (a+)+).`);
  }
  if (reply.error !== undefined) throw new ToolError(`${what} ${echo(pattern)} could not be used: ${reply.error}`);
  return reply.result;
}

/** Which of `inputs` the pattern matches, bounded in time. */
export async function testEach(pattern: string, flags: string, inputs: readonly string[], what: string, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<boolean[]> {
  checkRegex(pattern, flags, what);
  if (inputs.length === 0) return [];
  const result = await run('test', { pattern, flags, inputs: [...inputs], result: undefined }, what, pattern, timeoutMs);
  return Array.isArray(result) ? result.map((value) => value === true) : inputs.map(() => false);
}

/** Where the pattern matches in each input: `[start, end)` character offsets, at most `limit` each. */
export async function matchRangesEach(
  pattern: string,
  flags: string,
  inputs: readonly string[],
  what: string,
  limit = 20,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<Array<Array<[number, number]>>> {
  checkRegex(pattern, flags, what);
  if (inputs.length === 0) return [];
  const result = await run('ranges', { pattern, flags, inputs: [...inputs], limit, result: undefined }, what, pattern, timeoutMs);
  if (!Array.isArray(result)) return inputs.map(() => []);
  return result.map((ranges: unknown) =>
    Array.isArray(ranges)
      ? ranges.flatMap((range: unknown) => (Array.isArray(range) && typeof range[0] === 'number' && typeof range[1] === 'number' ? [[range[0], range[1]] as [number, number]] : []))
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
