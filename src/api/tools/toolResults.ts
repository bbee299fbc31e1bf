/**
 * What the tools answer, made into plain domain objects. Servers send `structuredContent` matching
 * the published output schemas; everything is still checked field by field, because a result that
 * is missing a field must degrade to less detail, not to an exception deep inside a view.
 */
import type { CommitMatch, RepositoryEntry } from '../../contract/toolWire';

export type { CommitMatch, RepositoryEntry } from '../../contract/toolWire';

export interface NumberedLine {
  line: number;
  text: string;
}

export interface CodeChunk {
  startLine: number;
  endLine: number;
  lines: NumberedLine[];
}

/** A file of a search or navigation result and the lines it matched. */
export interface FileMatch {
  repo: string;
  path: string;
  revision?: string;
  chunks: CodeChunk[];
}

export interface RepositoryPage {
  repositories: RepositoryEntry[];
  hasNextPage: boolean;
  endCursor?: string;
  totalCount?: number;
}

export interface DirectoryEntry {
  path: string;
  isDirectory: boolean;
}

export interface DiffMatch {
  repository: string;
  commit: string;
  hunk: string;
  url?: string;
  author?: string;
  message?: string;
  /** The first matched line inside the hunk (1-based), when the server said. */
  firstMatchLine?: number;
}

export interface ChangedFile {
  path: string;
  added: number;
  deleted: number;
}

export interface RevisionComparison {
  repository: string;
  base: string;
  head: string;
  files: ChangedFile[];
  totalAdded: number;
  totalDeleted: number;
  hasNextPage: boolean;
  endCursor?: string;
}

export interface ContributedRepository {
  name: string;
  commitCount: number;
  lastCommitDate?: string;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const field = (value: unknown, name: string): unknown => (isObject(value) ? value[name] : undefined);

const NUMBERED = /^\s*(\d+): ?(.*)$/;

/**
 * `12: code` lines (what read file and code chunks carry) as numbered lines. A line without a number
 * continues from the previous one, so un-numbered text still reads right.
 */
export function parseNumberedLines(content: string, firstLine = 1): NumberedLine[] {
  const raw = content.endsWith('\n') ? content.slice(0, -1) : content;
  if (raw === '') return [];
  let next = firstLine;
  return raw.split(/\r?\n/).map((row) => {
    const match = NUMBERED.exec(row);
    const line = match ? Number(match[1]) : next;
    next = line + 1;
    return { line, text: match ? match[2] : row };
  });
}

/** A read file result as text: the content's lines without their numbers. */
export function fileTextFromResult(structured: unknown, fallbackText: string): NumberedLine[] {
  const content = text(field(structured, 'content')) ?? fallbackText;
  return parseNumberedLines(content);
}

/** Search and navigation results: file blocks (other block kinds, if a server sends them, are skipped). */
export function fileMatches(structured: unknown, key: 'blocks' | 'fileBlocks'): FileMatch[] {
  return list(field(structured, key)).flatMap((block): FileMatch[] => {
    const repo = text(field(block, 'repo')) ?? text(field(block, 'repository'));
    const path = text(field(block, 'file')) ?? text(field(block, 'path'));
    if (!repo || !path) return [];
    const chunks = list(field(block, 'chunks')).flatMap((chunk): CodeChunk[] => {
      const startLine = count(field(chunk, 'startLine')) || 1;
      const lines = parseNumberedLines(text(field(chunk, 'content')) ?? '', startLine);
      const endLine = count(field(chunk, 'endLine')) || (lines.at(-1)?.line ?? startLine);
      return [{ startLine, endLine, lines }];
    });
    return [{ repo, path, revision: text(field(block, 'rev')) || undefined, chunks }];
  });
}

export function repositoryPage(structured: unknown): RepositoryPage {
  const pagination = field(structured, 'pagination');
  return {
    repositories: list(field(structured, 'repositories')).flatMap((entry): RepositoryEntry[] => {
      const name = text(field(entry, 'name'));
      return name
        ? [
            {
              name,
              description: text(field(entry, 'description')) ?? '',
              private: field(entry, 'private') === true,
              archived: field(entry, 'archived') === true,
              fork: field(entry, 'fork') === true,
              stars: count(field(entry, 'stars')),
            },
          ]
        : [];
    }),
    // 2026 servers also say hasMoreResults.
    hasNextPage: field(pagination, 'hasNextPage') === true || field(structured, 'hasMoreResults') === true,
    endCursor: text(field(pagination, 'endCursor')) || undefined,
    totalCount: typeof field(pagination, 'totalCount') === 'number' ? count(field(pagination, 'totalCount')) : undefined,
  };
}

export function directoryEntries(structured: unknown): DirectoryEntry[] {
  return list(field(structured, 'files')).flatMap((entry): DirectoryEntry[] => {
    const path = text(field(entry, 'path'));
    return path ? [{ path: path.replace(/\/+$/, ''), isDirectory: field(entry, 'isDirectory') === true }] : [];
  });
}

export function commitMatches(structured: unknown): { commits: CommitMatch[]; limitHit: boolean } {
  const commits = list(field(structured, 'commits')).flatMap((entry): CommitMatch[] => {
    const repository = text(field(entry, 'repository'));
    const commit = text(field(entry, 'commit'));
    if (!repository || !commit) return [];
    const message = text(field(entry, 'message')) ?? '';
    return [
      {
        repository,
        commit,
        author: text(field(entry, 'author')) ?? '',
        date: text(field(entry, 'date')) ?? '',
        title: text(field(entry, 'title')) || message.split('\n')[0] || commit.slice(0, 10),
        message,
      },
    ];
  });
  return { commits, limitHit: field(structured, 'limitHit') === true };
}

export function diffMatches(structured: unknown): { diffs: DiffMatch[]; limitHit: boolean } {
  const diffs = list(field(structured, 'results')).flatMap((entry): DiffMatch[] => {
    const repository = text(field(entry, 'repository'));
    const commit = text(field(entry, 'commit'));
    const hunk = text(field(entry, 'diffHunk'));
    if (!repository || !commit || hunk === undefined) return [];
    const firstRange = list(field(entry, 'matchRanges'))[0];
    return [
      {
        repository,
        commit,
        hunk,
        url: text(field(entry, 'url')),
        author: text(field(entry, 'authorName')),
        message: text(field(entry, 'message')),
        firstMatchLine: firstRange ? count(field(firstRange, 'startLine')) || undefined : undefined,
      },
    ];
  });
  return { diffs, limitHit: field(structured, 'limitHit') === true };
}

export function revisionComparison(structured: unknown): RevisionComparison {
  return {
    repository: text(field(structured, 'repository')) ?? '',
    base: text(field(structured, 'base')) ?? '',
    head: text(field(structured, 'head')) ?? '',
    files: list(field(structured, 'files')).flatMap((entry): ChangedFile[] => {
      const path = text(field(entry, 'path'));
      return path ? [{ path, added: count(field(entry, 'added')), deleted: count(field(entry, 'deleted')) }] : [];
    }),
    totalAdded: count(field(structured, 'totalAdded')),
    totalDeleted: count(field(structured, 'totalDeleted')),
    hasNextPage: field(structured, 'hasNextPage') === true,
    endCursor: text(field(structured, 'endCursor')) || undefined,
  };
}

export function contributedRepositories(structured: unknown): ContributedRepository[] {
  return list(field(structured, 'repositories')).flatMap((entry): ContributedRepository[] => {
    const name = text(field(entry, 'repoName'));
    return name
      ? [{ name, commitCount: count(field(entry, 'repoCommitCount')), lastCommitDate: text(field(entry, 'repoMostRecentCommitDate')) || undefined }]
      : [];
  });
}

/** The first chunk line of a match holding one of `needles` (in any case). */
export function firstMatchingLine(match: FileMatch, needles: string | readonly string[]): NumberedLine | undefined {
  const wanted = (typeof needles === 'string' ? [needles] : needles).map((needle) => needle.toLowerCase()).filter(Boolean);
  for (const chunk of match.chunks) {
    const hit = chunk.lines.find((line) => wanted.some((needle) => line.text.toLowerCase().includes(needle)));
    if (hit) return hit;
  }
  return undefined;
}

/** The words of a search query worth highlighting: no filters, operators, quotes or slashes. */
export function queryWords(query: string): string[] {
  return (query.match(/"[^"]*"|\S+/g) ?? [])
    .filter((token) => !/^[a-zA-Z]+:/.test(token) && !/^(AND|OR|NOT)$/.test(token))
    .map((token) => token.replace(/^["/]|["/]$/g, ''))
    .filter((word) => word.length >= 2);
}

/** The file and first new line a diff hunk is about, from its `+++ b/…` (or `--- a/…`) and `@@` lines. */
export function hunkLocation(hunk: string): { path?: string; line?: number } {
  const newPath = /^\+\+\+ (?:b\/)?(.+)$/m.exec(hunk)?.[1];
  const oldPath = /^--- (?:a\/)?(.+)$/m.exec(hunk)?.[1];
  const path = [newPath, oldPath].find((candidate) => candidate && candidate !== '/dev/null');
  const line = /^@@ -\d+(?:,\d+)? \+(\d+)/m.exec(hunk)?.[1];
  return { path: path?.trim(), line: line ? Number(line) : undefined };
}
