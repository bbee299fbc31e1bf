/**
 * A commit's tree as git grep searches it: its regular files (no symbolic links or submodules), in
 * tree order, and which of them attributes mark binary (`-diff`/`binary`). The search index's worker
 * reads a tree with these (searchWorkerThread.ts: it also drops files with a NUL among their first
 * 8000 bytes, as `git grep -I` does); ripgrep checks its answers with them (ripgrep.ts).
 */
import { checkAttrValues } from '../git/checkAttr';
import { runGitBytes } from '../git/git';
import type { ProcessLauncher } from '../git/processLauncher';
import { formatSize } from '../messages/toolError';

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
export async function listRegularFiles(dir: string, commit: string, signal: AbortSignal, launcher?: ProcessLauncher): Promise<TreeEntry[]> {
  return regularFiles(await collect(dir, ['ls-tree', '-r', '-z', '--long', commit], undefined, signal, TREE_LISTING_MAX_BYTES, launcher));
}

/**
 * `ls-tree -r -z --long` records of regular files (mode 100644 or 100755), paths kept as bytes.
 * The search worker reads its trees with it too.
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
export async function binaryAttributes(
  dir: string,
  entries: ReadonlyArray<{ path: Buffer }>,
  signal: AbortSignal,
  launcher?: ProcessLauncher,
): Promise<boolean[]> {
  const input = Buffer.concat(entries.flatMap((entry) => [entry.path, Buffer.from([0])]));
  return attributeVerdicts(await collect(dir, ['check-attr', '--stdin', '-z', 'diff'], input, signal, undefined, launcher), entries);
}

/**
 * Which of `entries` the output of `check-attr --stdin -z diff` for them marks binary; throws when
 * it does not answer for them in order, or names a diff driver of its own. The search worker
 * uses it too.
 */
export function attributeVerdicts(output: Buffer, entries: ReadonlyArray<{ path: Buffer }>): boolean[] {
  return checkAttrValues(
    output,
    entries.map((entry) => entry.path),
    ['diff'],
  ).map(([value]) => {
    if (value === 'unset') return true;
    if (value === 'unspecified' || value === 'set') return false;
    throw new Error(`a file uses the diff driver "${value}"`);
  });
}

/**
 * Runs git to completion (started from the engine's process launcher, within GIT_STEP_TIMEOUT_MS)
 * with `input` on stdin, and resolves with its stdout; rejects past `maxBytes` of it.
 */
export async function collect(
  dir: string,
  args: readonly string[],
  input: Uint8Array | undefined,
  signal: AbortSignal,
  maxBytes = Number.MAX_SAFE_INTEGER,
  launcher?: ProcessLauncher,
): Promise<Buffer> {
  const result = await runGitBytes(args, {
    cwd: dir,
    signal,
    timeoutMs: GIT_STEP_TIMEOUT_MS,
    maxOutputBytes: maxBytes,
    ...(input ? { input } : {}),
    ...(launcher ? { launcher } : {}),
  });
  return result.stdout;
}
