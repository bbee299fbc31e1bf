/**
 * The shape search and navigation results share: file blocks of numbered line chunks, cut to bounded
 * sizes, and the blob reading they are built from.
 */
import type { ServedRepository } from '../git/repos';
import { runGitBytes } from '../git/git';
import { explainGitError, git, type ToolContext } from './context';
import type { SearchTarget } from './grep';

export interface Chunk {
  startLine: number;
  endLine: number;
  /** `N: line` per line, joined with newlines. */
  content: string;
}

export interface FileBlock {
  type: 'file';
  repo: string;
  file: string;
  rev: string;
  chunks: Chunk[];
}

export const MAX_LINE_CHARS = 256;
export const MAX_CHUNK_CHARS = 1024;

export interface BlobText {
  text: string;
  /** False when the bytes were not valid UTF-8 (they show as U+FFFD). */
  utf8: boolean;
  /** True when the blob was longer than the bytes read. */
  truncated: boolean;
  /** True when the first 8000 bytes hold a NUL byte, as git decides "binary". */
  binary: boolean;
}

/** Reads a blob as text, at most `maxBytes` of it. */
export async function readBlobText(
  context: ToolContext,
  repo: ServedRepository,
  object: string,
  size: number | undefined,
  maxBytes: number,
): Promise<BlobText> {
  const result = await git(context, repo, ['cat-file', 'blob', object], { maxOutputBytes: maxBytes, onOutputLimit: 'truncate', timeoutMs: 20_000 });
  const text = result.stdout;
  const truncated = result.truncated || (size !== undefined && size > maxBytes);
  const binary = text.slice(0, 8000).includes('\0');
  // Valid UTF-8 decodes and re-encodes to the same length; invalid bytes become 3-byte U+FFFD.
  const utf8 = truncated || size === undefined ? !text.includes('\uFFFD') : !(text.includes('\uFFFD') && Buffer.byteLength(text, 'utf8') !== size);
  return { text, utf8, truncated, binary };
}

/**
 * Blobs of a target's commit as their bytes, many at once: one `git cat-file --batch-check` for
 * their sizes, then one `--batch` for those of at most `maxBytes` (the files shown by a search: a
 * few, so the sizes cost less than listing the tree would). Paths git cannot take on a line, larger
 * blobs and missing ones are left out (the caller reads those one by one).
 */
export async function readBlobsAtOnce(context: ToolContext, target: SearchTarget, paths: readonly string[], maxBytes: number): Promise<Map<string, Buffer>> {
  const found = new Map<string, Buffer>();
  const named = paths.filter((path) => !/[\n\r]/.test(path));
  if (named.length === 0) return found;
  const cat = (args: string[], input: string, maxOutputBytes: number): Promise<Buffer> =>
    runGitBytes(['cat-file', ...args], {
      cwd: target.repo.dir,
      signal: context.signal,
      input,
      maxOutputBytes,
      timeoutMs: 20_000,
      launcher: context.launcher,
    }).then(
      (result) => result.stdout,
      (error: unknown) => {
        throw explainGitError(error, target.repo);
      },
    );
  // One line per name: "<id> blob <size>", or "<name> missing" (or another type).
  const names = named.map((path) => `${target.commit}:${path}\n`).join('');
  const checked = (await cat(['--batch-check'], names, Buffer.byteLength(names) + named.length * 100)).toString('latin1').split('\n');
  const wanted: { path: string; id: string; size: number }[] = [];
  named.forEach((path, at) => {
    const header = /^([0-9a-f]{40,64}) blob (\d+)$/.exec(checked[at] ?? '');
    if (header?.[1] && Number(header[2]) <= maxBytes) wanted.push({ path, id: header[1], size: Number(header[2]) });
  });
  if (wanted.length === 0) return found;
  // Each blob comes as "<id> blob <size>\n<bytes>\n".
  const room = wanted.reduce((sum, blob) => sum + blob.size + 100, 0);
  const output = await cat(['--batch'], wanted.map((blob) => `${blob.id}\n`).join(''), room);
  let at = 0;
  for (const { path } of wanted) {
    const lineEnd = output.indexOf(0x0a, at);
    if (lineEnd === -1) break;
    const header = /^[0-9a-f]{40,64} blob (\d+)$/.exec(output.toString('latin1', at, lineEnd));
    at = lineEnd + 1;
    if (!header) continue;
    const size = Number(header[1]);
    found.set(path, output.subarray(at, at + size));
    at += size + 1;
  }
  return found;
}

/**
 * A file of a search target as text, to show its matches: from the search index when it holds the
 * file (no git process), else read with git as `readBlobText` does.
 */
export async function readTargetText(context: ToolContext, target: SearchTarget, path: string, maxBytes: number): Promise<BlobText> {
  const indexed = await context.searchIndexes?.lookup(target, false)?.readText(path, maxBytes, context.signal);
  if (indexed !== undefined) return { text: indexed, utf8: !indexed.includes('\uFFFD'), truncated: false, binary: false };
  return readBlobText(context, target.repo, `${target.commit}:${path}`, undefined, maxBytes);
}

/** The lines of a text (a final newline ends the last line; it does not start an empty one). */
export function splitLines(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Cuts an over-long line, saying so. */
export function clipLine(line: string, max = MAX_LINE_CHARS): string {
  return line.length > max ? `${line.slice(0, max)}… (line cut at ${max} characters)` : line;
}

/** Lines `start..end` (1-based, inclusive) of `lines` as a numbered chunk of at most `maxChars`. */
export function makeChunk(lines: readonly string[], start: number, end: number, maxChars = MAX_CHUNK_CHARS): Chunk {
  const out: string[] = [];
  let used = 0;
  let last = start;
  for (let line = start; line <= end; line++) {
    const text = `${line}: ${clipLine(lines[line - 1] ?? '')}`;
    if (out.length > 0 && used + text.length + 1 > maxChars) break;
    out.push(text);
    used += text.length + 1;
    last = line;
  }
  return { startLine: start, endLine: last, content: out.join('\n') };
}

export interface Window {
  start: number;
  end: number;
  score: number;
}

/**
 * Up to `max` chunks around the best-scoring lines (`lineScores`: 1-based line → score), with
 * `context` lines either side, merged where they touch, in file order.
 */
export function bestChunks(lines: readonly string[], lineScores: ReadonlyMap<number, number>, context: number, max: number): Chunk[] {
  return bestWindows(lines, lineScores, context, max).map((window) => makeChunk(lines, window.start, window.end));
}

/** The line ranges of `bestChunks`, before chunks cut them to their size. */
export function bestWindows(lines: readonly string[], lineScores: ReadonlyMap<number, number>, context: number, max: number): Window[] {
  const byScore = [...lineScores.entries()].filter(([line]) => line >= 1 && line <= lines.length).sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  const windows: Window[] = [];
  for (const [line, score] of byScore) {
    if (windows.length === max) break;
    const inside = windows.find((window) => line >= window.start - 1 && line <= window.end + 1);
    if (inside) {
      inside.start = Math.min(inside.start, Math.max(1, line - context));
      inside.end = Math.max(inside.end, Math.min(lines.length, line + context));
      continue;
    }
    windows.push({ start: Math.max(1, line - context), end: Math.min(lines.length, line + context), score });
  }
  windows.sort((a, b) => a.start - b.start);
  const merged: Window[] = [];
  for (const window of windows) {
    const previous = merged[merged.length - 1];
    if (previous && window.start <= previous.end + 1) previous.end = Math.max(previous.end, window.end);
    else merged.push({ ...window });
  }
  return merged;
}

/** Chunks of the given matched lines only (when the file text is not at hand), adjacent lines merged. */
export function chunksFromLines(matched: ReadonlyArray<{ line: number; text: string }>, max: number): Chunk[] {
  const sorted = [...matched].sort((a, b) => a.line - b.line);
  const chunks: Chunk[] = [];
  let run: Array<{ line: number; text: string }> = [];
  const flush = (): void => {
    const first = run[0];
    const last = run[run.length - 1];
    if (first && last && chunks.length < max) {
      const sparse: string[] = [];
      for (const entry of run) sparse[entry.line - 1] = entry.text;
      chunks.push(makeChunk(sparse, first.line, last.line));
    }
    run = [];
  };
  for (const entry of sorted) {
    const previous = run[run.length - 1];
    if (previous && entry.line !== previous.line + 1) flush();
    if (!previous || entry.line !== previous.line) run.push(entry);
  }
  flush();
  return chunks;
}

/** Readable text of file blocks: a heading per file, then its chunks. */
export function renderBlocks(blocks: readonly FileBlock[]): string {
  return blocks
    .map((block) => {
      const heading = `## ${block.repo} — ${block.file}${block.rev && block.rev !== 'HEAD' ? ` @ ${block.rev}` : ''}`;
      const body = block.chunks.length > 0 ? block.chunks.map((chunk) => chunk.content).join('\n…\n') : '(the path matches; no lines to show)';
      return `${heading}\n${body}`;
    })
    .join('\n\n');
}
