/**
 * What the search index's worker thread (searchWorkerThread.ts) is started with, asked and answers:
 * the messages between it and the engine's thread (searchIndex.ts).
 */
import type { LineMatcher } from './grepPatterns';
import type { RequiredText } from './literalQuery';

/**
 * What the worker is started with (`workerData`): the commit whose tree it reads itself, with its
 * own `git` processes, so that the engine's thread never handles the tree or its text.
 */
export interface WorkerInit {
  /** Build the index (and answer its searches), or the on-disk filter of the whole tree (gramFilter.ts) and stop. */
  task: 'index' | 'filter';
  /** The engine's git: its command, safe config (`args`, before each subcommand) and environment. */
  git: { command: string; args: string[]; env: Record<string, string | undefined>; cwd: string; timeoutMs: number };
  commit: string;
  /** Bytes of regular files the index may hold: the tree is read in tree order as far as they go. */
  room: number;
  /** `ls-tree` output read at most. */
  listingMaxBytes: number;
}

export interface ScanRequest {
  kind: 'scan';
  id: number;
  matcher: LineMatcher;
  /** Which files the pathspecs allow (1) by index; null: every file. */
  allowed: Uint8Array | null;
  /** What every match contains (literalQuery.ts): the n-gram filter reads only the text that holds it. */
  required: RequiredText;
  /** Lines kept per file (all are counted). 0: counts only, exact (no output cap applies). */
  keep: number;
  /** The byte cap git's output would have (when lines are kept). */
  maxBytes: number;
  timeoutMs: number;
}

export type ScanReply =
  | {
      id: number;
      ok: true;
      /** Per kept line: file index, 1-based line number and text (UTF-8 decoded as git's output would be). */
      files: Int32Array<ArrayBuffer>;
      lines: Int32Array<ArrayBuffer>;
      texts: string[];
      /** Pairs of file index and matching-line count, in file order. */
      counts: Int32Array<ArrayBuffer>;
      truncated: boolean;
      /** Bytes of git's output the lines came to (counted against the cap). */
      outputBytes: number;
      /** Bytes of text read (the n-gram filter skips the rest). */
      scannedBytes: number;
    }
  | { id: number; ok: false; timedOut: boolean; message: string };

/** One file's text (UTF-8 decoded), for showing a match without a git process. */
export interface ReadRequest {
  kind: 'read';
  id: number;
  file: number;
  /** The blob's size: the index may have added a final newline. */
  size: number;
}

/** How many files hold each term (ASCII, matched in any case as `git grep -i -F` does). */
export interface TermsRequest {
  kind: 'terms';
  id: number;
  terms: string[];
}

/**
 * The best files for natural-language search, scored with BM25 (ranking.ts) by corpus figures the
 * caller gathered over every repository searched. Files become candidates through the `selecting`
 * terms (`candidateTerms`, decided by the caller over the whole tree).
 */
export interface RankRequest {
  kind: 'rank';
  id: number;
  terms: Array<{ text: string; weight: number }>;
  /** Files holding each term across every repository searched. */
  documentFrequencies: number[];
  documentCount: number;
  averageLength: number;
  /** Which files the query's filters allow (1) by index; null: every file. */
  allowed: Uint8Array | null;
  /** Indexes of the terms whose files are the candidates. */
  selecting: number[];
  limit: number;
  /** What precedes a path in the key that breaks ties (`<repository>\0`), as the caller orders files. */
  keyPrefix: string;
}

export interface RankReply {
  id: number;
  /** Candidates in all, of which the best `limit` follow, best first. */
  total: number;
  files: Int32Array<ArrayBuffer>;
  scores: Float64Array<ArrayBuffer>;
  /** Matching lines of each of those files per term: `terms.length` entries a file. */
  frequencies: Int32Array<ArrayBuffer>;
}

export type WorkerRequest = ScanRequest | ReadRequest | TermsRequest | RankRequest;

/** The index is built: what it holds, and the regular files past its room. */
export interface ReadyMessage {
  type: 'ready';
  lines: number;
  /** The text files held, NUL-separated (no path holds a NUL), in tree order. */
  paths: string;
  /** Their blob sizes. */
  sizes: Float64Array;
  /** Bytes of their text. */
  length: number;
  /** Bytes of the regular files within the room, binary ones included. */
  treeBytes: number;
  /** The regular files past the room, NUL-separated, in tree order (all after those held). */
  unread: string;
  unreadBytes: number;
}

/** The trigram filter of the commit's regular files (gramFilter.ts), for the engine's thread to write. */
export interface FilterMessage {
  type: 'filter';
  /** The regular files, NUL-separated, in tree order. */
  paths: string;
  /** Per trigram bucket b, its files are `postings[offsets[b] .. offsets[b + 1])` (file numbers, in order). */
  offsets: Int32Array<ArrayBuffer>;
  postings: Uint16Array<ArrayBuffer> | Int32Array<ArrayBuffer>;
  /** Bytes of the files. */
  bytes: number;
}

export type WorkerMessage =
  | ReadyMessage
  | FilterMessage
  /** Not one file fits the room. */
  | { type: 'no-room'; bytes: number; room: number }
  | { type: 'failed'; message: string }
  | ({ type: 'scan' } & ScanReply)
  | { type: 'read'; id: number; text: string }
  | { type: 'terms'; id: number; files: number[] }
  | ({ type: 'rank' } & RankReply);
