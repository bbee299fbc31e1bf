/**
 * Whether a quote is code a file holds: every non-blank line of the quote matches a non-blank line
 * of the file, in order and consecutively, whitespace aside. A line that is only an ellipsis
 * (`...`, `…`, or a comment that starts with one, as `// ... the rest`) marks an elided part: the
 * lines after it continue anywhere further down the file. Linear in the file and the quote (each
 * run of lines between ellipses is found with Knuth–Morris–Pratt).
 */

/** A quote's lines, split where it elides code; empty when it quotes nothing. */
export type QuoteParts = readonly (readonly string[])[];

export interface QuotedSpan {
  /** 1-based lines of the file, inclusive. */
  start: number;
  end: number;
}

/** Only an ellipsis, bare or after a comment marker, with anything after it in a comment. */
const ELLIPSIS = /^(?:(?:\.{3,}|…)|(?:\/\/|#|--|;|\/\*+|\*|<!--)\s*(?:\.{3,}|…).*)$/;

export function quoteParts(quote: readonly string[]): QuoteParts {
  const parts: string[][] = [[]];
  for (const line of quote) {
    const trimmed = line.trim();
    if (trimmed === '') continue;
    if (ELLIPSIS.test(trimmed)) {
      if ((parts.at(-1)?.length ?? 0) > 0) parts.push([]);
      continue;
    }
    parts.at(-1)?.push(normal(trimmed));
  }
  return parts.filter((part) => part.length > 0);
}

/** The quote's longest line as written, for a search of the repository. */
export function distinctiveLine(quote: readonly string[]): string | undefined {
  let best: string | undefined;
  for (const line of quote) {
    const trimmed = line.trim();
    if (trimmed === '' || ELLIPSIS.test(trimmed)) continue;
    if (best === undefined || trimmed.length > best.length) best = trimmed;
  }
  return best;
}

/** A file's non-blank lines, whitespace aside, with their line numbers. */
export interface FileText {
  lines: readonly string[];
  numbers: readonly number[];
}

export function fileText(lines: readonly string[]): FileText {
  const kept: string[] = [];
  const numbers: number[] = [];
  lines.forEach((line, index) => {
    const text = normal(line);
    if (text === '') return;
    kept.push(text);
    numbers.push(index + 1);
  });
  return { lines: kept, numbers };
}

/** Where the whole quote is in the file, within lines `from`–`to` (1-based, inclusive) when given. */
export function findQuote(file: FileText, parts: QuoteParts, within?: QuotedSpan): QuotedSpan | undefined {
  let lo = 0;
  let hi = file.lines.length;
  if (within) {
    while (lo < hi && (file.numbers[lo] ?? 0) < within.start) lo++;
    while (hi > lo && (file.numbers[hi - 1] ?? 0) > within.end) hi--;
  }
  let at = lo;
  let first: number | undefined;
  for (const part of parts) {
    const found = indexOfRun(file.lines, part, at, hi);
    if (found < 0) return undefined;
    first ??= found;
    at = found + part.length;
  }
  if (first === undefined) return undefined;
  return { start: file.numbers[first] ?? 1, end: file.numbers[at - 1] ?? 1 };
}

function normal(line: string): string {
  return line.replace(/\s+/g, '');
}

/** The first index in `lines[from..to)` where `run` starts, or -1 (Knuth–Morris–Pratt). */
function indexOfRun(lines: readonly string[], run: readonly string[], from: number, to: number): number {
  const failure = new Array<number>(run.length).fill(0);
  for (let index = 1, matched = 0; index < run.length; index++) {
    while (matched > 0 && run[index] !== run[matched]) matched = failure[matched - 1] ?? 0;
    if (run[index] === run[matched]) matched++;
    failure[index] = matched;
  }
  for (let index = from, matched = 0; index < to; index++) {
    while (matched > 0 && lines[index] !== run[matched]) matched = failure[matched - 1] ?? 0;
    if (lines[index] === run[matched]) matched++;
    if (matched === run.length) return index - run.length + 1;
  }
  return -1;
}
