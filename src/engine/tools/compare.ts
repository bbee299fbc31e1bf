/**
 * `sg_compare_revisions`: what changed between two revisions of a repository, a page of files at
 * a time (`first`, `after`), each with its added/deleted line counts and its hunks.
 */
import type { ServedRepository } from '../git/repos';
import { decodeCursor, encodeCursor, git, integerArgument, plural, ToolError, type ToolContext, type ToolOutput } from '../repo/context';
import { parsePatch, patchPath, type FilePatch } from './patches';
import { findRepository, resolveRevision } from '../repo/paths';

const FIRST_DEFAULT = 50;
const FIRST_MAX = 100;
const HUNKS_PER_FILE = 50;
const HUNK_BODY_MAX_CHARS = 8 * 1024;
const PAGE_BODY_MAX_CHARS = 256 * 1024;

export interface CompareArgs {
  repo: string;
  base: string;
  head: string;
  first?: number;
  after?: string;
}

interface ChangedFile {
  path: string;
  oldPath: string | undefined;
  added: number;
  deleted: number;
  binary: boolean;
}

export interface ComparedHunk {
  oldRange: { startLine: number; lines: number };
  newRange: { startLine: number; lines: number };
  section?: string;
  body: string;
}

export interface ComparedFile {
  path: string;
  added: number;
  deleted: number;
  hunks?: ComparedHunk[];
}

export interface Comparison {
  repository: string;
  base: string;
  head: string;
  totalAdded: number;
  totalDeleted: number;
  totalModified: number;
  files: ComparedFile[];
  hasNextPage: boolean;
  endCursor: string;
}

export async function compareRevisions(context: ToolContext, args: CompareArgs): Promise<ToolOutput<Comparison>> {
  const repo = findRepository(context, args.repo);
  const first = integerArgument('first', args.first, FIRST_DEFAULT, 1, FIRST_MAX);
  const base = await resolveRevision(context, repo, args.base, 'base');
  const head = await resolveRevision(context, repo, args.head, 'head');
  let offset = 0;
  if (args.after !== undefined && args.after !== '') {
    const cursor = decodeCursor(args.after, context.toolName('compare_revisions'));
    if (typeof cursor.offset !== 'number' || !Number.isInteger(cursor.offset) || cursor.offset < 0) {
      throw new ToolError(`That cursor is not from ${context.toolName('compare_revisions')}: pass endCursor from its previous response.`);
    }
    if (cursor.base !== base.commit || cursor.head !== head.commit) {
      throw new ToolError('That cursor belongs to a different comparison (or the revisions moved since): start again without after.');
    }
    offset = cursor.offset;
  }
  const changed = await changedFiles(context, repo, base.commit, head.commit);
  const page = changed.slice(offset, offset + first);
  const patches = page.length > 0 ? await pagePatches(context, repo, base.commit, head.commit, page) : [];
  let budget = PAGE_BODY_MAX_CHARS;
  let cutFiles = 0;
  const files: ComparedFile[] = page.map((file) => {
    const result: ComparedFile = { path: file.path, added: file.added, deleted: file.deleted };
    if (file.binary) return result;
    const patch = patches.find((candidate) => patchPath(candidate) === file.path);
    const hunks: ComparedHunk[] = [];
    for (const hunk of patch?.hunks.slice(0, HUNKS_PER_FILE) ?? []) {
      let body = hunk.lines.join('\n');
      if (body.length > HUNK_BODY_MAX_CHARS) body = `${body.slice(0, HUNK_BODY_MAX_CHARS)}\n… (hunk cut at ${HUNK_BODY_MAX_CHARS} characters)`;
      if (body.length > budget) {
        cutFiles++;
        break;
      }
      budget -= body.length;
      const entry: ComparedHunk = {
        oldRange: { startLine: hunk.oldStart, lines: hunk.oldLines },
        newRange: { startLine: hunk.newStart, lines: hunk.newLines },
        body,
      };
      if (hunk.section) entry.section = hunk.section;
      hunks.push(entry);
    }
    result.hunks = hunks;
    return result;
  });
  const end = offset + page.length;
  const comparison: Comparison = {
    repository: repo.name,
    base: base.revision,
    head: head.revision,
    totalAdded: changed.reduce((sum, file) => sum + file.added, 0),
    totalDeleted: changed.reduce((sum, file) => sum + file.deleted, 0),
    totalModified: changed.length,
    files,
    hasNextPage: end < changed.length,
    endCursor: encodeCursor({ offset: end, base: base.commit, head: head.commit }),
  };
  const notes: string[] = [];
  if (cutFiles > 0) notes.push(`The hunks of ${plural(cutFiles, 'file')} were left out to keep the answer small: compare with a smaller first to see them.`);
  if (comparison.hasNextPage) notes.push(`${changed.length - end} more files changed: call again with after = "${comparison.endCursor}".`);
  return { text: renderComparison(comparison, changed, offset), structured: comparison, notes };
}

/** Every changed file with its line counts, in git's order (renames detected). */
async function changedFiles(context: ToolContext, repo: ServedRepository, base: string, head: string): Promise<ChangedFile[]> {
  const result = await git(context, repo, ['diff', '--no-color', '--no-ext-diff', '--numstat', '-z', '-M', base, head, '--'], {
    maxOutputBytes: 16 * 1024 * 1024,
    timeoutMs: 20_000,
  });
  const fields = result.stdout.split('\0');
  const files: ChangedFile[] = [];
  for (let i = 0; i < fields.length; i++) {
    const match = /^(-|\d+)\t(-|\d+)\t([\s\S]*)$/.exec(fields[i] ?? '');
    if (!match) continue;
    const binary = match[1] === '-';
    const added = binary ? 0 : Number(match[1]);
    const deleted = binary ? 0 : Number(match[2]);
    if (match[3] === '') {
      // A rename: the old and the new path follow as fields of their own.
      const oldPath = fields[i + 1] ?? '';
      const newPath = fields[i + 2] ?? '';
      i += 2;
      files.push({ path: newPath, oldPath, added, deleted, binary });
    } else {
      files.push({ path: match[3] ?? '', oldPath: undefined, added, deleted, binary });
    }
  }
  return files;
}

/** The patches of one page of files (both paths of a rename, so it is still seen as one). */
async function pagePatches(context: ToolContext, repo: ServedRepository, base: string, head: string, page: readonly ChangedFile[]): Promise<FilePatch[]> {
  const paths = page.flatMap((file) => (file.oldPath ? [file.oldPath, file.path] : [file.path]));
  const result = await git(context, repo, ['--literal-pathspecs', 'diff', '--no-color', '--no-ext-diff', '-M', '--unified=3', base, head, '--', ...paths], {
    maxOutputBytes: 8 * 1024 * 1024,
    onOutputLimit: 'truncate',
    timeoutMs: 20_000,
  });
  return parsePatch(result.stdout);
}

function renderComparison(comparison: Comparison, changed: readonly ChangedFile[], offset: number): string {
  const heading =
    comparison.totalModified === 0
      ? `${comparison.base} and ${comparison.head} of ${comparison.repository} have the same files.`
      : `${comparison.repository}: ${comparison.base}…${comparison.head} changes ${plural(comparison.totalModified, 'file')} ` +
        `(+${comparison.totalAdded} −${comparison.totalDeleted}); files ${offset + 1}–${offset + comparison.files.length}:`;
  const sections = comparison.files.map((file) => {
    const source = changed.find((candidate) => candidate.path === file.path);
    const label = source?.binary ? ' (binary)' : source?.oldPath ? ` (renamed from ${source.oldPath})` : '';
    const hunks = (file.hunks ?? []).map(
      (hunk) =>
        `@@ -${hunk.oldRange.startLine},${hunk.oldRange.lines} +${hunk.newRange.startLine},${hunk.newRange.lines} @@${hunk.section ? ` ${hunk.section}` : ''}\n${hunk.body}`,
    );
    return [`## ${file.path}${label} +${file.added} −${file.deleted}`, ...hunks].join('\n');
  });
  return [heading, ...sections].join('\n\n');
}
