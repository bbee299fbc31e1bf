/**
 * The search index's worker thread (searchIndex.ts starts it; searchWorker.ts says what it is
 * asked and answers): it owns the indexed text and answers one grep at a time, so no scan ever
 * blocks the engine's event loop. Each scan runs under a `vm` time limit, which stops even a
 * catastrophically backtracking regular expression and leaves the worker (and its text) alive.
 *
 * It reads the commit's tree itself, with its own `git` processes, so that the engine's thread
 * never handles the tree or its text.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { spawn } from 'node:child_process';
import { isUtf8 } from 'node:buffer';
import os from 'node:os';
import vm from 'node:vm';
import type { LineMatcher } from './grepPatterns';
import type { RequiredText } from './literalQuery';
import { pathBonuses, termScore } from './ranking';
import { releaseBuffers } from './releaseBuffers';
import type { FilterMessage, RankReply, RankRequest, ScanReply, ScanRequest, WorkerInit, WorkerMessage, WorkerRequest } from './searchWorker';
import { attributeVerdicts, regularFiles, type TreeEntry } from './treeText';
import { GRAM_BUCKET_BITS, gramBucket, gramTable } from './trigrams';

if (parentPort === null) throw new Error('searchWorkerThread.ts runs as a worker thread (searchIndex.ts starts it)');
const port: MessagePort = parentPort;
const init = workerData as WorkerInit;

/** Text bytes git -I compares against: a NUL among the first 8000 means binary. */
const BINARY_PROBE_BYTES = 8000;
/** Consumed output released at once (releaseChunks). */
const RELEASE_BATCH_BYTES = 4 * 1024 * 1024;

// Set once the blobs are read (layOut).
let text = '';
let fileStarts = new Int32Array(1);
let pathBytes = new Int32Array(0);
let sizes = new Float64Array(0);
let paths: string[] = [];
let fileCount = 0;
let marks = new Int32Array(0);
let lineCount = 0;
let firstLine = new Int32Array(0);
const prefixBytes = init.commit.length + 1;

/**
 * The tree's regular files within the room, in tree order, less those attributes mark binary (the
 * candidates); the rest past the room; or null when not one file fits.
 */
type Plan = { noRoom: number } | { noRoom?: undefined; candidates: TreeEntry[]; treeBytes: number; unread: string; unreadBytes: number };

async function plan(): Promise<Plan> {
  const listing = await runGit(['ls-tree', '-r', '-z', '--long', init.commit], undefined, init.listingMaxBytes, false);
  const entries = regularFiles(listing);
  let fits = 0;
  let treeBytes = 0;
  while (fits < entries.length && treeBytes + entries[fits].size <= init.room) treeBytes += entries[fits++].size;
  const read = entries.slice(0, fits);
  const unread = entries.slice(fits);
  const unreadBytes = unread.reduce((sum, entry) => sum + entry.size, 0);
  if (read.length === 0 && unread.length > 0) return { noRoom: unreadBytes };
  const input = Buffer.concat(read.flatMap((entry) => [entry.path, Buffer.from([0])]));
  const binary = attributeVerdicts(await runGit(['check-attr', '--stdin', '-z', 'diff'], input, Number.POSITIVE_INFINITY, false), read);
  return {
    candidates: read.filter((_, index) => !binary[index]),
    treeBytes,
    unread: unread.map((entry) => entry.path.toString('utf8')).join('\0'),
    unreadBytes,
  };
}

/**
 * Runs the engine's git with 'input' on stdin and resolves with its stdout (at most 'maxBytes'),
 * or calls 'onChunk' with each piece of it; 'lowPriority' runs it after the machine's other work.
 */
function runGit(args: string[], input: Buffer | string | undefined, maxBytes: number, lowPriority: boolean): Promise<Buffer>;
function runGit(
  args: string[],
  input: Buffer | string | undefined,
  maxBytes: number,
  lowPriority: boolean,
  onChunk: (chunk: Buffer) => void,
): Promise<undefined>;
function runGit(
  args: string[],
  input: Buffer | string | undefined,
  maxBytes: number,
  lowPriority: boolean,
  onChunk?: (chunk: Buffer) => void,
): Promise<Buffer | undefined> {
  const git = init.git;
  return new Promise((resolve, reject) => {
    const child = spawn(git.command, [...git.args, ...args], { cwd: git.cwd, env: git.env, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
    // No pid: it did not start ('error' says so below).
    if (lowPriority && child.pid !== undefined) {
      try {
        os.setPriority(child.pid, os.constants.priority.PRIORITY_BELOW_NORMAL);
      } catch {
        // Not allowed here: it runs at the engine's own priority.
      }
    }
    let settled = false;
    let stderr = '';
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (error: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    const timer = setTimeout(() => fail(new Error('git ' + args[0] + ' took over ' + git.timeoutMs / 1000 + ' s')), git.timeoutMs);
    child.on('error', fail);
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString('utf8');
    });
    child.stdout.on('data', (chunk: Buffer) => {
      if (settled) return;
      if (onChunk) {
        try {
          onChunk(chunk);
        } catch (error) {
          fail(error as Error);
        }
        return;
      }
      size += chunk.length;
      if (size > maxBytes) fail(new Error('git ' + args[0] + ' printed more than ' + maxBytes + ' bytes'));
      else chunks.push(chunk);
    });
    child.on('close', (code: number | null) => {
      if (settled) return;
      if (code !== 0) return fail(new Error('git ' + args[0] + ' failed: ' + (stderr.trim().split('\n')[0] || 'exit code ' + code)));
      settled = true;
      clearTimeout(timer);
      resolve(onChunk ? undefined : Buffer.concat(chunks));
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(input ?? Buffer.alloc(0));
  });
}

/**
 * Reads the candidates' blobs through one 'git cat-file --batch' into one buffer, one after
 * another, each text ending with a newline (added if missing); a blob with a NUL among its first
 * 8000 bytes is dropped, as git grep -I drops it. Runs after the searches in the machine's queue:
 * the index is for later searches, and must not slow those made meanwhile.
 */
interface ReadBlobs {
  /** The texts, one after another, in `[0, length)`. */
  buffer: ArrayBuffer;
  length: number;
  /** Which candidates they are (binary ones are dropped). */
  kept: Int32Array<ArrayBuffer>;
  /** Where each kept text starts, and where the last ends. */
  starts: Int32Array<ArrayBuffer>;
}

async function readBlobs(candidates: TreeEntry[]): Promise<ReadBlobs> {
  const bytes = candidates.reduce((sum, entry) => sum + entry.size, 0);
  const buffer = new ArrayBuffer(bytes + candidates.length);
  const view = Buffer.from(buffer);
  const kept: number[] = [];
  const starts: number[] = [];
  let written = 0;
  let blobStart = 0;
  await streamBlobs(candidates, {
    start() {
      blobStart = written;
    },
    bytes(chunk, from, to) {
      chunk.copy(view, written, from, to);
      written += to - from;
    },
    end(index: number) {
      const probeEnd = blobStart + Math.min(BINARY_PROBE_BYTES, written - blobStart);
      if (view.subarray(blobStart, probeEnd).includes(0)) {
        written = blobStart;
        return;
      }
      if (written > blobStart && view[written - 1] !== 0x0a) view[written++] = 0x0a;
      kept.push(index);
      starts.push(blobStart);
    },
  });
  starts.push(written);
  return { buffer, length: written, kept: Int32Array.from(kept), starts: Int32Array.from(starts) };
}

/**
 * Streams the entries' blobs through one 'git cat-file --batch' (at low priority), in order:
 * 'start(index)', then 'bytes(chunk, from, to)' for each piece of the blob, then 'end(index)'.
 * Throws when git's output is not the blobs asked for, or stops early.
 */
interface BlobReader {
  start(index: number): void;
  bytes(chunk: Buffer, from: number, to: number): void;
  end(index: number): void;
}

async function streamBlobs(entries: TreeEntry[], blob: BlobReader): Promise<void> {
  let next = 0;
  // The parser's state: reading a header line, a blob's bytes, or the newline after them.
  let header: Buffer[] = [];
  let remaining = -1;
  let expectNewline = false;

  const consume = (chunk: Buffer): void => {
    let at = 0;
    while (at < chunk.length) {
      if (expectNewline) {
        if (chunk[at] !== 0x0a) throw new Error('git cat-file --batch output is out of step');
        at++;
        expectNewline = false;
        continue;
      }
      if (remaining < 0) {
        const lineEnd = chunk.indexOf(0x0a, at);
        if (lineEnd === -1) {
          // A copy: the chunk is released once consumed.
          header.push(Buffer.from(chunk.subarray(at)));
          return;
        }
        header.push(chunk.subarray(at, lineEnd));
        const line = Buffer.concat(header).toString('latin1');
        header = [];
        at = lineEnd + 1;
        const match = /^([0-9a-f]{40,64}) blob (\d+)$/.exec(line);
        const entry = entries[next];
        if (!entry || !match || match[1] !== entry.oid || Number(match[2]) !== entry.size) {
          throw new Error('unexpected git cat-file --batch header ' + JSON.stringify(line.slice(0, 100)));
        }
        remaining = entry.size;
        blob.start(next);
      }
      const take = Math.min(remaining, chunk.length - at);
      if (take > 0) blob.bytes(chunk, at, at + take);
      at += take;
      remaining -= take;
      if (remaining === 0) {
        remaining = -1;
        expectNewline = true;
        blob.end(next++);
      }
    }
  };

  const released = releaseChunks();
  const input = entries.map((entry) => entry.oid + '\n').join('');
  try {
    await runGit(['cat-file', '--batch'], input, 0, true, (chunk) => {
      consume(chunk);
      released.add(chunk);
    });
  } finally {
    released.flush();
  }
  if (next !== entries.length) throw new Error('git cat-file --batch stopped after ' + next + ' of ' + entries.length + ' blobs');
}

/**
 * Gives the memory of consumed stream chunks back at once rather than at a garbage collection: a
 * tree's text passes through in thousands of small chunks, and those waiting for a collection
 * fragment the allocator. A chunk that owns its whole ArrayBuffer is detached by transferring it in
 * a message to a port that is then closed: the message, and the memory with it, is dropped.
 */
function releaseChunks(): { add(chunk: Buffer): void; flush(): void } {
  let pending: ArrayBuffer[] = [];
  let pendingBytes = 0;
  const flush = () => {
    pendingBytes = 0;
    if (pending.length === 0) return;
    releaseBuffers(pending);
    pending = [];
  };
  return {
    add(chunk: Buffer) {
      const buffer = chunk.buffer;
      if (!(buffer instanceof ArrayBuffer) || chunk.byteOffset !== 0 || buffer.byteLength !== chunk.length) return;
      pending.push(buffer);
      pendingBytes += buffer.byteLength;
      // A port per few megabytes: each costs a little time, and the chunks wait for it.
      if (pendingBytes >= RELEASE_BATCH_BYTES) flush();
    },
    flush,
  };
}

/**
 * Takes the read text as one string (a string this long is an external one: its own copy of the
 * bytes, outside the heap; the buffer is freed at once, or the index would hold the text twice),
 * and lays out its files and lines.
 */
function layOut(read: ReadBlobs, candidates: TreeEntry[]): void {
  buildGrams(new Uint8Array(read.buffer, 0, read.length));
  text = Buffer.from(read.buffer, 0, read.length).toString('latin1');
  releaseBuffers([read.buffer]);
  fileStarts = read.starts;
  const kept = Array.from(read.kept, (index) => candidates[index]);
  paths = kept.map((entry) => entry.path.toString('utf8'));
  pathBytes = Int32Array.from(kept, (entry) => entry.path.length);
  sizes = Float64Array.from(kept, (entry) => entry.size);
  fileCount = kept.length;
  // Every line ends with a newline, so the newlines' offsets give each offset its line.
  // Every LINE_STEP-th of them is kept (a table of all would add a tenth to the index's memory); the
  // few newlines between two kept ones are counted when needed.
  lineCount = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lineCount++;
  marks = new Int32Array(Math.ceil(lineCount / LINE_STEP));
  for (let at = text.indexOf('\n'), index = 0; at !== -1; at = text.indexOf('\n', at + 1), index++) {
    if (index % LINE_STEP === 0) marks[index / LINE_STEP] = at;
  }
  firstLine = new Int32Array(fileCount);
  for (let file = 0; file < fileCount; file++) firstLine[file] = linesBefore(fileStarts[file]);
}

const LINE_STEP = 16;

/** How many newlines come before offset 'at'. */
function linesBefore(at: number): number {
  const kept = firstAtLeast(marks, at);
  if (kept === 0) return countNewlines(0, at, 0);
  return countNewlines(marks[kept - 1] + 1, at, (kept - 1) * LINE_STEP + 1);
}

function countNewlines(from: number, to: number, count: number): number {
  for (let next = text.indexOf('\n', from); next !== -1 && next < to; next = text.indexOf('\n', next + 1)) count++;
  return count;
}

/** Index of the first element >= value (array sorted ascending). */
function firstAtLeast(array: Int32Array, value: number): number {
  let low = 0;
  let high = array.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (array[middle] < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The file holding offset 'at': the last start <= at (empty files share their start with the next). */
function fileAt(at: number): number {
  let low = 0;
  let high = fileCount;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (fileStarts[middle] <= at) low = middle + 1;
    else high = middle;
  }
  return low - 1;
}

function isWordCode(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

/** git's -w: neither neighbour of the match is a word character (lines end with newlines, which are not). */
function wordBounded(start: number, end: number): boolean {
  return end > start && (start === 0 || !isWordCode(text.charCodeAt(start - 1))) && (end >= text.length || !isWordCode(text.charCodeAt(end)));
}

function decode(latin1: string): string {
  return Buffer.from(latin1, 'latin1').toString('utf8');
}

function digits(number: number): number {
  return String(number).length;
}

// The n-gram filter: the text is cut into blocks of about BLOCK_BYTES, each starting at a line
// start (a match never spans lines, so it lies within one block), and every trigram of a line (ASCII
// letters folded to lower case) lists the blocks that hold it, through a hash of BUCKET_BITS bits
// (two trigrams may share a list: that only makes a block a candidate needlessly). A search reads
// only the blocks that hold every trigram of the text its matches must contain (literalQuery.ts).
const BLOCK_BYTES = 64 * 1024;
const BUCKET_BITS = GRAM_BUCKET_BITS;
let blockStarts = new Int32Array(1);
let blockCount = 0;
let gramOffsets = new Int32Array(1);
let gramBlocks: Uint16Array | Int32Array = new Uint16Array(0);

function buildGrams(bytes: Uint8Array): void {
  const starts = [0];
  for (let at = BLOCK_BYTES; at < bytes.length;) {
    const lineEnd = bytes.indexOf(10, at - 1);
    if (lineEnd === -1 || lineEnd + 1 >= bytes.length) break;
    starts.push(lineEnd + 1);
    at = lineEnd + 1 + BLOCK_BYTES;
  }
  starts.push(bytes.length);
  blockStarts = Int32Array.from(starts);
  blockCount = starts.length - 1;
  const grams = gramTable(BUCKET_BITS, blockCount > 0x10000);
  for (let block = 0; block < blockCount; block++) {
    grams.add(bytes, blockStarts[block], blockStarts[block + 1]);
    grams.endBlock();
  }
  const table = grams.finish(releaseBuffers);
  gramOffsets = table.offsets;
  gramBlocks = table.postings;
}

/** The blocks that may hold a match of what is required (literalQuery.ts): a mask, or null for every block. */
function candidateBlocks(required: RequiredText | null | undefined): Uint8Array | null {
  if (required === undefined || required === null || required.kind === 'anything') return null;
  if (required.kind === 'literal') return blocksHolding(required.text);
  const masks = required.of.map(candidateBlocks);
  if (required.kind === 'any') {
    if (masks.includes(null)) return null;
    const union = new Uint8Array(blockCount);
    for (const mask of masks) for (let block = 0; mask !== null && block < blockCount; block++) union[block] |= mask[block];
    return union;
  }
  let both: Uint8Array | null = null;
  for (const mask of masks) {
    if (mask === null) continue;
    if (both === null) both = mask;
    else for (let block = 0; block < blockCount; block++) both[block] &= mask[block];
  }
  return both;
}

/** The blocks holding every trigram of a literal (lower-case ASCII letters, Latin-1), rarest lists first. */
function blocksHolding(literal: string): Uint8Array {
  const lists: Array<[number, number]> = [];
  for (let at = 0; at + 2 < literal.length; at++) {
    const bucket = gramBucket(literal.charCodeAt(at), literal.charCodeAt(at + 1), literal.charCodeAt(at + 2), BUCKET_BITS);
    lists.push([gramOffsets[bucket], gramOffsets[bucket + 1]]);
  }
  lists.sort((a, b) => a[1] - a[0] - (b[1] - b[0]));
  let mask: Uint8Array | null = null;
  for (const [from, to] of lists) {
    const next = new Uint8Array(blockCount);
    for (let at = from; at < to; at++) {
      const block = gramBlocks[at];
      if (mask === null || mask[block] === 1) next[block] = 1;
    }
    mask = next;
  }
  return mask ?? new Uint8Array(blockCount).fill(1);
}

/**
 * The slices of the text a search reads, in order: the allowed files' parts of the candidate
 * blocks (all blocks for a null mask): [the file at the start, start, end].
 */
type Slice = [file: number, start: number, end: number];

function* searchSlices(allowed: Uint8Array | null, blocks: Uint8Array | null): Generator<Slice> {
  if (blocks === null) {
    yield* allowedSlices(allowed);
    return;
  }
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
      yield [fileAt(from), from, to];
      continue;
    }
    let file = fileAt(from);
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
function* allowedSlices(allowed: Uint8Array | null): Generator<Slice> {
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

function finderOf(matcher: LineMatcher): Finder {
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
        if (!matcher.wholeWord || wordBounded(base + at, base + at + finder.length)) return at;
        position = at + 1;
      }
      return -1;
    },
  };
  return finder;
}

type ScanResult = Omit<Extract<ScanReply, { ok: true }>, 'id' | 'ok'>;

function scan(request: ScanRequest): ScanResult {
  if (request.keep === 0) return countLines(request);
  const finder = finderOf(request.matcher);
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
  scanning: for (const [, base, end] of searchSlices(request.allowed, candidateBlocks(request.required))) {
    scanned += end - base;
    const part = base === 0 && end === text.length ? text : text.slice(base, end);
    for (let at = finder.next(part, base, 0); at !== -1;) {
      const start = base + at;
      // Every line ends with a newline: the match's line ends at the first one from its start.
      const lineEnd = text.indexOf('\n', start);
      const lineStart = start === 0 ? 0 : text.lastIndexOf('\n', start - 1) + 1;
      const matchFile = fileAt(start);
      const number = linesBefore(start) - firstLine[matchFile] + 1;
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
function countLines(request: { matcher: LineMatcher; allowed: Uint8Array | null; required: RequiredText | null }): ScanResult {
  const finder = finderOf(request.matcher);
  const counts: number[] = [];
  let currentFile = -1;
  let currentCount = 0;
  let scanned = 0;
  for (const [first, base, end] of searchSlices(request.allowed, candidateBlocks(request.required))) {
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

// Ranking for natural-language search. Its terms are ASCII words, searched as literals: no scan
// for them can run away, so they run outside the time-limited context.
const collator = new Intl.Collator();

// Each term's counts, kept for the terms last asked within a byte budget: questions asked together
// share words, and a ranking asks for its terms twice (their frequencies, then the scores). The
// budget is an eighth of the text (at most 32 MiB), so the index stays within 1.5 times its text.
let termCacheLimit = 1024 * 1024;
const termCache = new Map<string, Int32Array>();
let termCacheBytes = 0;

/** Pairs of file index and matching-line count, in file order, for a term in any (ASCII) case. */
function termCounts(term: string): Int32Array {
  const kept = termCache.get(term);
  if (kept !== undefined) {
    termCache.delete(term);
    termCache.set(term, kept);
    return kept;
  }
  // Terms are lower-case ASCII words: every match holds the term itself, folded.
  const matcher: LineMatcher = { kind: 'regex', source: term.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&'), flags: 'gi', wholeWord: false, length: term.length };
  const { counts } = countLines({ matcher, allowed: null, required: term.length >= 3 ? { kind: 'literal', text: term.toLowerCase() } : null });
  termCache.set(term, counts);
  termCacheBytes += counts.byteLength;
  for (const [key, value] of termCache) {
    if (termCacheBytes <= termCacheLimit || key === term) break;
    termCache.delete(key);
    termCacheBytes -= value.byteLength;
  }
  return counts;
}

function rank(request: RankRequest): Omit<RankReply, 'id'> {
  const terms = request.terms;
  const counts = terms.map((term) => termCounts(term.text));
  const selecting = request.selecting;
  const allowed = request.allowed;
  const candidate = new Uint8Array(fileCount);
  let total = 0;
  for (const index of selecting) {
    const pairs = counts[index];
    for (let at = 0; at < pairs.length; at += 2) {
      const file = pairs[at];
      if (candidate[file] === 0 && (allowed === null || allowed[file] === 1)) {
        candidate[file] = 1;
        total++;
      }
    }
  }
  // Candidates in file order; each term's pairs are walked alongside (they are in file order too).
  const texts = terms.map((term) => term.text);
  const cursors = new Int32Array(terms.length);
  const frequency = new Int32Array(terms.length);
  const limit = request.limit;
  const best: Array<{ file: number; score: number; frequency: Int32Array | undefined }> = [];
  const before = (a: { file: number; score: number }, b: { file: number; score: number }): number =>
    b.score - a.score || collator.compare(request.keyPrefix + paths[a.file], request.keyPrefix + paths[b.file]);
  for (let file = 0; file < fileCount; file++) {
    if (candidate[file] === 0) continue;
    const inPath = pathBonuses(paths[file].toLowerCase(), texts);
    let score = 0;
    for (let index = 0; index < terms.length; index++) {
      const pairs = counts[index];
      let at = cursors[index];
      while (at < pairs.length && pairs[at] < file) at += 2;
      cursors[index] = at;
      const tf = at < pairs.length && pairs[at] === file ? pairs[at + 1] : 0;
      frequency[index] = tf;
      const term = terms[index];
      score += termScore(tf, inPath[index], term.weight, request.documentFrequencies[index], request.documentCount, sizes[file], request.averageLength);
    }
    const entry: (typeof best)[number] = { file, score, frequency: undefined };
    if (best.length === limit && before(entry, best[best.length - 1]) >= 0) continue;
    entry.frequency = Int32Array.from(frequency);
    let place = best.length;
    while (place > 0 && before(entry, best[place - 1]) < 0) place--;
    best.splice(place, 0, entry);
    if (best.length > limit) best.pop();
  }
  const frequencies = new Int32Array(best.length * terms.length);
  best.forEach((entry, index) => frequencies.set(entry.frequency ?? [], index * terms.length));
  return {
    total,
    files: Int32Array.from(best, (entry) => entry.file),
    scores: Float64Array.from(best, (entry) => entry.score),
    frequencies,
  };
}

// The context only calls scan(); patterns reach nothing but the RegExp constructor. (`vm`'s time
// limit applies to a script it runs: the script is that one call.)
const sandbox: { scan: typeof scan; request: ScanRequest | undefined; result: ScanResult | undefined } = { scan, request: undefined, result: undefined };
vm.createContext(sandbox, { codeGeneration: { strings: false, wasm: false } });
const script = new vm.Script('result = scan(request)');

/** A message to the engine's thread; `transfer`: buffers handed over rather than copied. */
function tell(message: WorkerMessage, transfer: ArrayBuffer[] = []): void {
  port.postMessage(message, transfer);
}

function answer(request: WorkerRequest): void {
  if (request.kind === 'read') {
    const start = fileStarts[request.file];
    tell({ type: 'read', id: request.id, text: decode(text.slice(start, start + request.size)) });
    return;
  }
  if (request.kind === 'terms') {
    tell({ type: 'terms', id: request.id, files: request.terms.map((term) => termCounts(term).length / 2) });
    return;
  }
  if (request.kind === 'rank') {
    const ranked = rank(request);
    tell({ type: 'rank', id: request.id, ...ranked }, [ranked.files.buffer, ranked.scores.buffer, ranked.frequencies.buffer]);
    return;
  }
  // The last scan's result was cleared as it ended.
  sandbox.request = request;
  try {
    script.runInContext(sandbox, { timeout: request.timeoutMs });
    const result = sandbox.result as ScanResult;
    tell({ type: 'scan', id: request.id, ok: true, ...result }, [result.files.buffer, result.lines.buffer, result.counts.buffer]);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    tell({ type: 'scan', id: request.id, ok: false, timedOut: /timed out/i.test(message), message });
  } finally {
    sandbox.request = undefined;
    sandbox.result = undefined;
  }
}

async function build(): Promise<WorkerMessage> {
  const planned = await plan();
  if (planned.noRoom !== undefined) return { type: 'no-room', bytes: planned.noRoom, room: init.room };
  const read = await readBlobs(planned.candidates);
  layOut(read, planned.candidates);
  termCacheLimit = Math.min(32 * 1024 * 1024, Math.max(1024 * 1024, Math.floor(read.length / 8)));
  port.on('message', answer);
  return {
    type: 'ready',
    lines: lineCount,
    paths: paths.join('\0'),
    sizes,
    length: read.length,
    treeBytes: planned.treeBytes,
    unread: planned.unread,
    unreadBytes: planned.unreadBytes,
  };
}

/**
 * The filter of the whole tree (gramFilter.ts): every regular file's blob in tree order, hashed as
 * it streams (no text is kept; binary files too, which only makes them candidates git grep then
 * skips), each file listed under the buckets of its trigrams.
 */
async function buildFilter(): Promise<FilterMessage> {
  // A build the engine starts on its own (at start, after an index) gives way to the searches of
  // the moment, as its cat-file does: on Linux, which keeps a nice value per thread, this thread's
  // (elsewhere the call would lower the whole engine's).
  if (process.platform === 'linux') {
    try {
      os.setPriority(0, os.constants.priority.PRIORITY_BELOW_NORMAL);
    } catch {
      // Not allowed here: it builds at the engine's own priority.
    }
  }
  const listing = await runGit(['ls-tree', '-r', '-z', '--long', init.commit], undefined, init.listingMaxBytes, false);
  const entries = regularFiles(listing);
  // A search names the candidates to git by path: one that does not decode could not be named.
  if (entries.some((entry) => !isUtf8(entry.path))) throw new Error('the tree has paths that are not UTF-8');
  // File numbers in 16 bits: the lists stay small, and so does the memory of the build.
  if (entries.length > MAX_FILTER_FILES) throw new Error('the tree has ' + entries.length + ' files, more than a filter holds (' + MAX_FILTER_FILES + ')');
  const grams = gramTable(BUCKET_BITS, false);
  await streamBlobs(entries, {
    start() {
      grams.restart();
    },
    bytes(chunk, from, to) {
      grams.add(chunk, from, to);
    },
    end() {
      grams.endBlock();
    },
  });
  const table = grams.finish(releaseBuffers);
  const paths = entries.map((entry) => entry.path.toString('utf8')).join('\0');
  const bytes = entries.reduce((sum, entry) => sum + entry.size, 0);
  return { type: 'filter', paths, offsets: table.offsets, postings: table.postings, bytes };
}

const MAX_FILTER_FILES = 0x10000;

(init.task === 'filter' ? buildFilter() : build()).then(
  (message) => tell(message, message.type === 'filter' ? [message.offsets.buffer, message.postings.buffer] : []),
  (error) => tell({ type: 'failed', message: error instanceof Error ? error.message : String(error) }),
);
