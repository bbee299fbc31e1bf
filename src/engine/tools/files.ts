/**
 * `read_file`, `list_files` and `list_repos`: reading the committed files of the served
 * repositories at any revision, with line numbers, ranges and the 128 KB limit.
 */
import { readFile as readText } from 'node:fs/promises';
import { readBlobText, splitLines } from '../repo/blocks';
import { decodeCursor, encodeCursor, formatSize, git, integerArgument, plural, ToolError, type ToolContext, type ToolOutput } from '../repo/context';
import { findRepository, normalizeRepoPath, resolveEntry, resolveRevision } from '../repo/paths';
import type { RepositoryEntry } from '../../contract/toolWire';
import { echo } from '../http/echo';

export const READ_LIMIT_BYTES = 128 * 1024;
/** Largest file whose ranges can be read (the rest of it is out of reach). */
const RANGE_READ_MAX_BYTES = 32 * 1024 * 1024;
const LIST_FILES_MAX = 1000;
const LIST_REPOS_DEFAULT = 50;
const LIST_REPOS_MAX = 100;

export interface ReadFileArgs {
  repo: string;
  path: string;
  startLine?: number;
  endLine?: number;
  revision?: string;
}

export async function readFile(context: ToolContext, args: ReadFileArgs): Promise<ToolOutput<{ content: string }>> {
  const repo = findRepository(context, args.repo);
  const path = normalizeRepoPath(args.path);
  if (path === '') throw new ToolError(`path is empty: pass the path of a file, such as README.md (${context.toolName('list_files')} shows what exists).`);
  const startLine = args.startLine === undefined ? undefined : integerArgument('startLine', args.startLine, 1, 1, Number.MAX_SAFE_INTEGER);
  const endLine = args.endLine === undefined ? undefined : integerArgument('endLine', args.endLine, 1, 1, Number.MAX_SAFE_INTEGER);
  if (startLine !== undefined && endLine !== undefined && endLine < startLine) {
    throw new ToolError(`endLine ${endLine} is before startLine ${startLine}: pass endLine ≥ startLine.`);
  }
  const { revision, commit } = await resolveRevision(context, repo, args.revision);
  const entry = await resolveEntry(context, repo, commit, path, revision);
  if (entry.type === 'tree')
    throw new ToolError(
      `${entry.path || 'The root'} in ${repo.name} is a directory: list it with ${context.toolName('list_files')}, then read one of its files.`,
    );
  if (entry.type === 'commit') throw new ToolError(`${entry.path} in ${repo.name} is a git submodule (another repository), so it has no content here.`);
  const ranged = startLine !== undefined || endLine !== undefined;
  if (!ranged && entry.size > RANGE_READ_MAX_BYTES) {
    throw new ToolError(
      `${entry.path} is ${formatSize(entry.size)}, over the ${formatSize(READ_LIMIT_BYTES)} limit: read it in ranges with ` +
        `startLine/endLine (only its first ${formatSize(RANGE_READ_MAX_BYTES)} can be reached).`,
    );
  }
  const blob = await readBlobText(context, repo, entry.oid, entry.size, RANGE_READ_MAX_BYTES);
  if (blob.binary) throw new ToolError(`${entry.path} is a binary file (${formatSize(entry.size)}), so it cannot be shown as text.`);
  const lines = entry.size === 0 ? [] : splitLines(blob.text);
  if (blob.truncated) lines.pop(); // the last line read may be cut short
  if (!ranged && entry.size > READ_LIMIT_BYTES) {
    const step = Math.max(1, Math.floor(lines.length * (READ_LIMIT_BYTES / entry.size) * 0.9));
    throw new ToolError(
      `${entry.path} is ${formatSize(entry.size)}, over the ${formatSize(READ_LIMIT_BYTES)} limit: read it in ranges with startLine/endLine ` +
        `(it has ${plural(lines.length, 'line')}; about ${step} lines fit in one read, e.g. startLine 1, endLine ${step}).`,
    );
  }
  const first = startLine ?? 1;
  if (lines.length === 0) {
    if (ranged && first > 1) throw new ToolError(`${entry.path} is empty: leave out startLine and endLine.`);
    return { text: '(empty file)', structured: { content: '' }, filesRead: [{ repo: repo.name, path: entry.path }] };
  }
  if (first > lines.length) {
    if (blob.truncated)
      throw new ToolError(
        `${entry.path} is ${formatSize(entry.size)}; only its first ${plural(lines.length, 'line')} (${formatSize(RANGE_READ_MAX_BYTES)}) can be read here.`,
      );
    throw new ToolError(
      `startLine ${first} is past the end of ${entry.path}, which has ${plural(lines.length, 'line')}: pass a startLine between 1 and ${lines.length}.`,
    );
  }
  const last = Math.min(endLine ?? lines.length, lines.length);
  const numbered = lines.slice(first - 1, last).map((line, index) => `${first + index}: ${line}`);
  const content = numbered.join('\n');
  const bytes = Buffer.byteLength(content, 'utf8');
  if (bytes > READ_LIMIT_BYTES) {
    const fit = Math.max(1, Math.floor((last - first + 1) * (READ_LIMIT_BYTES / bytes) * 0.9));
    throw new ToolError(
      `Lines ${first}–${last} of ${entry.path} are ${formatSize(bytes)}, over the ${formatSize(READ_LIMIT_BYTES)} limit: read a ` +
        `smaller range (about ${fit} lines, e.g. startLine ${first}, endLine ${first + fit - 1}).`,
    );
  }
  const notes: string[] = [];
  if (entry.path !== path) notes.push(`${path} is a symbolic link; this is ${entry.path}.`);
  if (endLine !== undefined && endLine > lines.length) notes.push(`${entry.path} has ${plural(lines.length, 'line')}; the range stops there.`);
  if (!blob.utf8) notes.push(`${entry.path} is not valid UTF-8: bytes that are not UTF-8 are shown as �.`);
  return { text: content, structured: { content }, notes, filesRead: [{ repo: repo.name, path: entry.path }] };
}

export interface ListFilesArgs {
  repo: string;
  path?: string;
  revision?: string;
}

export interface ListedFile {
  path: string;
  isDirectory: boolean;
}

export async function listFiles(context: ToolContext, args: ListFilesArgs): Promise<ToolOutput<{ files: ListedFile[] }>> {
  const repo = findRepository(context, args.repo);
  const path = normalizeRepoPath(args.path ?? '');
  const { revision, commit } = await resolveRevision(context, repo, args.revision);
  const entry = await resolveEntry(context, repo, commit, path, revision);
  if (entry.type === 'blob') throw new ToolError(`${entry.path} in ${repo.name} is a file, not a directory: read it with ${context.toolName('read_file')}.`);
  if (entry.type === 'commit') throw new ToolError(`${entry.path} in ${repo.name} is a git submodule (another repository), so its files are not listed here.`);
  const result = await git(context, repo, ['ls-tree', '-z', entry.oid], { maxOutputBytes: 4 * 1024 * 1024, onOutputLimit: 'truncate' });
  const directories: ListedFile[] = [];
  const files: ListedFile[] = [];
  const prefix = entry.path === '' ? '' : `${entry.path}/`;
  for (const record of result.stdout.split('\0')) {
    const match = /^(\d{6}) (blob|tree|commit) [0-9a-f]{40,64}\t([\s\S]+)$/.exec(record);
    if (!match) continue;
    if (match[2] === 'tree') directories.push({ path: `${prefix}${match[3]}/`, isDirectory: true });
    else files.push({ path: `${prefix}${match[3]}`, isDirectory: false });
  }
  const byPath = (a: ListedFile, b: ListedFile): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  const all = [...directories.sort(byPath), ...files.sort(byPath)];
  const shown = all.slice(0, LIST_FILES_MAX);
  const where = `${entry.path === '' ? 'the root' : `${entry.path}/`} of ${repo.name} at ${revision}`;
  const lines = shown.map((file) => file.path);
  const notes: string[] = [];
  if (entry.path !== path) notes.push(`${path} is a symbolic link to ${entry.path}/.`);
  if (all.length > shown.length || result.truncated) notes.push(`Only the first ${LIST_FILES_MAX} entries are listed: list a subdirectory to see the rest.`);
  const heading = all.length === 0 ? `${where} is empty.` : `${plural(all.length, 'entry', 'entries')} in ${where} (directories end with /):`;
  return { text: [heading, ...lines].join('\n'), structured: { files: shown }, notes };
}

export interface ListReposArgs {
  query: string;
  limit?: number;
  after?: string;
  before?: string;
}

export interface RepositoryPage {
  repositories: RepositoryEntry[];
  pagination: { totalCount: number; hasNextPage: boolean; hasPreviousPage: boolean; startCursor?: string; endCursor?: string };
}

/**
 * Served repositories whose names contain `query` (case-insensitive; `^` and `$` anchor it), in
 * name order, a page at a time. Cursors name the first/last repository of a page.
 */
export async function listRepos(context: ToolContext, args: ListReposArgs): Promise<ToolOutput<RepositoryPage>> {
  const limit = integerArgument('limit', args.limit, LIST_REPOS_DEFAULT, 1, LIST_REPOS_MAX);
  if (args.after !== undefined && args.before !== undefined) throw new ToolError('Pass after or before, not both: after pages forward, before pages back.');
  let query = args.query.trim().toLowerCase();
  const anchoredStart = query.startsWith('^');
  const anchoredEnd = query.endsWith('$') && query.length > (anchoredStart ? 1 : 0);
  if (anchoredStart) query = query.slice(1);
  if (anchoredEnd) query = query.slice(0, -1);
  const matching = context.repositories
    .map((repo) => repo.name)
    .filter((name) => {
      const lower = name.toLowerCase();
      if (anchoredStart && anchoredEnd) return lower === query;
      if (anchoredStart) return lower.startsWith(query);
      if (anchoredEnd) return lower.endsWith(query);
      return lower.includes(query);
    })
    .sort();
  let start = 0;
  let end = Math.min(limit, matching.length);
  if (args.after !== undefined) {
    const name = cursorName(context, args.after);
    start = matching.filter((candidate) => candidate <= name).length;
    end = Math.min(start + limit, matching.length);
  } else if (args.before !== undefined) {
    const name = cursorName(context, args.before);
    end = matching.filter((candidate) => candidate < name).length;
    start = Math.max(0, end - limit);
  }
  const names = matching.slice(start, end);
  const repositories = await Promise.all(names.map((name) => describeRepository(context, name)));
  const pagination: RepositoryPage['pagination'] = {
    totalCount: matching.length,
    hasNextPage: end < matching.length,
    hasPreviousPage: start > 0,
  };
  const firstName = names[0];
  const lastName = names[names.length - 1];
  if (firstName !== undefined) pagination.startCursor = encodeCursor({ repo: firstName });
  if (lastName !== undefined) pagination.endCursor = encodeCursor({ repo: lastName });
  const lines = repositories.map((repo) => `- ${repo.name}${repo.description ? ` — ${repo.description}` : ''}`);
  const heading =
    matching.length === 0
      ? `No served repository name contains ${echo(args.query)}: try a shorter part of the name, or an empty query to list all ${context.repositories.length}.`
      : `${plural(matching.length, 'repository', 'repositories')} match; showing ${start + 1}–${end}:`;
  const notes = pagination.hasNextPage ? [`More results: call again with after = "${pagination.endCursor}".`] : [];
  return { text: [heading, ...lines].join('\n'), structured: { repositories, pagination }, notes };
}

function cursorName(context: ToolContext, cursor: string): string {
  const value = decodeCursor(cursor, context.toolName('list_repos')).repo;
  if (typeof value !== 'string')
    throw new ToolError(`That cursor is not from ${context.toolName('list_repos')}: pass startCursor or endCursor from its previous response.`);
  return value;
}

/** Name, and the description git keeps in `<git dir>/description` unless it is git's placeholder. */
async function describeRepository(context: ToolContext, name: string): Promise<RepositoryEntry> {
  const repo = context.repositories.find((candidate) => candidate.name === name);
  let description = '';
  if (repo) {
    const file = repo.bare ? `${repo.dir}/description` : `${repo.dir}/.git/description`;
    const text = await readText(file, 'utf8').catch(() => '');
    const line = text.split('\n')[0]?.trim() ?? '';
    description = line.startsWith('Unnamed repository') ? '' : line.slice(0, 500);
  }
  return { name, description, private: true, archived: false, fork: false, stars: 0 };
}
