/**
 * What reading repositories keeps between requests, owned by one running engine (server.ts makes
 * it, every tool call and answer reaches it through its ToolContext): two engines in one process
 * keep nothing of each other's. Each map is bounded (runtime/keptPromises.ts drops the least
 * recently used past its limit).
 */
import type { Definition } from '../code/definitions';
import type { LinguistAttributes } from '../code/fileKinds';
import type { TreeListing } from '../search/grepResult';

/** Files' definitions kept at most (retrieval.ts). */
export const DEFINITIONS_KEPT = 500;
/** Commits' git attributes kept at most (retrieval.ts). */
export const ATTRIBUTES_KEPT = 16;
/** Lists of the files a query's filters allow, kept at most (tools/search.ts). */
export const ALLOWED_LISTS_KEPT = 8;

export class RepoCaches {
  /**
   * Kept definitions of files, by repository, commit and path: a commit's file never changes, and
   * the files an answer reads are the ones the next question about the same code reads.
   */
  readonly definitions = new Map<string, Promise<Definition[] | undefined>>();
  /** The linguist attributes of a commit's files, by repository and commit. */
  readonly attributes = new Map<string, Promise<Map<string, LinguistAttributes>>>();
  /**
   * The tree listings last read (or being read), by repository folder, commit and limit: a commit's
   * tree never changes, and natural-language search (every answer too) lists the whole tree, which
   * on a large repository is megabytes of git output to parse. A read that fails is not kept.
   */
  readonly listings = new Map<string, Promise<TreeListing>>();
  /** The files of a commit a query's filters allow, by repository, commit and filters. */
  readonly allowedLists = new Map<string, Promise<string[] | undefined>>();

  /** How many entries each map holds (for tests and diagnostics). */
  sizes(): { definitions: number; attributes: number; listings: number; allowedLists: number } {
    return { definitions: this.definitions.size, attributes: this.attributes.size, listings: this.listings.size, allowedLists: this.allowedLists.size };
  }
}
