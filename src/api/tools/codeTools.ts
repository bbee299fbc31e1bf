/**
 * The tools as typed calls: arguments named as the tool server names them, results as the domain
 * objects of `toolResults.ts`. Every call is one POST that is never repeated on its own. Arguments
 * are written once; the client adapts them to each server generation's schema (`argumentsFor`:
 * `author` becomes `authors: [author]` where the tool takes a list; what a server cannot take is
 * an error that says so, never silently dropped).
 */
import * as l10n from '@vscode/l10n';
import { DeepSearchError, isDeepSearchError } from '../errors';
import type { ToolClient } from './toolClient';
import type { CommitQuery, DiffQuery } from '../../contract/toolWire';

export type { CommitQuery, DiffQuery } from '../../contract/toolWire';
import {
  commitMatches,
  contributedRepositories,
  diffMatches,
  directoryEntries,
  fileMatches,
  fileTextFromResult,
  repositoryPage,
  revisionComparison,
  type CommitMatch,
  type ContributedRepository,
  type DiffMatch,
  type DirectoryEntry,
  type FileMatch,
  type NumberedLine,
  type RepositoryPage,
  type RevisionComparison,
} from './toolResults';

export interface FileAt {
  repo: string;
  path: string;
  /** Branch, tag or commit; the default branch when absent. */
  revision?: string;
}

export interface SymbolAt extends FileAt {
  symbol: string;
}

/** References asked of servers whose find_references takes a limit (2026: default 10). */
const REFERENCES_LIMIT = 100;
/** Lines per ranged read of a file too large to read at once; halved while a range is still too large. */
const RANGE_LINES = 4000;
/** A remote document larger than this is shown up to here, with a note. */
const MAX_DOCUMENT_LINES = 200_000;
const TOO_LARGE = /limit|too (large|big)|KB|MB|smaller range|in ranges/i;

export class CodeTools {
  constructor(readonly client: ToolClient) {}

  /** The file's text (read in ranges when the server will not send it whole). */
  async readFile(file: FileAt, signal?: AbortSignal): Promise<{ text: string; cut: boolean }> {
    try {
      return { text: joinLines(await this.readLines(file, undefined, undefined, signal)), cut: false };
    } catch (error) {
      if (!(isDeepSearchError(error) && error.kind === 'badRequest' && TOO_LARGE.test(error.message))) throw error;
    }
    return this.readInRanges(file, signal);
  }

  async readLines(file: FileAt, startLine?: number, endLine?: number, signal?: AbortSignal): Promise<NumberedLine[]> {
    const result = await this.client.call('read_file', { ...fileArgs(file), startLine, endLine }, signal);
    return fileTextFromResult(result.structured, result.text);
  }

  async listFiles(directory: FileAt, signal?: AbortSignal): Promise<DirectoryEntry[]> {
    const result = await this.client.call('list_files', { ...fileArgs(directory), path: directory.path || undefined }, signal);
    return directoryEntries(result.structured);
  }

  async listRepositories(query: string, page: { limit?: number; after?: string } = {}, signal?: AbortSignal): Promise<RepositoryPage> {
    const result = await this.client.call('list_repos', { query, limit: page.limit, after: page.after }, signal);
    return repositoryPage(result.structured);
  }

  async keywordSearch(query: string, signal?: AbortSignal): Promise<FileMatch[]> {
    return fileMatches((await this.client.call('keyword_search', { query }, signal)).structured, 'blocks');
  }

  async naturalLanguageSearch(query: string, signal?: AbortSignal): Promise<FileMatch[]> {
    return fileMatches((await this.client.call('nls_search', { query }, signal)).structured, 'blocks');
  }

  async goToDefinition(at: SymbolAt, signal?: AbortSignal): Promise<FileMatch[]> {
    return fileMatches((await this.client.call('go_to_definition', symbolArgs(at), signal)).structured, 'fileBlocks');
  }

  async findReferences(at: SymbolAt, signal?: AbortSignal): Promise<FileMatch[]> {
    // 2026 servers return 10 references unless asked for more; v1 servers take no limit (and it is left out there).
    return fileMatches((await this.client.call('find_references', { ...symbolArgs(at), limit: REFERENCES_LIMIT }, signal)).structured, 'fileBlocks');
  }

  async searchCommits(query: CommitQuery, signal?: AbortSignal): Promise<{ commits: CommitMatch[]; limitHit: boolean }> {
    return commitMatches((await this.client.call('commit_search', withoutEmpty({ ...query }), signal)).structured);
  }

  async searchDiffs(query: DiffQuery, signal?: AbortSignal): Promise<{ diffs: DiffMatch[]; limitHit: boolean }> {
    return diffMatches((await this.client.call('diff_search', withoutEmpty({ ...query }), signal)).structured);
  }

  async compareRevisions(
    repo: string,
    base: string,
    head: string,
    page: { first?: number; after?: string } = {},
    signal?: AbortSignal,
  ): Promise<RevisionComparison> {
    const result = await this.client.call('compare_revisions', withoutEmpty({ repo, base, head, first: page.first, after: page.after }), signal);
    return revisionComparison(result.structured);
  }

  async contributorRepositories(author: string, options: { limit?: number; minCommits?: number } = {}, signal?: AbortSignal): Promise<ContributedRepository[]> {
    const result = await this.client.call('get_contributor_repos', withoutEmpty({ author, ...options }), signal);
    return contributedRepositories(result.structured);
  }

  private async readInRanges(file: FileAt, signal?: AbortSignal): Promise<{ text: string; cut: boolean }> {
    const lines: NumberedLine[] = [];
    let size = RANGE_LINES;
    while (lines.length < MAX_DOCUMENT_LINES) {
      const start = lines.length + 1;
      let range: NumberedLine[];
      try {
        range = await this.readLines(file, start, start + size - 1, signal);
      } catch (error) {
        if (!isDeepSearchError(error) || error.kind !== 'badRequest') throw error;
        if (TOO_LARGE.test(error.message) && size > 1) {
          size = Math.max(1, Math.floor(size / 2));
          continue;
        }
        // Past the end of a file whose length was a whole number of ranges, or a part the server cannot reach.
        if (lines.length > 0) return { text: joinLines(lines), cut: !/past the end|beyond|out of range/i.test(error.message) };
        throw error;
      }
      lines.push(...range.filter((line) => line.line >= start));
      if (range.length < size) return { text: joinLines(lines), cut: false };
    }
    return { text: joinLines(lines), cut: true };
  }
}

function fileArgs(file: FileAt): Record<string, unknown> {
  return withoutEmpty({ repo: file.repo, path: file.path, revision: file.revision });
}

function symbolArgs(at: SymbolAt): Record<string, unknown> {
  if (!at.symbol.trim()) throw new DeepSearchError('badRequest', l10n.t('Put the cursor on a name (a function, type or variable) first.'));
  return withoutEmpty({ repo: at.repo, path: at.path, symbol: at.symbol, revision: at.revision });
}

/** Drops undefined, empty strings and empty lists, which servers may take as "match nothing". */
function withoutEmpty(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([, value]) => value !== undefined && value !== '' && !(Array.isArray(value) && value.length === 0)));
}

function joinLines(lines: readonly NumberedLine[]): string {
  return lines.length ? `${lines.map((line) => line.text).join('\n')}\n` : '';
}
