/**
 * Keyword search over a repository's committed tree with `git grep`, ranking of the files it finds,
 * and the line windows around their best matches that the answer quotes.
 */
import { runGit } from '../git';
import type { ServedRepository } from '../repos';

export interface MatchedLine {
  /** 1-based. */
  line: number;
  text: string;
  /** Search terms that occur on this line (case-insensitive). */
  terms: string[];
}

export interface FileMatch {
  repo: ServedRepository;
  commit: string;
  path: string;
  /** Matching lines per term. */
  termHits: Map<string, number>;
  /** Number of matching lines. */
  hits: number;
  /** The first matching lines, in file order. */
  lines: MatchedLine[];
}

export interface LineWindow {
  /** 1-based, inclusive. */
  start: number;
  end: number;
}

export interface GitCallOptions {
  signal: AbortSignal;
  timeoutMs: number;
}

const GREP_MAX_OUTPUT_BYTES = 4 * 1024 * 1024;
const BLOB_MAX_BYTES = 1024 * 1024;
const KEPT_LINES_PER_FILE = 200;

/** The commit HEAD points at, or undefined for a repository without commits. */
export async function resolveHead(repo: ServedRepository, options: GitCallOptions): Promise<string | undefined> {
  const result = await runGit(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], {
    cwd: repo.dir,
    signal: options.signal,
    timeoutMs: options.timeoutMs,
    okExitCodes: [0, 1],
  });
  const commit = result.stdout.trim();
  return result.exitCode === 0 && /^[0-9a-f]{40,64}$/.test(commit) ? commit : undefined;
}

export interface GrepOutcome {
  matches: FileMatch[];
  /** Bytes of output git produced (the "input" the answerer read). */
  bytesRead: number;
  truncated: boolean;
}

/** Case-insensitive fixed-string search for any of `terms` in the text files of `commit`. */
export async function grepRepository(
  repo: ServedRepository,
  commit: string,
  terms: readonly string[],
  options: GitCallOptions,
): Promise<GrepOutcome> {
  const patterns = terms.flatMap((term) => ['-e', term]);
  const result = await runGit(['grep', '-I', '-i', '-F', '-n', '--null', ...patterns, commit, '--'], {
    cwd: repo.dir,
    signal: options.signal,
    timeoutMs: options.timeoutMs,
    maxOutputBytes: GREP_MAX_OUTPUT_BYTES,
    onOutputLimit: 'truncate',
    okExitCodes: [0, 1],
  });
  const lowerTerms = terms.map((term) => term.toLowerCase());
  const files = new Map<string, FileMatch>();
  const prefix = `${commit}:`;
  for (const record of result.stdout.split('\n')) {
    const nameEnd = record.indexOf('\0');
    const numberEnd = record.indexOf('\0', nameEnd + 1);
    if (nameEnd < 0 || numberEnd < 0) continue; // the last line of truncated output
    const name = record.slice(0, nameEnd);
    const path = name.startsWith(prefix) ? name.slice(prefix.length) : name;
    const line = Number(record.slice(nameEnd + 1, numberEnd));
    const text = record.slice(numberEnd + 1);
    const lowerText = text.toLowerCase();
    const lineTerms = terms.filter((_term, index) => lowerText.includes(lowerTerms[index] ?? ''));
    if (!Number.isInteger(line) || lineTerms.length === 0) continue;
    let file = files.get(path);
    if (!file) {
      file = { repo, commit, path, termHits: new Map(), hits: 0, lines: [] };
      files.set(path, file);
    }
    file.hits++;
    for (const term of lineTerms) file.termHits.set(term, (file.termHits.get(term) ?? 0) + 1);
    if (file.lines.length < KEPT_LINES_PER_FILE) file.lines.push({ line, text, terms: lineTerms });
  }
  return { matches: [...files.values()], bytesRead: Buffer.byteLength(result.stdout), truncated: result.truncated };
}

/** Most distinct terms first, then most matching lines, then by repository and path. */
export function rankMatches(matches: readonly FileMatch[]): FileMatch[] {
  return [...matches].sort(
    (a, b) =>
      b.termHits.size - a.termHits.size ||
      b.hits - a.hits ||
      a.repo.name.localeCompare(b.repo.name) ||
      a.path.localeCompare(b.path),
  );
}

/** The file's text at the match's commit, cut at 1 MiB. */
export async function readBlob(match: FileMatch, options: GitCallOptions): Promise<string> {
  const result = await runGit(['cat-file', 'blob', `${match.commit}:${match.path}`], {
    cwd: match.repo.dir,
    signal: options.signal,
    timeoutMs: options.timeoutMs,
    maxOutputBytes: BLOB_MAX_BYTES,
    onOutputLimit: 'truncate',
  });
  return result.stdout;
}

/**
 * Up to `maxWindows` windows of `context` lines either side of the lines that match the most
 * terms, merged where they touch, in file order.
 */
export function excerptWindows(match: FileMatch, lineCount: number, context = 3, maxWindows = 2): LineWindow[] {
  const best = [...match.lines].sort((a, b) => b.terms.length - a.terms.length || a.line - b.line);
  const windows: LineWindow[] = [];
  for (const candidate of best) {
    if (windows.length === maxWindows) break;
    if (candidate.line > lineCount) continue;
    if (windows.some((window) => candidate.line >= window.start && candidate.line <= window.end)) continue;
    windows.push({ start: Math.max(1, candidate.line - context), end: Math.min(lineCount, candidate.line + context) });
  }
  windows.sort((a, b) => a.start - b.start);
  const merged: LineWindow[] = [];
  for (const window of windows) {
    const last = merged[merged.length - 1];
    if (last && window.start <= last.end + 1) last.end = Math.max(last.end, window.end);
    else merged.push({ ...window });
  }
  return merged;
}

/** Splits file text into lines the way line numbers count them (a final newline ends the last line). */
export function splitLines(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}
