/**
 * `sg_diff_search`: code changes (added or removed lines) matching a pattern, in the default
 * branches of the chosen repositories. `git log -G` finds the commits (the pattern runs in git as
 * POSIX ERE); the hunks are then cut out of their patches and the matches located line by line.
 */
import type { ServedRepository } from '../repos';
import { git, integerArgument, plural, ToolError, type ToolContext, type ToolOutput } from './context';
import { dateArguments } from './dates';
import { checkAuthor, checkTerms, escapeExtended, explainLogError } from './history';
import { hunkHeader, parsePatch, type Hunk } from './patches';
import { resolveRevision, selectRepositories } from './paths';
import { fromPosix, literalRanges, matchRangesEach } from './regex';
import type { DiffQuery } from '../../api/tools/toolWire';
import { echo } from '../echo';

const RESULTS_DEFAULT = 50;
const RESULTS_MAX = 200;
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

export async function diffSearch(
  context: ToolContext,
  args: DiffQuery,
): Promise<ToolOutput<{ query: string; results: DiffResult[]; totalCount: number; limitHit: boolean }>> {
  const [pattern] = checkTerms([args.pattern], 'pattern');
  if (pattern === undefined) throw new ToolError('pattern is empty: pass the code to look for in added or removed lines, such as console.log.');
  const repos = selectRepositories(context, args.repos);
  const author = args.author === undefined || args.author.trim() === '' ? undefined : checkAuthor(args.author, 'author');
  const count = integerArgument('count', args.count, RESULTS_DEFAULT, 1, RESULTS_MAX);
  const regex = args.useRegex === true;
  // Both or neither: either kind of changed line counts.
  const addedOnly = args.added === true && args.removed !== true;
  const removedOnly = args.removed === true && args.added !== true;
  const dates = dateArguments(args.after, args.before);
  const notes: string[] = [];
  let limitHit = false;
  const candidates: Candidate[] = [];
  for (const repo of repos) {
    const head = await resolveRevision(context, repo, undefined).catch(() => undefined);
    if (!head) continue;
    const result = await git(
      context,
      repo,
      [
        'log', '--no-color', '--no-ext-diff', '--no-renames', '-p', '--unified=2', `--max-count=${COMMITS_SCANNED}`,
        '--format=%x1e%H%x00%an%x00%aI%x00%s', '-i', `-G${regex ? pattern : escapeExtended(pattern)}`,
        ...(author ? ['-F', `--author=${author}`] : []), ...dates, '--end-of-options', head.commit, '--',
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
          candidates.push({ repo, commit: hash, authorName: authorName ?? '', date: date ?? '', message: message ?? '', oldPath: file.oldPath, newPath: file.newPath, hunk });
        }
      }
    }
  }
  const matched = await locateMatches(candidates, pattern, regex, addedOnly, removedOnly);
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
    'type:diff',
    addedOnly ? 'select:commit.diff.added' : removedOnly ? 'select:commit.diff.removed' : '',
    author ? `author:${JSON.stringify(author)}` : '',
    args.after ? `after:${JSON.stringify(args.after)}` : '',
    args.before ? `before:${JSON.stringify(args.before)}` : '',
    regex ? 'patterntype:regexp' : '',
    `count:${count}`,
    regex ? `/${pattern}/` : JSON.stringify(pattern),
  ]
    .filter((part) => part !== '')
    .join(' ');
  if (limitHit) notes.push(`Not every matching change is shown: narrow with after/before, author or fewer repos, or raise count (up to ${RESULTS_MAX}).`);
  const heading = results.length === 0 ? `No ${addedOnly ? 'added' : removedOnly ? 'removed' : 'changed'} line matches (${query}).` : `${plural(results.length, 'matching hunk')} (${query}), newest first:`;
  const body = results.map((result) => `### ${result.repository}@${result.commit.slice(0, 10)} by ${result.authorName}: ${result.message}\n${result.diffHunk}`);
  return { text: [heading, ...body].join('\n\n'), structured: { query, results, totalCount: matched.length, limitHit }, notes };
}

/** The hunks with a matching added/removed line, as text with the match positions in it. */
async function locateMatches(
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
    ? await matchRangesEach(fromPosix(pattern), 'i', lines, 'The pattern', 20, 2_000)
    : lines.map((line) => literalRanges(line, pattern, false));
  let next = 0;
  const results: Array<{ candidate: Candidate; ranges: MatchRange[]; text: string }> = [];
  for (const candidate of candidates) {
    const { hunk } = candidate;
    const header = [`--- ${candidate.oldPath ? `a/${candidate.oldPath}` : '/dev/null'}`, `+++ ${candidate.newPath ? `b/${candidate.newPath}` : '/dev/null'}`, hunkHeader(hunk)];
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
