/**
 * Reads the text files of a commit's tree into one buffer, for the search index: one `ls-tree`,
 * one `check-attr` and one `cat-file --batch`, streamed (never a process per file). "Text" is what
 * `git grep -I` searches: regular files (no symbolic links or submodules) that no `-diff`/`binary`
 * attribute marks binary and that have no NUL byte in their first 8000 bytes. A tree larger than
 * the room given is read as far as it fits, in tree order; the files past it are named (`unread`)
 * for the searches to read some other way.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { constants, setPriority } from 'node:os';
import { MessageChannel } from 'node:worker_threads';
import { spawnGit } from '../git';
import { formatSize } from '../toolError';

export interface TreeText {
  /** The text files' bytes in tree order; each non-empty file ends with a newline (added if missing). */
  buffer: ArrayBuffer;
  length: number;
  /** Paths of the text files, decoded as git grep's output is (UTF-8). */
  paths: string[];
  /** Byte length of each path as git prints it. */
  pathBytes: Int32Array;
  /** Where each file starts in `buffer`, plus the end (paths.length + 1 entries). */
  fileStarts: Int32Array;
  /** Each text file's size (without the newline the index may add). */
  sizes: Int32Array;
  /** Bytes of the regular files read, binary ones included: what the room given applies to. */
  treeBytes: number;
  /** The regular files past the room given, in tree order (UTF-8 decoded paths): not in `paths`. */
  unread: string[];
  /** Their bytes. */
  unreadBytes: number;
}

/** Not one file of the tree fits the room given: no index, searches read the tree as before. */
export class NoRoomForIndex extends Error {
  constructor(
    readonly bytes: number,
    readonly room: number,
  ) {
    super(`its files add up to ${formatSize(bytes)}, and the search index budget has ${formatSize(room)} left`);
    this.name = 'NoRoomForIndex';
  }
}

/** Text bytes git -I compares against: a NUL among the first 8000 means binary. */
const BINARY_PROBE_BYTES = 8000;
const GIT_STEP_TIMEOUT_MS = 120_000;
const TREE_LISTING_MAX_BYTES = 64 * 1024 * 1024;
/** Consumed output released at once (ChunkRelease). */
const RELEASE_BATCH_BYTES = 4 * 1024 * 1024;

export interface TreeEntry {
  oid: string;
  size: number;
  path: Buffer;
}

/** The commit's text files, read in tree order as far as `maxBytes` of regular files go. */
export async function readTreeText(dir: string, commit: string, maxBytes: number, signal: AbortSignal): Promise<TreeText> {
  const entries = await listRegularFiles(dir, commit, signal);
  let fits = 0;
  let treeBytes = 0;
  while (fits < entries.length && treeBytes + entries[fits].size <= maxBytes) treeBytes += entries[fits++].size;
  const read = entries.slice(0, fits);
  const unread = entries.slice(fits);
  const unreadBytes = unread.reduce((sum, entry) => sum + entry.size, 0);
  if (read.length === 0 && unread.length > 0) throw new NoRoomForIndex(unreadBytes, maxBytes);
  const binaryByAttribute = await binaryAttributes(dir, read, signal);
  const candidates = read.filter((_, index) => !binaryByAttribute[index]);
  const text = await readBlobs(dir, candidates, treeBytes, signal);
  return { ...text, unread: unread.map((entry) => entry.path.toString('utf8')), unreadBytes };
}

/** The commit's regular files (what git grep searches), in tree order: git grep's order. */
export async function listRegularFiles(dir: string, commit: string, signal: AbortSignal): Promise<TreeEntry[]> {
  return regularFiles(await collect(dir, ['ls-tree', '-r', '-z', '--long', commit], undefined, signal, TREE_LISTING_MAX_BYTES));
}

/** `ls-tree -r -z --long` records of regular files (mode 100644 or 100755), paths kept as bytes. */
function regularFiles(listing: Buffer): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let start = 0;
  while (start < listing.length) {
    let end = listing.indexOf(0, start);
    if (end === -1) end = listing.length;
    const tab = listing.indexOf(0x09, start);
    if (tab !== -1 && tab < end) {
      const meta = /^(\d{6}) blob ([0-9a-f]{40,64}) +(\d+)$/.exec(listing.toString('latin1', start, tab));
      if (meta && (meta[1] === '100644' || meta[1] === '100755')) {
        entries.push({ oid: meta[2], size: Number(meta[3]), path: listing.subarray(tab + 1, end) });
      }
    }
    start = end + 1;
  }
  return entries;
}

/**
 * Which files git grep takes as binary from their attributes: `-diff` (or `binary`) does. A diff
 * driver of its own could say either, so a tree that uses one is not indexed.
 */
export async function binaryAttributes(dir: string, entries: ReadonlyArray<{ path: Buffer }>, signal: AbortSignal): Promise<boolean[]> {
  const input = Buffer.concat(entries.flatMap((entry) => [entry.path, Buffer.from([0])]));
  const output = await collect(dir, ['check-attr', '--stdin', '-z', 'diff'], input, signal);
  const fields: Buffer[] = [];
  for (let start = 0; start < output.length; ) {
    const end = output.indexOf(0, start);
    if (end === -1) break;
    fields.push(output.subarray(start, end));
    start = end + 1;
  }
  if (fields.length !== entries.length * 3) throw new Error(`git check-attr answered ${fields.length / 3} paths for ${entries.length}`);
  return entries.map((entry, index) => {
    const path = fields[index * 3];
    const value = fields[index * 3 + 2].toString('latin1');
    if (!path.equals(entry.path)) throw new Error('git check-attr answered paths out of order');
    if (value === 'unset') return true;
    if (value === 'unspecified' || value === 'set') return false;
    throw new Error(`a file uses the diff driver "${value}"`);
  });
}

/** Streams the candidates' blobs through one `cat-file --batch`, keeping the text ones. */
function readBlobs(dir: string, candidates: readonly TreeEntry[], treeBytes: number, signal: AbortSignal): Promise<Omit<TreeText, 'unread' | 'unreadBytes'>> {
  const buffer = new ArrayBuffer(treeBytes + candidates.length);
  const view = Buffer.from(buffer);
  const paths: string[] = [];
  const pathBytes: number[] = [];
  const fileStarts: number[] = [];
  const sizes: number[] = [];
  let written = 0;
  let next = 0;
  // The parser's state: reading a header line, a blob's bytes, or the newline after them.
  let header: Buffer[] = [];
  let remaining = -1;
  let blobStart = 0;
  let expectNewline = false;

  const finishBlob = (): void => {
    const entry = candidates[next++];
    const probeEnd = blobStart + Math.min(BINARY_PROBE_BYTES, written - blobStart);
    if (view.subarray(blobStart, probeEnd).includes(0)) {
      written = blobStart;
      return;
    }
    if (written > blobStart && view[written - 1] !== 0x0a) view[written++] = 0x0a;
    sizes.push(entry.size);
    paths.push(entry.path.toString('utf8'));
    pathBytes.push(entry.path.length);
    fileStarts.push(blobStart);
  };

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
        const entry = candidates[next];
        const match = /^([0-9a-f]{40,64}) blob (\d+)$/.exec(line);
        if (!entry || !match || match[1] !== entry.oid || Number(match[2]) !== entry.size) throw new Error(`unexpected git cat-file --batch header ${JSON.stringify(line.slice(0, 100))}`);
        remaining = entry.size;
        blobStart = written;
      }
      const take = Math.min(remaining, chunk.length - at);
      chunk.copy(view, written, at, at + take);
      written += take;
      at += take;
      remaining -= take;
      if (remaining === 0) {
        remaining = -1;
        expectNewline = true;
        finishBlob();
      }
    }
  };

  return new Promise((resolve, reject) => {
    const child = spawnGit(['cat-file', '--batch'], dir);
    const settle = watch(child, signal, reject);
    lowerPriority(child.pid);
    const released = new ChunkRelease();
    child.stdout.on('data', (chunk: Buffer) => {
      try {
        consume(chunk);
        released.add(chunk);
      } catch (error) {
        settle.fail(error);
      }
    });
    child.on('close', (code) => {
      released.flush();
      if (settle.done()) return;
      if (code !== 0) return settle.fail(new Error(`git cat-file --batch failed: ${settle.stderr() || `exit code ${code}`}`));
      if (next !== candidates.length) return settle.fail(new Error(`git cat-file --batch stopped after ${next} of ${candidates.length} blobs`));
      fileStarts.push(written);
      settle.succeed();
      resolve({ buffer, length: written, paths, pathBytes: Int32Array.from(pathBytes), fileStarts: Int32Array.from(fileStarts), sizes: Int32Array.from(sizes), treeBytes });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(candidates.map((entry) => `${entry.oid}\n`).join(''));
  });
}

/**
 * Runs the build's longest process (reading every blob) after the searches in the machine's
 * queue: the index is for later searches, and must not slow those made meanwhile.
 */
function lowerPriority(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    setPriority(pid, constants.priority.PRIORITY_BELOW_NORMAL);
  } catch {
    // Not allowed here: it runs at the engine's own priority.
  }
}

/**
 * Gives the memory of consumed stream chunks back at once rather than at the next garbage
 * collection. A tree's text passes through in thousands of small chunks; those waiting for a
 * collection fragment the allocator, which kept about 35 MB more resident after building the
 * index of a 120 MB tree. A chunk that owns its whole ArrayBuffer is detached by transferring it
 * in a message to a port that is then closed: the message, and the memory with it, is dropped.
 */
class ChunkRelease {
  private pending: ArrayBuffer[] = [];
  private pendingBytes = 0;

  add(chunk: Buffer): void {
    const buffer = chunk.buffer;
    if (!(buffer instanceof ArrayBuffer) || chunk.byteOffset !== 0 || buffer.byteLength !== chunk.length) return;
    this.pending.push(buffer);
    this.pendingBytes += buffer.byteLength;
    // A port per few megabytes: each costs a little time, and the chunks wait for it.
    if (this.pendingBytes >= RELEASE_BATCH_BYTES) this.flush();
  }

  flush(): void {
    this.pendingBytes = 0;
    if (this.pending.length === 0) return;
    const { port1, port2 } = new MessageChannel();
    try {
      port1.postMessage(null, this.pending);
    } catch {
      // A buffer that cannot be transferred is left to the garbage collector, as any other.
    }
    port1.close();
    port2.close();
    this.pending = [];
  }
}

/** Runs git to completion with `input` on stdin and resolves with its stdout. */
export function collect(dir: string, args: readonly string[], input: Buffer | undefined, signal: AbortSignal, maxBytes = Number.POSITIVE_INFINITY): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const child = spawnGit(args, dir);
    const settle = watch(child, signal, reject);
    const chunks: Buffer[] = [];
    let size = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) settle.fail(new Error(`git ${args[0]} printed more than ${maxBytes} bytes`));
      else chunks.push(chunk);
    });
    child.on('close', (code) => {
      if (settle.done()) return;
      if (code !== 0) return settle.fail(new Error(`git ${args[0]} failed: ${settle.stderr() || `exit code ${code}`}`));
      settle.succeed();
      resolve(Buffer.concat(chunks));
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(input ?? Buffer.alloc(0));
  });
}

/** Kills the child on abort, on timeout or on the first failure, and rejects once. */
function watch(child: ChildProcessWithoutNullStreams, signal: AbortSignal, reject: (error: unknown) => void) {
  let settled = false;
  let stderr = '';
  const finish = (): boolean => {
    if (settled) return false;
    settled = true;
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    return true;
  };
  const fail = (error: unknown): void => {
    if (!finish()) return;
    child.kill('SIGKILL');
    reject(error);
  };
  const onAbort = (): void => fail(new Error('the index build was cancelled'));
  const timer = setTimeout(() => fail(new Error(`git took over ${GIT_STEP_TIMEOUT_MS / 1000} s`)), GIT_STEP_TIMEOUT_MS);
  if (signal.aborted) queueMicrotask(onAbort);
  else signal.addEventListener('abort', onAbort, { once: true });
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < 4096) stderr += chunk.toString('utf8');
  });
  child.on('error', (error) => fail(error));
  return {
    fail,
    succeed: (): void => void finish(),
    done: (): boolean => settled,
    stderr: (): string => stderr.trim().split('\n')[0] ?? '',
  };
}
