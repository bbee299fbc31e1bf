/**
 * Runs caller-supplied JavaScript regular expressions (filters on names and paths, match ranges in
 * diffs) in a separate V8 context with a time limit, so a catastrophic pattern is stopped instead of
 * freezing the engine.
 */
import * as vm from 'node:vm';
import { ToolError } from './context';
import { echo } from '../echo';

const DEFAULT_TIMEOUT_MS = 1_000;
const MAX_PATTERN_LENGTH = 1_000;

const TEST_SCRIPT = new vm.Script('const re = new RegExp(pattern, flags); result = inputs.map((input) => re.test(input));');
const RANGES_SCRIPT = new vm.Script(`
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
`);

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
    const reason = error instanceof Error ? error.message : String(error);
    throw new ToolError(`${what} ${echo(pattern)} is not a valid regular expression (${reason}): fix it, or escape special characters such as ( [ . * + ?.`);
  }
}

function run(script: vm.Script, sandbox: Record<string, unknown>, what: string, pattern: string, timeoutMs: number): unknown {
  try {
    const context = vm.createContext(sandbox, { codeGeneration: { strings: false, wasm: false } });
    script.runInContext(context, { timeout: timeoutMs });
    return sandbox.result;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/timed out/i.test(message)) {
      throw new ToolError(`${what} ${echo(pattern)} takes too long to match and was stopped: simplify it (avoid nested repetition such as (a+)+).`);
    }
    throw new ToolError(`${what} ${echo(pattern)} could not be used: ${message}`);
  }
}

/** Which of `inputs` the pattern matches, bounded in time. */
export function testEach(pattern: string, flags: string, inputs: readonly string[], what: string, timeoutMs = DEFAULT_TIMEOUT_MS): boolean[] {
  checkRegex(pattern, flags, what);
  if (inputs.length === 0) return [];
  const result = run(TEST_SCRIPT, { pattern, flags, inputs: [...inputs], result: undefined }, what, pattern, timeoutMs);
  return Array.isArray(result) ? result.map((value) => value === true) : inputs.map(() => false);
}

/** Where the pattern matches in each input: `[start, end)` character offsets, at most `limit` each. */
export function matchRangesEach(
  pattern: string,
  flags: string,
  inputs: readonly string[],
  what: string,
  limit = 20,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Array<Array<[number, number]>> {
  checkRegex(pattern, flags, what);
  if (inputs.length === 0) return [];
  const result = run(RANGES_SCRIPT, { pattern, flags, inputs: [...inputs], limit, result: undefined }, what, pattern, timeoutMs);
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
