/**
 * A commit's tree as git grep searches it: its regular files (no symbolic links or submodules), in
 * tree order, and which of them attributes mark binary (`-diff`/`binary`). The search index's worker
 * reads a tree with these (searchWorker.ts: it also drops files with a NUL among their first 8000
 * bytes, as `git grep -I` does); ripgrep checks its answers with them (ripgrep.ts).
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawnGit } from '../git';
import { formatSize } from '../toolError';

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

/** How long one git step of an index build may take. */
export const GIT_STEP_TIMEOUT_MS = 120_000;
/** `ls-tree` output read at most. */
export const TREE_LISTING_MAX_BYTES = 64 * 1024 * 1024;

export interface TreeEntry {
  oid: string;
  size: number;
  path: Buffer;
}

/** The commit's regular files (what git grep searches), in tree order: git grep's order. */
export async function listRegularFiles(dir: string, commit: string, signal: AbortSignal): Promise<TreeEntry[]> {
  return regularFiles(await collect(dir, ['ls-tree', '-r', '-z', '--long', commit], undefined, signal, TREE_LISTING_MAX_BYTES));
}

/**
 * `ls-tree -r -z --long` records of regular files (mode 100644 or 100755), paths kept as bytes.
 * Self-contained: the search worker runs its source too.
 */
export function regularFiles(listing: Buffer): TreeEntry[] {
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
  return attributeVerdicts(await collect(dir, ['check-attr', '--stdin', '-z', 'diff'], input, signal), entries);
}

/**
 * Which of `entries` the output of `check-attr --stdin -z diff` for them marks binary; throws when
 * it does not answer for them in order, or names a diff driver of its own. Self-contained: the
 * search worker runs its source too.
 */
export function attributeVerdicts(output: Buffer, entries: ReadonlyArray<{ path: Buffer }>): boolean[] {
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
