/**
 * Everything a caller names that reaches git is checked here: repository names (only served ones),
 * revisions (never an option, never a range, resolved to a commit hash before use) and paths (relative,
 * no `..`, symbolic links followed only while they stay inside the repository).
 */
import * as posix from 'node:path/posix';
import type { ServedRepository } from '../git/repos';
import type { ToolNamer } from '../messages/toolNames';
import { git, ToolError, type ToolContext } from './context';

const MAX_PATH_LENGTH = 4096;
const MAX_REVISION_LENGTH = 256;
const MAX_SYMLINK_HOPS = 8;

/** The served repository called `name` (exactly, ignoring case, or by a unique `org/repo` suffix). */
export function findRepository(context: ToolContext, name: string): ServedRepository {
  const wanted = name.trim().replace(/\/+$/, '');
  if (wanted === '') throw new ToolError(`repo is empty: pass a repository name such as those ${context.toolName('list_repos')} returns.`);
  const { repositories } = context;
  const exact = repositories.find((repo) => repo.name === wanted);
  if (exact) return exact;
  const lower = wanted
    .toLowerCase()
    .replace(/^https?:\/\//, '')
    .replace(/\.git$/, '');
  const caseless = repositories.find((repo) => repo.name.toLowerCase() === lower);
  if (caseless) return caseless;
  const suffixed = repositories.filter((repo) => repo.name.toLowerCase().endsWith(`/${lower}`));
  if (suffixed.length === 1 && suffixed[0]) return suffixed[0];
  throw new ToolError(unknownRepositoryMessage(context, name));
}

function unknownRepositoryMessage(context: ToolContext, name: string): string {
  const names = context.repositories.map((repo) => repo.name);
  const shown = names.slice(0, 10).join(', ') + (names.length > 10 ? `, … (${names.length} in all)` : '');
  return `No repository named ${JSON.stringify(name.slice(0, 200))} is served here: use one of ${shown}, or find names with ${context.toolName('list_repos')}.`;
}

/**
 * The repositories a list of names or patterns selects: exact names, `*` globs
 * (`github.com/acme/*`) or name fragments. An empty list, or `*`, selects all of them.
 */
export function selectRepositories(context: ToolContext, patterns: readonly string[]): ServedRepository[] {
  const cleaned = patterns.map((pattern) => pattern.trim()).filter((pattern) => pattern !== '');
  if (cleaned.length === 0 || cleaned.includes('*')) return [...context.repositories];
  const selected = new Set<ServedRepository>();
  for (const pattern of cleaned) {
    let matched: ServedRepository[];
    if (pattern.includes('*')) {
      const glob = new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`, 'i');
      matched = context.repositories.filter((repo) => glob.test(repo.name));
    } else {
      const exact = context.repositories.filter((repo) => repo.name.toLowerCase() === pattern.toLowerCase());
      matched = exact.length > 0 ? exact : context.repositories.filter((repo) => repo.name.toLowerCase().includes(pattern.toLowerCase()));
    }
    if (matched.length === 0) throw new ToolError(unknownRepositoryMessage(context, pattern));
    for (const repo of matched) selected.add(repo);
  }
  return context.repositories.filter((repo) => selected.has(repo));
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * Checks a revision a caller gave: a branch, tag, commit hash or an expression like `main~3`,
 * never an option (`-…`), a range (`a..b`), a path (`rev:path`) or anything with spaces.
 */
export function checkRevision(revision: string, argument: string, toolName: ToolNamer): string {
  const value = revision.trim();
  if (value === '') throw new ToolError(`${argument} is empty: pass a branch, tag or commit hash, or leave it out for the default branch.`);
  if (value.length > MAX_REVISION_LENGTH)
    throw new ToolError(`${argument} is longer than ${MAX_REVISION_LENGTH} characters: pass a branch, tag or commit hash.`);
  if (value.startsWith('-')) {
    throw new ToolError(`${argument} ${JSON.stringify(value.slice(0, 80))} starts with "-": revisions are branch, tag or commit names, never options.`);
  }
  if (/[\s\p{Cc}]/u.test(value)) throw new ToolError(`${argument} contains spaces or control characters: pass a branch, tag or commit hash.`);
  if (value.includes('..'))
    throw new ToolError(`${argument} ${JSON.stringify(value)} is a range: pass a single revision (to compare two, use ${toolName('compare_revisions')}).`);
  if (/[:\\?*[]/.test(value)) throw new ToolError(`${argument} ${JSON.stringify(value)} contains : \\ ? * or [: pass a branch, tag or commit hash.`);
  return value;
}

export interface ResolvedRevision {
  /** What the caller asked for (or `HEAD`). */
  revision: string;
  /** The full commit hash it names now. */
  commit: string;
}

/** The commit a revision names in `repo` (default HEAD), or an error listing what exists. */
export async function resolveRevision(
  context: ToolContext,
  repo: ServedRepository,
  revision: string | undefined,
  argument = 'revision',
): Promise<ResolvedRevision> {
  const wanted = revision === undefined || revision.trim() === '' ? 'HEAD' : checkRevision(revision, argument, context.toolName);
  const result = await git(context, repo, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${wanted}^{commit}`], { okExitCodes: [0, 1, 128] });
  const commit = result.stdout.trim();
  if (result.exitCode === 0 && /^[0-9a-f]{40,64}$/.test(commit)) return { revision: wanted, commit };
  if (wanted === 'HEAD') throw new ToolError(`${repo.name} has no commits yet, so there is nothing to read or search in it.`);
  throw new ToolError(`${argument} ${JSON.stringify(wanted)} does not exist in ${repo.name}: ${await knownRefs(context, repo)}`);
}

async function knownRefs(context: ToolContext, repo: ServedRepository): Promise<string> {
  const result = await git(context, repo, ['for-each-ref', '--count=12', '--sort=-committerdate', '--format=%(refname:short)', 'refs/heads', 'refs/tags'], {
    okExitCodes: [0, 1, 128],
  });
  const refs = result.stdout.split('\n').filter((line) => line !== '');
  return refs.length > 0
    ? `use a branch or tag such as ${refs.join(', ')}, or a commit hash.`
    : 'use a commit hash, or leave the revision out for the default branch.';
}

/**
 * A path inside a repository in canonical form (`src/app.ts`; `''` is the root). Rejects absolute
 * paths, `..`, backslashes and control characters; drops `./`, doubled and trailing slashes.
 */
export function normalizeRepoPath(input: string, argument = 'path'): string {
  if (input.length > MAX_PATH_LENGTH) throw new ToolError(`${argument} is longer than ${MAX_PATH_LENGTH} characters.`);
  if (/\p{Cc}/u.test(input)) throw new ToolError(`${argument} contains control characters: pass a path such as src/index.ts.`);
  const trimmed = input.trim();
  if (trimmed.includes('\\'))
    throw new ToolError(`${argument} ${JSON.stringify(trimmed)} contains a backslash: separate folders with "/", as in src/index.ts.`);
  if (trimmed.startsWith('/') || /^[A-Za-z]:/.test(trimmed) || trimmed.startsWith('~')) {
    throw new ToolError(`${argument} ${JSON.stringify(trimmed)} is absolute: pass a path relative to the repository root, such as src/index.ts.`);
  }
  const segments = trimmed.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..'))
    throw new ToolError(`${argument} ${JSON.stringify(trimmed)} contains "..": pass a path inside the repository, relative to its root.`);
  return segments.join('/');
}

export type EntryType = 'blob' | 'tree' | 'commit';

export interface TreeEntry {
  /** Canonical path of the entry (after following symbolic links). */
  path: string;
  mode: string;
  type: EntryType;
  oid: string;
  /** Bytes, for blobs. */
  size: number;
}

/** The entry at `path` in `commit`, without following links; undefined when there is none. */
async function lookupEntry(context: ToolContext, repo: ServedRepository, commit: string, path: string): Promise<TreeEntry | undefined> {
  const result = await git(context, repo, ['--literal-pathspecs', 'ls-tree', '-z', '--long', '--full-tree', commit, '--', path], {
    maxOutputBytes: 64 * 1024,
    onOutputLimit: 'truncate',
  });
  for (const record of result.stdout.split('\0')) {
    const match = /^(\d{6}) (blob|tree|commit) ([0-9a-f]{40,64}) +(-|\d+)\t([\s\S]*)$/.exec(record);
    if (match?.[5] === path) {
      return { path, mode: match[1] ?? '', type: match[2] as EntryType, oid: match[3] ?? '', size: Number(match[4]) || 0 };
    }
  }
  return undefined;
}

/** Where a symbolic link at `linkPath` with target `target` points, or undefined when outside. */
function linkDestination(linkPath: string, target: string): string | undefined {
  if (target.startsWith('/') || /^[A-Za-z]:[\\/]/.test(target)) return undefined;
  const joined = posix.normalize(posix.join(posix.dirname(linkPath), target));
  if (joined === '..' || joined.startsWith('../') || joined.startsWith('/')) return undefined;
  return joined === '.' ? '' : joined.replace(/\/+$/, '');
}

/**
 * The entry at `path`, following symbolic links (also in folder names) while they stay inside the
 * repository. Errors say when the path does not exist or a link leads out of the repository.
 */
export async function resolveEntry(context: ToolContext, repo: ServedRepository, commit: string, path: string, revision: string): Promise<TreeEntry> {
  let current = path;
  for (let hop = 0; hop <= MAX_SYMLINK_HOPS; hop++) {
    if (current === '') return { path: '', mode: '040000', type: 'tree', oid: commit, size: 0 };
    const entry = await lookupEntry(context, repo, commit, current);
    if (entry && entry.mode !== '120000') return entry;
    let linkPath = current;
    let rest = '';
    let link = entry;
    if (!link) {
      const found = await linkInParents(context, repo, commit, current);
      if (!found) throw new ToolError(notFoundMessage(context, repo, path, revision));
      ({ link, linkPath, rest } = found);
    }
    const target = (await git(context, repo, ['cat-file', 'blob', link.oid], { maxOutputBytes: 8192, onOutputLimit: 'truncate' })).stdout;
    const destination = linkDestination(linkPath, target.trim());
    if (destination === undefined) {
      throw new ToolError(
        `${linkPath} in ${repo.name} is a symbolic link that points outside the repository, so it cannot be read: pass a path to a file inside the repository.`,
      );
    }
    current = rest === '' ? destination : destination === '' ? rest : `${destination}/${rest}`;
  }
  throw new ToolError(`${path} in ${repo.name} goes through more than ${MAX_SYMLINK_HOPS} symbolic links: pass the real path of the file.`);
}

/** The nearest parent folder of `path` that is a symbolic link, and the part of `path` below it. */
async function linkInParents(
  context: ToolContext,
  repo: ServedRepository,
  commit: string,
  path: string,
): Promise<{ link: TreeEntry; linkPath: string; rest: string } | undefined> {
  const segments = path.split('/');
  for (let length = 1; length < segments.length; length++) {
    const prefix = segments.slice(0, length).join('/');
    const entry = await lookupEntry(context, repo, commit, prefix);
    if (!entry) return undefined;
    if (entry.mode === '120000') return { link: entry, linkPath: prefix, rest: segments.slice(length).join('/') };
    if (entry.type !== 'tree') return undefined;
  }
  return undefined;
}

function notFoundMessage(context: ToolContext, repo: ServedRepository, path: string, revision: string): string {
  const parent = posix.dirname(path);
  const where = parent === '.' ? 'the repository root' : `${parent}/`;
  return `${path} does not exist in ${repo.name} at ${revision}: check the spelling and list ${where} with ${context.toolName('list_files')} to see what is there.`;
}

/** A pathspec a caller gave for filtering (globs allowed), checked not to leave the repository. */
export function checkPathPattern(pattern: string, argument: string): string {
  const value = pattern.trim();
  if (value === '') throw new ToolError(`${argument} contains an empty path: remove it or pass a path such as src/ or src/**/*.ts.`);
  if (value.startsWith('-')) throw new ToolError(`${argument} ${JSON.stringify(value)} starts with "-": pass a path, not an option.`);
  normalizeRepoPath(value.replace(/^:\([^)]*\)/, ''), argument);
  return value;
}
