/**
 * `diff_search`: code changes (added or removed lines) matching a pattern, in the default branches
 * of the chosen repositories (or the revisions asked for). `git log -G` finds the commits (the pattern runs in git as
 * POSIX ERE); the hunks are then cut out of their patches and the matches located line by line.
 */
import type { ServedRepository } from '../git/repos';
import { git, integerArgument, plural, ToolError, type ToolContext, type ToolOutput } from '../repo/context';
import { dateArguments } from './dates';
import { checkAuthor, checkRevisions, checkTerms, escapeExtended, explainLogError, historyStarts, type CountLimits } from './history';
import { hunkHeader, parsePatch, type Hunk } from './patches';
import { selectRepositories } from '../repo/paths';
import { fromPosix, literalRanges, matchRangesEach, type RegexWorker } from '../search/regex';
import type { DiffQuery } from '../../contract/toolWire';
import { echo } from '../http/echo';

/** `diff_search` on v1: the engine's own bound. */
export const DIFFS_V1: CountLimits = { default: 50, max: 200 };
/** `diff_search` (2026): count defaults to 20, at most 50. */
export const DIFFS_2026: CountLimits = { default: 20, max: 50 };
const COMMITS_SCANNED = 500;
const HUNK_LINES_MAX = 60;

export interface MatchRange {
  startLine: number;
  endLine: number;
  startCharacter: number;
  endCharacter: number;
}

export interface DiffResult {
  repository: string;
  commit: string;
  diffHunk: string;
  url: string;
  matchRanges: MatchRange[];
  authorName?: string;
  message?: string;
}

interface Candidate {
  repo: ServedRepository;
  commit: string;
  authorName: string;
  date: string;
  message: string;
  oldPath: string | undefined;
  newPath: string | undefined;
  hunk: Hunk;
}

/**
 * `diff_search` arguments as 2026 servers take them (`authors`, `revisions`); v1's single `author`
 * is adapted to a list of one.
 */
export interface DiffSearchArgs extends Omit<DiffQuery, 'author'> {
  authors?: string[];
  revisions?: string[];
}

export async function diffSearch(
  context: ToolContext,
  args: DiffSearchArgs,
  limits: CountLimits = DIFFS_V1,
  authorsArgument = 'authors',
): Promise<ToolOutput<{ query: string; results: DiffResult[]; totalCount: number; limitHit: boolean }>> {
  const [pattern] = checkTerms([args.pattern], 'pattern');
  if (pattern === undefined) throw new ToolError('pattern is empty: pass the code to look for in added or removed lines, such as console.log.');
  const repos = selectRepositories(context, args.repos);
  const authors = checkTerms(args.authors, authorsArgument).map((author) => checkAuthor(author, authorsArgument));
  const revisions = checkRevisions(args.revisions, context.toolName);
  const count = integerArgument('count', args.count, limits.default, 1, limits.max);
  const regex = args.useRegex === true;
  // Both or neither: either kind of changed line counts.
  const addedOnly = args.added === true && args.removed !== true;
  const removedOnly = args.removed === true && args.added !== true;
  const dates = dateArguments(args.after, args.before);
  const notes: string[] = [];
  let limitHit = false;
  const candidates: Candidate[] = [];
  // Repositories without commits have no changes to find: no note for them, as before.
  const skipped: string[] = [];
  for (const [repo, starts] of await historyStarts(context, repos, revisions, revisions.length > 0 ? notes : skipped)) {
    const result = await git(
      context,
      repo,
      [
        'log',
        '--no-color',
        '--no-ext-diff',
        '--no-renames',
        '-p',
        '--unified=2',
        `--max-count=${COMMITS_SCANNED}`,
        '--format=%x1e%H%x00%an%x00%aI%x00%s',
        '-i',
        `-G${regex ? pattern : escapeExtended(pattern)}`,
        ...(authors.length > 0 ? ['-F', ...authors.map((author) => `--author=${author}`)] : []),
        ...dates,
        '--end-of-options',
        ...starts,
        '--',
      ],
      { maxOutputBytes: 8 * 1024 * 1024, onOutputLimit: 'truncate', timeoutMs: 20_000 },
    ).catch((error: unknown) => {
      throw explainLogError(error, repo, `pattern ${echo(pattern)}`);
    });
    if (result.truncated) limitHit = true;
    const records = result.stdout.split('\x1e').filter((record) => record !== '');
    if (records.length >= COMMITS_SCANNED) limitHit = true;
    for (const record of records) {
      const headerEnd = record.indexOf('\n');
      const [hash, authorName, date, message] = record.slice(0, headerEnd < 0 ? undefined : headerEnd).split('\0');
      if (!hash || !/^[0-9a-f]{40,64}$/.test(hash) || headerEnd < 0) continue;
      for (const file of parsePatch(record.slice(headerEnd + 1))) {
        for (const hunk of file.hunks) {
          candidates.push({
            repo,
            commit: hash,
            authorName: authorName ?? '',
            date: date ?? '',
            message: message ?? '',
            oldPath: file.oldPath,
            newPath: file.newPath,
            hunk,
          });
        }
      }
    }
  }
  const matched = await locateMatches(context.regex, candidates, pattern, regex, addedOnly, removedOnly);
  matched.sort((a, b) => Date.parse(b.candidate.date) - Date.parse(a.candidate.date));
  if (matched.length > count) limitHit = true;
  const results = matched.slice(0, count).map(({ candidate, ranges, text }) => ({
    repository: candidate.repo.name,
    commit: candidate.commit,
    diffHunk: text,
    url: `${context.instanceUrl}/${candidate.repo.name}/-/commit/${candidate.commit}`,
    matchRanges: ranges,
    authorName: candidate.authorName,
    message: candidate.message,
  }));
  const query = [
    `repo:${repos.map((repo) => repo.name).join('|')}`,
    revisions.length > 0 ? `rev:(${revisions.map((revision) => JSON.stringify(revision)).join(' OR ')})` : '',
    'type:diff',
    addedOnly ? 'select:commit.diff.added' : removedOnly ? 'select:commit.diff.removed' : '',
    authors.length === 1
      ? `author:${JSON.stringify(authors[0])}`
      : authors.length > 1
        ? `author:(${authors.map((author) => JSON.stringify(author)).join(' OR ')})`
        : '',
    args.after ? `after:${JSON.stringify(args.after)}` : '',
    args.before ? `before:${JSON.stringify(args.before)}` : '',
    regex ? 'patterntype:regexp' : '',
    `count:${count}`,
    regex ? `/${pattern}/` : JSON.stringify(pattern),
  ]
    .filter((part) => part !== '')
    .join(' ');
  if (limitHit)
    notes.push(`Not every matching change is shown: narrow with after/before, ${authorsArgument} or fewer repos, or raise count (up to ${limits.max}).`);
  const heading =
    results.length === 0
      ? `No ${addedOnly ? 'added' : removedOnly ? 'removed' : 'changed'} line matches (${query}).`
      : `${plural(results.length, 'matching hunk')} (${query}), newest first:`;
  const body = results.map((result) => `### ${result.repository}@${result.commit.slice(0, 10)} by ${result.authorName}: ${result.message}\n${result.diffHunk}`);
  return { text: [heading, ...body].join('\n\n'), structured: { query, results, totalCount: matched.length, limitHit }, notes };
}

/** The hunks with a matching added/removed line, as text with the match positions in it. */
async function locateMatches(
  regexWorker: RegexWorker,
  candidates: readonly Candidate[],
  pattern: string,
  regex: boolean,
  addedOnly: boolean,
  removedOnly: boolean,
): Promise<Array<{ candidate: Candidate; ranges: MatchRange[]; text: string }>> {
  const eligible = (line: string): boolean => (line.startsWith('+') && !removedOnly) || (line.startsWith('-') && !addedOnly);
  // Every eligible line of every hunk, matched in one time-bounded pass.
  const lines: string[] = [];
  for (const candidate of candidates) for (const line of candidate.hunk.lines.slice(0, HUNK_LINES_MAX)) if (eligible(line)) lines.push(line.slice(1));
  const found = regex
    ? await matchRangesEach(regexWorker, fromPosix(pattern), 'i', lines, 'The pattern', 20, 2_000)
    : lines.map((line) => literalRanges(line, pattern, false));
  let next = 0;
  const results: Array<{ candidate: Candidate; ranges: MatchRange[]; text: string }> = [];
  for (const candidate of candidates) {
    const { hunk } = candidate;
    const header = [
      `--- ${candidate.oldPath ? `a/${candidate.oldPath}` : '/dev/null'}`,
      `+++ ${candidate.newPath ? `b/${candidate.newPath}` : '/dev/null'}`,
      hunkHeader(hunk),
    ];
    const shown = hunk.lines.slice(0, HUNK_LINES_MAX);
    const ranges: MatchRange[] = [];
    shown.forEach((line, index) => {
      if (!eligible(line)) return;
      const lineRanges = found[next++] ?? [];
      for (const [start, end] of lineRanges) {
        const lineIndex = header.length + index;
        ranges.push({ startLine: lineIndex, endLine: lineIndex, startCharacter: start + 1, endCharacter: end + 1 });
      }
    });
    if (ranges.length === 0) continue;
    const rest = hunk.lines.length - shown.length;
    const text = [...header, ...shown, ...(rest > 0 ? [`… (${rest} more lines in this hunk)`] : [])].join('\n');
    results.push({ candidate, ranges, text });
  }
  return results;
}
