/**
 * `commit_search` and `get_contributor_repos`: commit history of the served repositories (their
 * default branches, or the revisions asked for) through `git log`. Caller text only reaches git
 * attached to its option (`--grep=…`, `--author=…`, `-G…`), revisions are resolved hashes, paths
 * follow `--`. One implementation serves both generations: tools.ts adapts each one's arguments.
 */
import type { ServedRepository } from '../git/repos';
import { explainGitError, git, integerArgument, plural, ToolError, type ToolContext, type ToolOutput } from '../repo/context';
import { dateArguments } from './dates';
import { GitError } from '../git/git';
import { checkPathPattern, checkRevision, resolveRevision, selectRepositories } from '../repo/paths';
import type { CommitMatch, CommitQuery } from '../../contract/toolWire';
import { echo } from '../http/echo';
import type { ToolNamer } from '../messages/toolNames';

/** How many results a search returns when the caller says nothing, and at most. */
export interface CountLimits {
  default: number;
  max: number;
}

/** `commit_search` on v1: the engine's own bound. */
export const COMMITS_V1: CountLimits = { default: 50, max: 200 };
/** `commit_search` (2026): count defaults to 50, at most 100. */
export const COMMITS_2026: CountLimits = { default: 50, max: 100 };
/** `get_contributor_repos` (2026) takes at most this many authors. */
export const MAX_CONTRIBUTOR_AUTHORS = 5;
const MAX_REVISIONS = 20;
const MESSAGE_MAX_CHARS = 2000;
const MAX_TERMS = 20;
const MAX_TERM_LENGTH = 500;

/** Checks a list of caller terms: trimmed, non-empty, bounded, no control characters. */
export function checkTerms(values: readonly string[] | undefined, argument: string): string[] {
  const terms = (values ?? []).map((value) => value.trim()).filter((value) => value !== '');
  if (terms.length > MAX_TERMS) throw new ToolError(`${argument} has ${terms.length} entries; the limit is ${MAX_TERMS}.`);
  for (const term of terms) {
    if (term.length > MAX_TERM_LENGTH) throw new ToolError(`An entry of ${argument} is longer than ${MAX_TERM_LENGTH} characters: shorten it.`);
    if (/\p{Cc}/u.test(term)) throw new ToolError(`An entry of ${argument} contains control characters (such as a newline): pass one line per entry.`);
  }
  return terms;
}

/** An author name or e-mail fragment; never something that looks like an option. */
export function checkAuthor(value: string, argument: string): string {
  const [author] = checkTerms([value], argument);
  if (author === undefined) throw new ToolError(`${argument} is empty: pass a name or e-mail address, or part of one.`);
  if (author.startsWith('-')) throw new ToolError(`${argument} ${echo(author)} starts with "-": pass a name or e-mail address, not an option.`);
  return author;
}

/** POSIX ERE for a literal string. */
export function escapeExtended(text: string): string {
  return text.replace(/[.[\]{}()*+?^$|\\]/g, '\\$&');
}

/** Reads a `git log` failure: a bad regular expression is the caller's to fix. */
export function explainLogError(error: unknown, repo: ServedRepository, what: string): unknown {
  if (error instanceof GitError && error.kind === 'exit') {
    const detail =
      error.stderr
        .split('\n')
        .find((line) => line.trim() !== '')
        ?.replace(/^fatal:\s*/, '')
        .trim() ?? error.message;
    if (/regex|regular expression|unmatched|invalid|brace|parenthes|repetition/i.test(detail)) {
      return new ToolError(
        `${what} is not a valid regular expression (${detail.slice(0, 200)}): fix it, or leave useRegex off to search for the literal text.`,
      );
    }
    if (/outside repository|pathspec/i.test(detail))
      return new ToolError(`files: ${detail.slice(0, 200)}: pass paths inside the repository, such as src/ or src/**/*.ts.`);
  }
  return explainGitError(error, repo);
}

/** The revisions a caller asked to search, checked; empty: each repository's default branch. */
export function checkRevisions(values: readonly string[] | undefined, toolName: ToolNamer, argument = 'revisions'): string[] {
  const revisions = [...new Set((values ?? []).map((value) => value.trim()).filter((value) => value !== ''))];
  if (revisions.length > MAX_REVISIONS) throw new ToolError(`${argument} has ${revisions.length} entries; the limit is ${MAX_REVISIONS}.`);
  return revisions.map((revision) => checkRevision(revision, argument, toolName));
}

/**
 * Where `git log` starts in each repository: its default branch, or the commits of those of the
 * revisions that exist there. A repository with none is skipped with a note; when no repository
 * has any of them, the caller hears which exist.
 */
export async function historyStarts(
  context: ToolContext,
  repos: readonly ServedRepository[],
  revisions: readonly string[],
  notes: string[],
): Promise<Map<ServedRepository, string[]>> {
  const starts = new Map<ServedRepository, string[]>();
  const missing: string[] = [];
  for (const repo of repos) {
    if (revisions.length === 0) {
      const head = await resolveRevision(context, repo, undefined).catch(() => undefined);
      if (head) starts.set(repo, [head.commit]);
      else notes.push(`${repo.name} has no commits and was skipped.`);
      continue;
    }
    const commits: string[] = [];
    const absent: string[] = [];
    for (const revision of revisions) {
      try {
        commits.push((await resolveRevision(context, repo, revision, 'revisions')).commit);
      } catch (error) {
        if (!(error instanceof ToolError)) throw error;
        absent.push(revision);
        if (missing.length < 5) missing.push(error.message);
      }
    }
    if (commits.length > 0) starts.set(repo, [...new Set(commits)]);
    if (absent.length > 0)
      notes.push(`${repo.name} has no ${absent.map((revision) => JSON.stringify(revision)).join(', ')}${commits.length === 0 ? ' and was skipped' : ''}.`);
  }
  if (revisions.length > 0 && starts.size === 0) {
    throw new ToolError(
      repos.length === 1 && missing[0] ? missing[0] : `None of revisions (${revisions.join(', ')}) exists in the repositories searched: ${missing.join(' ')}`,
    );
  }
  return starts;
}

/** `commit_search` arguments of either generation: v1 has no revisions. */
export interface CommitSearchArgs extends CommitQuery {
  /** Revisions to search instead of the default branch (2026). */
  revisions?: string[];
}

export async function commitSearch(
  context: ToolContext,
  args: CommitSearchArgs,
  limits: CountLimits = COMMITS_V1,
): Promise<ToolOutput<{ query: string; totalCount: number; commits: CommitMatch[]; limitHit: boolean }>> {
  const repos = selectRepositories(context, args.repos);
  const messageTerms = checkTerms(args.messageTerms, 'messageTerms');
  const authors = checkTerms(args.authors, 'authors').map((author) => checkAuthor(author, 'authors'));
  const contentTerms = checkTerms(args.contentTerms, 'contentTerms');
  const files = checkTerms(args.files, 'files').map((file) => checkPathPattern(file, 'files'));
  const revisions = checkRevisions(args.revisions, context.toolName);
  const count = integerArgument('count', args.count, limits.default, 1, limits.max);
  const regex = args.useRegex === true;
  const filters = [
    '-i',
    regex ? '-E' : '-F',
    ...messageTerms.map((term) => `--grep=${term}`),
    ...authors.map((author) => `--author=${author}`),
    ...dateArguments(args.after, args.before),
  ];
  if (contentTerms.length > 0) filters.push(`-G${contentTerms.map((term) => (regex ? `(${term})` : escapeExtended(term))).join('|')}`);
  const found: CommitMatch[] = [];
  const notes: string[] = [];
  let limitHit = false;
  for (const [repo, starts] of await historyStarts(context, repos, revisions, notes)) {
    const result = await git(
      context,
      repo,
      ['log', '--no-color', `--max-count=${count + 1}`, '--format=%x1e%H%x00%an <%ae>%x00%aI%x00%B', ...filters, '--end-of-options', ...starts, '--', ...files],
      { maxOutputBytes: 4 * 1024 * 1024, onOutputLimit: 'truncate', timeoutMs: 20_000 },
    ).catch((error: unknown) => {
      throw explainLogError(error, repo, 'A search term');
    });
    const commits = parseCommits(repo, result.stdout);
    if (commits.length > count || result.truncated) limitHit = true;
    found.push(...commits.slice(0, count));
  }
  found.sort((a, b) => Date.parse(b.date) - Date.parse(a.date) || a.repository.localeCompare(b.repository));
  if (found.length > count) limitHit = true;
  const commits = found.slice(0, count);
  const query = describeCommitQuery(repos, revisions, messageTerms, authors, contentTerms, files, args, count);
  const lines = commits.map((commit) => `- ${commit.repository}@${commit.commit.slice(0, 10)} ${commit.date} ${commit.author}: ${commit.title}`);
  const heading =
    commits.length === 0
      ? `No commit matches (${query}). Widen the dates, drop a filter, or check the author's spelling.`
      : `${plural(commits.length, 'commit')} (${query}), newest first:`;
  if (limitHit) notes.push(`There are more matching commits: raise count (up to ${limits.max}) or narrow the search.`);
  return { text: [heading, ...lines].join('\n'), structured: { query, totalCount: commits.length, commits, limitHit }, notes };
}

function parseCommits(repo: ServedRepository, output: string): CommitMatch[] {
  const commits: CommitMatch[] = [];
  for (const record of output.split('\x1e')) {
    const [hash, author, date, message] = record.split('\0');
    if (!hash || !/^[0-9a-f]{40,64}$/.test(hash) || author === undefined || date === undefined || message === undefined) continue;
    const text = message.trim();
    commits.push({
      repository: repo.name,
      commit: hash,
      author,
      date,
      title: text.split('\n')[0] ?? '',
      message: text.length > MESSAGE_MAX_CHARS ? `${text.slice(0, MESSAGE_MAX_CHARS)}… (message cut)` : text,
    });
  }
  return commits;
}

function describeCommitQuery(
  repos: readonly ServedRepository[],
  revisions: readonly string[],
  messageTerms: readonly string[],
  authors: readonly string[],
  contentTerms: readonly string[],
  files: readonly string[],
  args: CommitQuery,
  count: number,
): string {
  const quote = (value: string): string => JSON.stringify(value);
  const parts = [`repo:${repos.map((repo) => repo.name).join('|')}`, 'type:commit'];
  if (revisions.length > 0) parts.push(`rev:(${revisions.map(quote).join(' OR ')})`);
  if (messageTerms.length > 0) parts.push(`message:(${messageTerms.map(quote).join(' OR ')})`);
  if (authors.length > 0) parts.push(`author:(${authors.map(quote).join(' OR ')})`);
  if (contentTerms.length > 0) parts.push(`content:(${contentTerms.map(quote).join(' OR ')})`);
  if (files.length > 0) parts.push(`file:(${files.map(quote).join(' OR ')})`);
  if (args.after) parts.push(`after:${quote(args.after)}`);
  if (args.before) parts.push(`before:${quote(args.before)}`);
  if (args.useRegex) parts.push('patterntype:regexp');
  parts.push(`count:${count}`);
  return parts.join(' ');
}

/** `get_contributor_repos` arguments as 2026 servers take them; v1's single `author` is adapted to a list of one. */
export interface ContributorArgs {
  authors: string[];
  limit?: number;
  minCommits?: number;
}

export interface ContributorRepository {
  repoName: string;
  repoCommitCount: number;
  repoMostRecentCommitDate: string;
}

/**
 * Repositories whose default branch has commits by any of the authors (name or e-mail,
 * case-insensitive part). `argument` is what the caller's generation calls the authors.
 */
export async function contributorRepos(
  context: ToolContext,
  args: ContributorArgs,
  argument = 'authors',
): Promise<ToolOutput<{ repositories: ContributorRepository[] }>> {
  const authors = checkTerms(args.authors, argument).map((author) => checkAuthor(author, argument));
  if (authors.length === 0) throw new ToolError(`${argument} is empty: pass a name or e-mail address, or part of one.`);
  if (authors.length > MAX_CONTRIBUTOR_AUTHORS)
    throw new ToolError(`${argument} has ${authors.length} entries; the limit is ${MAX_CONTRIBUTOR_AUTHORS}: ask for the others in another call.`);
  const who = authors.map(echo).join(' or ');
  const limit = integerArgument('limit', args.limit, 20, 1, 100);
  const minCommits = integerArgument('minCommits', args.minCommits, 1, 1, Number.MAX_SAFE_INTEGER);
  const found: ContributorRepository[] = [];
  const notes: string[] = [];
  for (const repo of context.repositories) {
    const head = await resolveRevision(context, repo, undefined).catch(() => undefined);
    if (!head) continue;
    const result = await git(
      context,
      repo,
      ['log', '--no-color', '-i', '-F', ...authors.map((author) => `--author=${author}`), '--format=%aI', '--end-of-options', head.commit, '--'],
      {
        maxOutputBytes: 4 * 1024 * 1024,
        onOutputLimit: 'truncate',
        timeoutMs: 20_000,
      },
    );
    const dates = result.stdout.split('\n').filter((line) => line.trim() !== '');
    if (result.truncated) notes.push(`${repo.name}: more commits than could be counted; the count is a lower bound.`);
    if (dates.length < minCommits) continue;
    const latest = dates.reduce((best, date) => (Date.parse(date) > Date.parse(best) ? date : best), dates[0] ?? '');
    found.push({ repoName: repo.name, repoCommitCount: dates.length, repoMostRecentCommitDate: latest });
  }
  found.sort(
    (a, b) =>
      b.repoCommitCount - a.repoCommitCount ||
      Date.parse(b.repoMostRecentCommitDate) - Date.parse(a.repoMostRecentCommitDate) ||
      a.repoName.localeCompare(b.repoName),
  );
  const repositories = found.slice(0, limit);
  if (found.length > repositories.length) notes.push(`${found.length - repositories.length} more repositories are not shown: raise limit (up to 100).`);
  const lines = repositories.map((repo) => `- ${repo.repoName}: ${plural(repo.repoCommitCount, 'commit')}, latest ${repo.repoMostRecentCommitDate}`);
  const heading =
    repositories.length === 0
      ? `No served repository has ${minCommits > 1 ? `${minCommits} or more commits` : 'commits'} by an author matching ${who}. Try part of the name or the e-mail address.`
      : `${who} committed to ${plural(repositories.length, 'repository', 'repositories')}:`;
  return { text: [heading, ...lines].join('\n'), structured: { repositories }, notes };
}
