/**
 * Searching the index's text as git grep would (searchWorkerThread.ts runs it under a time limit):
 * the slices of text a search reads (the allowed files' parts of the blocks the n-gram filter
 * leaves), each matcher's matches in them, and git's output records and per-file counts.
 */
import type { BlockFilter } from './blockFilter';
import type { LineMatcher } from './grepPatterns';
import type { RequiredText } from './literalQuery';
import type { ScanReply, ScanRequest } from './searchWorker';
import { decode, type TextLayout } from './textLayout';

/**
 * The slices of the text a search reads, in order: the allowed files' parts of the candidate
 * blocks (all blocks for a null mask): [the file at the start, start, end].
 */
type Slice = [file: number, start: number, end: number];

function* searchSlices(layout: TextLayout, filter: BlockFilter, allowed: Uint8Array | null, blocks: Uint8Array | null): Generator<Slice> {
  if (blocks === null) {
    yield* allowedSlices(layout, allowed);
    return;
  }
  const { fileCount, fileStarts } = layout;
  const { blockCount, blockStarts } = filter;
  let block = 0;
  while (block < blockCount) {
    if (blocks[block] === 0) {
      block++;
      continue;
    }
    let next = block + 1;
    while (next < blockCount && blocks[next] === 1) next++;
    const from = blockStarts[block];
    const to = blockStarts[next];
    block = next;
    if (from === to) continue;
    if (allowed === null) {
      yield [layout.fileAt(from), from, to];
      continue;
    }
    let file = layout.fileAt(from);
    while (file < fileCount && fileStarts[file] < to) {
      if (allowed[file] === 0) {
        file++;
        continue;
      }
      let last = file + 1;
      while (last < fileCount && fileStarts[last] < to && allowed[last] === 1) last++;
      const start = Math.max(fileStarts[file], from);
      const end = Math.min(fileStarts[last], to);
      if (start < end) yield [file, start, end];
      file = last;
    }
  }
}

/** The runs of consecutive allowed files, each one slice of the text: [first file, start, end]. */
function* allowedSlices(layout: TextLayout, allowed: Uint8Array | null): Generator<Slice> {
  const { fileCount, fileStarts } = layout;
  let file = 0;
  while (file < fileCount) {
    if (allowed !== null && allowed[file] === 0) {
      file++;
      continue;
    }
    let next = file + 1;
    while (next < fileCount && (allowed === null || allowed[next] === 1)) next++;
    if (fileStarts[file] !== fileStarts[next]) yield [file, fileStarts[file], fileStarts[next]];
    file = next;
  }
}

/**
 * Finds the matcher's matches in a slice of the text: next(part, position) gives the slice offset
 * of the next match git grep would count (whole words only, with -w) or -1, and its length in
 * 'length'.
 */
interface Finder {
  /** The length of the match `next` found last. */
  length: number;
  next(part: string, base: number, position: number): number;
}

function finderOf(layout: TextLayout, matcher: LineMatcher): Finder {
  const regex = matcher.kind === 'regex' ? new RegExp(matcher.source, matcher.flags) : undefined;
  const needle = matcher.kind === 'literal' ? matcher.needle : '';
  // Matches of one length are found with test(), which allocates no match (a common term has many).
  const fixedLength = matcher.kind === 'regex' ? matcher.length : undefined;
  const finder: Finder = {
    length: 0,
    next(part, base, position) {
      while (position < part.length) {
        let at: number;
        if (fixedLength !== undefined && regex !== undefined) {
          regex.lastIndex = position;
          if (!regex.test(part)) return -1;
          at = regex.lastIndex - fixedLength;
          finder.length = fixedLength;
        } else if (regex !== undefined) {
          regex.lastIndex = position;
          const match = regex.exec(part);
          if (match === null) return -1;
          at = match.index;
          finder.length = match[0].length;
        } else {
          at = part.indexOf(needle, position);
          finder.length = needle.length;
        }
        if (at === -1 || at >= part.length) return -1;
        if (!matcher.wholeWord || layout.wordBounded(base + at, base + at + finder.length)) return at;
        position = at + 1;
      }
      return -1;
    },
  };
  return finder;
}

export type ScanResult = Omit<Extract<ScanReply, { ok: true }>, 'id' | 'ok'>;

/** The matches of a scan, as git grep of `commit` prints them. */
export function scanText(layout: TextLayout, filter: BlockFilter, commit: string, request: ScanRequest): ScanResult {
  if (request.keep === 0) return countLines(layout, filter, request);
  const { text, firstLine, pathBytes } = layout;
  const finder = finderOf(layout, request.matcher);
  // git prints each line after "<commit>:": the bytes of the commit's name and the colon.
  const prefixBytes = commit.length + 1;
  const keep = request.keep;
  const maxBytes = request.maxBytes;
  const files: number[] = [];
  const lines: number[] = [];
  const texts: string[] = [];
  const counts: number[] = [];
  let used = 0;
  let truncated = false;
  let currentFile = -1;
  let currentCount = 0;
  let currentKept = 0;
  let scanned = 0;
  scanning: for (const [, base, end] of searchSlices(layout, filter, request.allowed, filter.candidates(request.required))) {
    scanned += end - base;
    const part = base === 0 && end === text.length ? text : text.slice(base, end);
    for (let at = finder.next(part, base, 0); at !== -1;) {
      const start = base + at;
      // Every line ends with a newline: the match's line ends at the first one from its start.
      const lineEnd = text.indexOf('\n', start);
      const lineStart = start === 0 ? 0 : text.lastIndexOf('\n', start - 1) + 1;
      const matchFile = layout.fileAt(start);
      const number = layout.linesBefore(start) - firstLine[matchFile] + 1;
      // git prints "<commit>:<path>\0<number>\0<line>\n"; its output is cut at maxBytes, and a cut
      // record still counts when both NULs made it (grep.ts parses it with the text cut short).
      const head = prefixBytes + pathBytes[matchFile] + 1 + digits(number) + 1;
      const record = head + (lineEnd - lineStart) + 1;
      let textEnd = lineEnd;
      let last = false;
      if (used + record > maxBytes) {
        truncated = true;
        const room = maxBytes - used;
        if (room < head) break scanning;
        textEnd = lineStart + Math.min(lineEnd - lineStart, room - head);
        last = true;
      } else {
        used += record;
      }
      if (matchFile !== currentFile) {
        if (currentFile >= 0) counts.push(currentFile, currentCount);
        currentFile = matchFile;
        currentCount = 0;
        currentKept = 0;
      }
      currentCount++;
      if (currentKept < keep) {
        currentKept++;
        files.push(matchFile);
        lines.push(number);
        texts.push(decode(text.slice(lineStart, textEnd)));
      }
      if (last) break scanning;
      at = finder.next(part, base, lineEnd + 1 - base);
    }
  }
  if (currentFile >= 0) counts.push(currentFile, currentCount);
  return {
    files: Int32Array.from(files),
    lines: Int32Array.from(lines),
    texts,
    counts: Int32Array.from(counts),
    truncated,
    outputBytes: used,
    scannedBytes: scanned,
  };
}

/**
 * Matching lines per file, every one counted: a count costs no output, so no cap applies, and no
 * line number is worked out. A match's line counts once; the search goes on after its newline.
 */
export function countLines(
  layout: TextLayout,
  filter: BlockFilter,
  request: { matcher: LineMatcher; allowed: Uint8Array | null; required: RequiredText | null },
): ScanResult {
  const { text, fileStarts } = layout;
  const finder = finderOf(layout, request.matcher);
  const counts: number[] = [];
  let currentFile = -1;
  let currentCount = 0;
  let scanned = 0;
  for (const [first, base, end] of searchSlices(layout, filter, request.allowed, filter.candidates(request.required))) {
    scanned += end - base;
    const part = base === 0 && end === text.length ? text : text.slice(base, end);
    // Matches come in order, so the file holding each is found by walking forward.
    let holder = first;
    for (let at = finder.next(part, base, 0); at !== -1;) {
      const start = base + at;
      while (fileStarts[holder + 1] <= start) holder++;
      if (holder !== currentFile) {
        if (currentFile >= 0) counts.push(currentFile, currentCount);
        currentFile = holder;
        currentCount = 0;
      }
      currentCount++;
      at = finder.next(part, base, text.indexOf('\n', start) + 1 - base);
    }
  }
  if (currentFile >= 0) counts.push(currentFile, currentCount);
  return {
    files: new Int32Array(0),
    lines: new Int32Array(0),
    texts: [],
    counts: Int32Array.from(counts),
    truncated: false,
    outputBytes: 0,
    scannedBytes: scanned,
  };
}

function digits(number: number): number {
  return String(number).length;
}
