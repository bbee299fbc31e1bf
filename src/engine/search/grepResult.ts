/** What a search is run on and what it finds: shared by git grep, ripgrep and the index. */
import type { ServedRepository } from '../git/repos';

export interface SearchTarget {
  repo: ServedRepository;
  commit: string;
  /** The revision as asked (`HEAD` by default). */
  revision: string;
}

/** A commit's file paths and sizes (repo/grep.ts `listTree`), shared by every search of the commit while it is kept: read only. */
export interface TreeListing {
  readonly paths: readonly string[];
  readonly sizes: ReadonlyMap<string, number>;
  readonly truncated: boolean;
}

export interface GrepLine {
  line: number;
  text: string;
}

export interface GrepResult {
  /** The lines kept per file (none when only counting). */
  files: Map<string, GrepLine[]>;
  /** Matching lines per file (all of them, also those not kept). */
  counts: FileCounts;
  truncated: boolean;
}

/**
 * Matching lines per file, read only: a Map, or the index's compact form (searchIndex.ts), for a
 * term found in most files of a large tree is a hundred thousand entries.
 */
export interface FileCounts {
  readonly size: number;
  get(path: string): number | undefined;
  has(path: string): boolean;
  /** In tree order. */
  keys(): IterableIterator<string>;
  entries(): IterableIterator<[string, number]>;
}
