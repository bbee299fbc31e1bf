/**
 * The blobs of a tree, read through one `git cat-file --batch` (the search worker's git,
 * treeGit.ts): streamed piece by piece to a reader, or gathered into one buffer of text files.
 */
import type { TreeEntry } from './treeText';
import { releaseBuffers } from './releaseBuffers';
import type { TreeGit } from './treeGit';

/** Text bytes git -I compares against: a NUL among the first 8000 means binary. */
const BINARY_PROBE_BYTES = 8000;
/** Consumed output released at once (releaseChunks). */
const RELEASE_BATCH_BYTES = 4 * 1024 * 1024;
/** Bytes around each blob in cat-file's output: its header line (a hash of up to 64 hex digits, "blob", the size) and the newline after it. */
const BLOB_FRAME_BYTES = 128;

/**
 * Reads the candidates' blobs through one 'git cat-file --batch' into one buffer, one after
 * another, each text ending with a newline (added if missing); a blob with a NUL among its first
 * 8000 bytes is dropped, as git grep -I drops it. Runs after the searches in the machine's queue:
 * the index is for later searches, and must not slow those made meanwhile.
 */
export interface ReadBlobs {
  /** The texts, one after another, in `[0, length)`. */
  buffer: ArrayBuffer;
  length: number;
  /** Which candidates they are (binary ones are dropped). */
  kept: Int32Array<ArrayBuffer>;
  /** Where each kept text starts, and where the last ends. */
  starts: Int32Array<ArrayBuffer>;
}

export async function readBlobs(git: TreeGit, candidates: TreeEntry[]): Promise<ReadBlobs> {
  const bytes = candidates.reduce((sum, entry) => sum + entry.size, 0);
  const buffer = new ArrayBuffer(bytes + candidates.length);
  const view = Buffer.from(buffer);
  const kept: number[] = [];
  const starts: number[] = [];
  let written = 0;
  let blobStart = 0;
  await streamBlobs(git, candidates, {
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
export interface BlobReader {
  start(index: number): void;
  bytes(chunk: Buffer, from: number, to: number): void;
  end(index: number): void;
}

export async function streamBlobs(git: TreeGit, entries: TreeEntry[], blob: BlobReader): Promise<void> {
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
    await git.stream(['cat-file', '--batch'], input, catFileBytes(entries), (chunk) => {
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

/** The most `git cat-file --batch` prints for these entries: their blobs, each in its frame. */
function catFileBytes(entries: TreeEntry[]): number {
  return entries.reduce((sum, entry) => sum + entry.size + BLOB_FRAME_BYTES, 0);
}
