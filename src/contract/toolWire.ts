/**
 * The shapes of tool arguments and result entries that the tool server (the real one, and the local
 * engine's) and this client share, named as `mcp-tools-v1.json` names their fields. The engine
 * imports these too, so both sides of the wire are one definition.
 */

/** `sg_commit_search` arguments: every kind of filter is ANDed, the values within one ORed. */
export interface CommitQuery {
  repos: string[];
  messageTerms?: string[];
  authors?: string[];
  contentTerms?: string[];
  files?: string[];
  after?: string;
  before?: string;
  count?: number;
  useRegex?: boolean;
}

/** `sg_diff_search` arguments. */
export interface DiffQuery {
  pattern: string;
  repos: string[];
  added?: boolean;
  removed?: boolean;
  /** One on `/.api/mcp/v1` (`author`); 2026 servers take several (`authors`). */
  authors?: string[];
  after?: string;
  before?: string;
  count?: number;
  useRegex?: boolean;
}

/** One commit of `sg_commit_search`. */
export interface CommitMatch {
  repository: string;
  commit: string;
  author: string;
  date: string;
  title: string;
  message: string;
}

/** One repository of `sg_list_repos`. */
export interface RepositoryEntry {
  name: string;
  description: string;
  private: boolean;
  archived: boolean;
  fork: boolean;
  stars: number;
}
