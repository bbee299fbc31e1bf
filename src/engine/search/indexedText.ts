/**
 * The search index's text as its worker holds it (searchWorkerThread.ts): the commit's text files
 * within the room, read in tree order with the worker's own git, laid out by file and line
 * (textLayout.ts) under an n-gram filter (blockFilter.ts), and the answers to what the engine asks
 * of it: scans (textScan.ts), a file's text, term counts and rankings (termRanking.ts).
 */
import { readBlobs } from './blobStream';
import { BlockFilter } from './blockFilter';
import { releaseBuffers } from './releaseBuffers';
import type { RankReply, RankRequest, ReadyMessage, ScanRequest, WorkerInit } from './searchWorker';
import { TermRanking } from './termRanking';
import { decode, TextLayout } from './textLayout';
import { scanText, type ScanResult } from './textScan';
import type { TreeGit } from './treeGit';
import { attributeVerdicts, regularFiles, type TreeEntry } from './treeText';

/**
 * The tree's regular files within the room, in tree order, less those attributes mark binary (the
 * candidates); the rest past the room; or the bytes of the tree when not one file fits.
 */
type Plan = { noRoom: number } | { noRoom?: undefined; candidates: TreeEntry[]; treeBytes: number; unread: string; unreadBytes: number };

export class IndexedText {
  private readonly ranking: TermRanking;

  private constructor(
    private readonly commit: string,
    private readonly layout: TextLayout,
    private readonly filter: BlockFilter,
  ) {
    this.ranking = new TermRanking(layout, filter);
  }

  /**
   * Reads the commit's text files within the room and lays them out: the index and what the engine
   * is told of it, or the bytes of the tree when not one file fits the room.
   */
  static async build(init: WorkerInit, git: TreeGit): Promise<{ noRoom: number } | { noRoom?: undefined; index: IndexedText; ready: ReadyMessage }> {
    const planned = await plan(init, git);
    if (planned.noRoom !== undefined) return { noRoom: planned.noRoom };
    const read = await readBlobs(git, planned.candidates);
    const filter = new BlockFilter(new Uint8Array(read.buffer, 0, read.length));
    // A string this long is an external one: its own copy of the bytes, outside the heap. The
    // buffer is freed at once, or the index would hold the text twice.
    const text = Buffer.from(read.buffer, 0, read.length).toString('latin1');
    releaseBuffers([read.buffer]);
    const layout = new TextLayout(
      text,
      read.starts,
      Array.from(read.kept, (index) => planned.candidates[index]),
    );
    const index = new IndexedText(init.commit, layout, filter);
    const ready: ReadyMessage = {
      type: 'ready',
      lines: layout.lineCount,
      paths: layout.paths.join('\0'),
      sizes: layout.sizes,
      length: read.length,
      treeBytes: planned.treeBytes,
      unread: planned.unread,
      unreadBytes: planned.unreadBytes,
    };
    return { index, ready };
  }

  /** A scan's matches (run it within a time limit: its pattern may be the caller's). */
  scan(request: ScanRequest): ScanResult {
    return scanText(this.layout, this.filter, this.commit, request);
  }

  /** The text of a file (UTF-8 decoded), its blob's `size` bytes (the index may have added a final newline). */
  read(file: number, size: number): string {
    const start = this.layout.fileStarts[file];
    return decode(this.layout.text.slice(start, start + size));
  }

  /** How many files hold each term. */
  termFiles(terms: string[]): number[] {
    return terms.map((term) => this.ranking.termCounts(term).length / 2);
  }

  rank(request: RankRequest): Omit<RankReply, 'id'> {
    return this.ranking.rank(request);
  }
}

async function plan(init: WorkerInit, git: TreeGit): Promise<Plan> {
  const listing = await git.output(['ls-tree', '-r', '-z', '--long', init.commit], undefined, init.listingMaxBytes);
  const entries = regularFiles(listing);
  let fits = 0;
  let treeBytes = 0;
  while (fits < entries.length && treeBytes + entries[fits].size <= init.room) treeBytes += entries[fits++].size;
  const read = entries.slice(0, fits);
  const unread = entries.slice(fits);
  const unreadBytes = unread.reduce((sum, entry) => sum + entry.size, 0);
  if (read.length === 0 && unread.length > 0) return { noRoom: unreadBytes };
  const input = Buffer.concat(read.flatMap((entry) => [entry.path, Buffer.from([0])]));
  const binary = attributeVerdicts(await git.output(['check-attr', '--stdin', '-z', 'diff'], input, checkAttrBytes(input, read.length)), read);
  return {
    candidates: read.filter((_, index) => !binary[index]),
    treeBytes,
    unread: unread.map((entry) => entry.path.toString('utf8')).join('\0'),
    unreadBytes,
  };
}

/** Bytes of an attribute's value in check-attr's answer allowed per path, beyond the path itself and "diff". */
const ATTRIBUTE_VALUE_BYTES = 1024;

/** The most `git check-attr -z diff` may print for these paths: each path, the attribute's name and a value. */
function checkAttrBytes(input: Buffer, paths: number): number {
  return input.length + paths * (ATTRIBUTE_VALUE_BYTES + 8);
}
