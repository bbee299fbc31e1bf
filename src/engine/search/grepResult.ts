/** What a search is run on and what it finds: shared by git grep, ripgrep and the index. */
import type { ServedRepository } from '../repos';

export interface SearchTarget {
  repo: ServedRepository;
  commit: string;
  /** The revision as asked (`HEAD` by default). */
  revision: string;
}

export interface GrepLine {
  line: number;
  text: string;
}

export interface GrepResult {
  files: Map<string, GrepLine[]>;
  /** Matching lines per file (all of them, also those not kept). */
  counts: Map<string, number>;
  truncated: boolean;
}
