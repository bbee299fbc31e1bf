/**
 * `git grep` over one committed tree for the search and navigation tools: caller patterns only ever
 * follow `-e`, regular expressions run inside git (PCRE with its match limit, or POSIX ERE) under a
 * timeout, and the output is capped. When the repository's search index is ready for the commit and
 * can promise git's exact answer for the patterns, the index answers instead (searchIndex.ts); until
 * then, ripgrep does where the engine has one and the working tree is the commit (ripgrep.ts).
 */
import { GitError } from '../git/git';
import { explainGitError, git, ToolError, type ToolContext } from './context';
import { argumentSlices } from '../search/commandLine';
import { keptPromise } from '../runtime/keptPromises';
import { forEachInTurns } from '../runtime/inTurns';
import { lineMatcher, pathspecFilter, ripgrepPattern } from '../search/grepPatterns';
import { requiredText } from '../search/literalQuery';
import type { GrepLine, GrepResult, SearchTarget, TreeListing } from '../search/grepResult';

export type { FileCounts, GrepLine, GrepResult, SearchTarget, TreeListing } from '../search/grepResult';

export interface GrepOptions {
  patterns: readonly string[];
  /** `fixed` strings, `extended` (POSIX ERE, always available) or `perl` (PCRE, falls back to ERE). */
  syntax: 'fixed' | 'extended' | 'perl';
  caseSensitive: boolean;
  wholeWord?: boolean;
  /** Our own pathspecs (globs such as `*.ts`); never caller text. */
  pathspecs?: readonly string[];
  /** Only these files (exact paths of the tree), such as the ones a search will show; in place of `pathspecs`. */
  files?: readonly string[];
  /**
   * Lines kept per file. Default 200. 0: matching lines are only counted (the result's `files` is
   * empty), and every count is exact: no output cap applies (the output is a path and a number per file).
   */
  linesPerFile?: number;
  /** git's output cap, where lines are kept. */
  maxOutputBytes?: number;
  /** Names the pattern in error messages, e.g. `the regular expression /a+/`. */
  what: string;
}

/** Lines kept per file, as git grep's caller keeps them. */
export const DEFAULT_LINES_PER_FILE = 200;
const DEFAULT_MAX_OUTPUT_BYTES = 2 * 1024 * 1024;
/** Files named to one count as literal pathspecs at most (git matches each path against each). */
const MAX_LITERAL_PATHSPECS = 5_000;
/** Files the trigram filter may leave for git grep to be named (past them, the tree is searched whole). */
const MAX_NARROWED_FILES = 1_000;
/** Output read from `git grep -c`: a path and a count per file, far more than any tree here needs. */
const COUNTS_MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/** Matching lines of `target`'s text files, grouped by path. */
export async function grepTarget(context: ToolContext, target: SearchTarget, options: GrepOptions): Promise<GrepResult> {
  let syntax = options.syntax;
  if (syntax === 'perl' && context.pcre.available === false) syntax = 'extended';
  // With ripgrep, the index starts building once this search's call is answered: the two would
  // share the machine, and the first search would wait for its share (ripgrep is fastest on its own).
  const indexes = context.searchIndexes;
  const ripgrep = indexes?.ripgrep !== undefined;
  const indexed = await grepIndex(context, target, options, syntax, !ripgrep);
  if (indexed) return indexed;
  if (!indexes?.isBuilding(target)) return grepUnindexed(context, target, options, syntax);
  // While the index builds, the repository's searches take turns without it: greps piling up would
  // starve the build that makes them unnecessary. Those that waited may find it ready.
  return indexes.takingTurns(
    target,
    context.signal,
    async () => (await grepIndex(context, target, options, syntax, false)) ?? grepUnindexed(context, target, options, syntax),
  );
}

/**
 * git grep's answer without the index: over the files the commit's trigram filter leaves when it
 * leaves few (gramFilter.ts), else ripgrep's where it can give one, else git grep's over the tree.
 */
async function grepUnindexed(context: ToolContext, target: SearchTarget, options: GrepOptions, syntax: GrepOptions['syntax']): Promise<GrepResult> {
  try {
    const narrowed = await narrowedByFilter(context, target, options, syntax);
    if (narrowed) return await gitGrep(context, target, narrowed, syntax);
    return (await grepRipgrep(context, target, options, syntax)) ?? (await gitGrep(context, target, options, syntax));
  } finally {
    if (context.searchIndexes?.ripgrep) context.searchIndexes.buildAfterward(target);
  }
}

/**
 * The options narrowed to the files that can hold a match by the commit's trigram filter, when it
 * has one and they are few enough to name to git grep (naming thousands costs git more than it
 * saves); undefined otherwise. PCRE patterns wait until git has shown it has PCRE (without it, git
 * runs them as ERE, whose literals may differ).
 */
async function narrowedByFilter(
  context: ToolContext,
  target: SearchTarget,
  options: GrepOptions,
  syntax: GrepOptions['syntax'],
): Promise<GrepOptions | undefined> {
  if (syntax === 'perl' && context.pcre.available !== true) return undefined;
  const filter = await context.searchIndexes?.filterFor(target.repo, target.commit);
  if (!filter) return undefined;
  const matcher = lineMatcher(options.patterns, syntax, options.caseSensitive, options.wholeWord ?? false);
  if (!matcher) return undefined;
  const named = options.files ? new Set(options.files) : undefined;
  const selects = named ? (path: string) => named.has(path) : pathspecFilter(options.pathspecs ?? []);
  if (selects === undefined) return undefined;
  const files = await filter.candidates(requiredText(matcher), selects, MAX_NARROWED_FILES);
  return files && { ...options, files };
}

/** git grep's answer, its failures explained. */
async function gitGrep(context: ToolContext, target: SearchTarget, options: GrepOptions, syntax: GrepOptions['syntax']): Promise<GrepResult> {
  try {
    return await runGrep(context, target, options, syntax);
  } catch (error) {
    if (syntax === 'perl' && error instanceof GitError && /USE_LIBPCRE|Perl-compatible|not compiled with/i.test(error.stderr)) {
      context.pcre.available = false;
      return runGrep(context, target, options, 'extended');
    }
    if (error instanceof GitError && error.kind === 'exit') {
      const detail =
        error.stderr
          .split('\n')
          .find((line) => line.trim() !== '')
          ?.replace(/^fatal:\s*/, '')
          .trim() ?? '';
      if (/match limit|resource limit|depth limit|heap limit|pcre2?_.*(exceed|limit)/i.test(detail)) {
        throw new ToolError(
          `${options.what} needs too much backtracking and was stopped: simplify it (avoid nested repetition such as (a+)+, or use plain terms).`,
        );
      }
      throw new ToolError(
        `${options.what} could not be searched (${detail.slice(0, 200)}): fix the regular expression, or search for plain terms or a "quoted phrase".`,
      );
    }
    throw explainGitError(error, target.repo);
  }
}

/**
 * The index's answer, or undefined when git grep must answer: no index ready for the commit, a
 * pattern or pathspec the index cannot promise git's result for, or a scan over its time limit.
 * PCRE patterns wait until git has shown it has PCRE: without it, git would run them as ERE.
 */
async function grepIndex(
  context: ToolContext,
  target: SearchTarget,
  options: GrepOptions,
  syntax: GrepOptions['syntax'],
  build: boolean,
): Promise<GrepResult | undefined> {
  const index = context.searchIndexes?.lookup(target, build);
  if (!index || (syntax === 'perl' && context.pcre.available !== true)) return undefined;
  const matcher = lineMatcher(options.patterns, syntax, options.caseSensitive, options.wholeWord ?? false);
  if (!matcher) return undefined;
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const indexed = await index.grep(
    {
      matcher,
      pathspecs: options.pathspecs ?? [],
      ...(options.files ? { files: options.files } : {}),
      linesPerFile: options.linesPerFile ?? DEFAULT_LINES_PER_FILE,
      maxOutputBytes,
      what: options.what,
    },
    context.signal,
  );
  if (!indexed) return undefined;
  const unread = index.unreadAmong(options.files, options.pathspecs ?? []);
  if (unread.length === 0 || indexed.result.truncated) return indexed.result;
  // The files past the index budget all come after the indexed ones in tree order: git's output
  // goes on with them, within what is left of its cap.
  const rest = await grepUnindexed(context, target, { ...options, files: unread, maxOutputBytes: Math.max(1, maxOutputBytes - indexed.outputBytes) }, syntax);
  return {
    files: new Map([...indexed.result.files, ...rest.files]),
    counts: new Map([...indexed.result.counts.entries(), ...rest.counts.entries()]),
    truncated: rest.truncated,
  };
}

/**
 * ripgrep's answer (ripgrep.ts), or undefined when git grep must answer: no ripgrep, a revision
 * other than HEAD (ripgrep reads the working tree, which can only ever be HEAD's), a pattern the
 * index could not promise git's answer for either, or a tree ripgrep cannot vouch for. A PCRE
 * pattern needs to know first whether git has PCRE: without it, git runs the pattern as ERE.
 */
async function grepRipgrep(context: ToolContext, target: SearchTarget, options: GrepOptions, syntax: GrepOptions['syntax']): Promise<GrepResult | undefined> {
  const ripgrep = context.searchIndexes?.ripgrep;
  if (!ripgrep || target.revision !== 'HEAD' || target.repo.bare) return undefined;
  if (syntax === 'perl' && context.pcre.available === undefined) await probePcre(context, target);
  if (syntax === 'perl' && context.pcre.available !== true) syntax = 'extended';
  const pattern = ripgrepPattern(options.patterns, syntax, options.caseSensitive, options.wholeWord ?? false);
  if (!pattern) return undefined;
  return ripgrep.grep(
    target,
    {
      pattern,
      pathspecs: options.pathspecs ?? [],
      ...(options.files ? { files: options.files } : {}),
      linesPerFile: options.linesPerFile ?? DEFAULT_LINES_PER_FILE,
      maxOutputBytes: options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    },
    context.signal,
  );
}

/**
 * Learns whether git has PCRE without searching anything: `git grep -P` over the empty tree fails
 * at once without it and finds nothing with it. Inconclusive answers leave it unknown.
 */
async function probePcre(context: ToolContext, target: SearchTarget): Promise<void> {
  const emptyTree =
    target.commit.length === 64 ? '6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321' : '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
  try {
    const result = await git(context, target.repo, ['grep', '-q', '-P', '-e', 'x', emptyTree, '--'], { okExitCodes: [1] });
    if (result.exitCode === 1) context.pcre.available = true;
  } catch (error) {
    if (error instanceof GitError && /USE_LIBPCRE|Perl-compatible|not compiled with/i.test(error.stderr)) context.pcre.available = false;
  }
}

/**
 * git grep over the target; exact files (`options.files`) as literal pathspecs, as many runs as
 * their names need command lines, one after another, git's output cap shared as one run's would be.
 */
async function runGrep(context: ToolContext, target: SearchTarget, options: GrepOptions, syntax: GrepOptions['syntax']): Promise<GrepResult> {
  if (!options.files) return (await runGrepOnce(context, target, options, syntax, options.pathspecs ?? [])).result;
  if (options.files.length > MAX_LITERAL_PATHSPECS && options.linesPerFile === 0) {
    // git matches every path against every pathspec: past a few thousand, counting the whole tree
    // and keeping the files named is quicker, and the counts are the same.
    const named = new Set(options.files);
    const { result } = await runGrepOnce(context, target, { ...options, files: undefined }, syntax, []);
    const counts = new Map<string, number>();
    await forEachInTurns(result.counts.entries(), ([path, count]) => {
      if (named.has(path)) counts.set(path, count);
    });
    return { files: new Map(), counts, truncated: result.truncated };
  }
  const counts = new Map<string, number>();
  const merged: GrepResult = { files: new Map(), counts, truncated: false };
  let room = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const specs = options.files.map((file) => `:(literal)${file}`);
  const slices = argumentSlices(specs, (spec) => Buffer.byteLength(spec));
  for (const [at, slice] of slices.entries()) {
    const { result, outputBytes } = await runGrepOnce(context, target, { ...options, maxOutputBytes: room }, syntax, slice);
    for (const [path, lines] of result.files) merged.files.set(path, lines);
    for (const [path, count] of result.counts.entries()) counts.set(path, count);
    room -= outputBytes;
    // A cap used up with files still to search may have cut them off, as it would git's one run.
    if (result.truncated || (room <= 0 && at < slices.length - 1)) {
      merged.truncated = true;
      break;
    }
  }
  return merged;
}

async function runGrepOnce(
  context: ToolContext,
  target: SearchTarget,
  options: GrepOptions,
  syntax: GrepOptions['syntax'],
  pathspecs: readonly string[],
): Promise<{ result: GrepResult; outputBytes: number }> {
  const flag = syntax === 'fixed' ? '-F' : syntax === 'perl' ? '-P' : '-E';
  const keep = options.linesPerFile ?? DEFAULT_LINES_PER_FILE;
  const counting = keep === 0;
  const args = ['grep', '-I', counting ? '-c' : '-n', '--null', '--no-color', flag];
  if (!options.caseSensitive) args.push('-i');
  if (options.wholeWord) args.push('-w');
  if (options.files?.length === 0) return { result: { files: new Map(), counts: new Map(), truncated: false }, outputBytes: 0 };
  for (const pattern of options.patterns) args.push('-e', pattern);
  args.push(target.commit, '--', ...pathspecs);
  const result = await git(context, target.repo, args, {
    okExitCodes: [0, 1],
    maxOutputBytes: counting ? COUNTS_MAX_OUTPUT_BYTES : (options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES),
    onOutputLimit: 'truncate',
    timeoutMs: 15_000,
  });
  const outputBytes = counting ? 0 : Buffer.byteLength(result.stdout);
  if (syntax === 'perl') context.pcre.available = true;
  const files = new Map<string, GrepLine[]>();
  const counts = new Map<string, number>();
  const prefix = `${target.commit}:`;
  const pathOf = (name: string): string => (name.startsWith(prefix) ? name.slice(prefix.length) : name);
  if (counting) {
    // "<commit>:<path>\0<count>\n" per file with a match; a record cut by the cap is not read.
    const records = result.stdout.split('\n');
    if (result.truncated) records.pop();
    await forEachInTurns(records, (record) => {
      const nameEnd = record.indexOf('\0');
      const count = Number(record.slice(nameEnd + 1));
      if (nameEnd >= 0 && Number.isInteger(count) && count > 0) counts.set(pathOf(record.slice(0, nameEnd)), count);
    });
    return { result: { files, counts, truncated: result.truncated }, outputBytes };
  }
  await forEachInTurns(result.stdout.split('\n'), (record) => {
    const nameEnd = record.indexOf('\0');
    const numberEnd = record.indexOf('\0', nameEnd + 1);
    if (nameEnd < 0 || numberEnd < 0) return;
    const path = pathOf(record.slice(0, nameEnd));
    const line = Number(record.slice(nameEnd + 1, numberEnd));
    if (!Number.isInteger(line)) return;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    let lines = files.get(path);
    if (!lines) {
      lines = [];
      files.set(path, lines);
    }
    if (lines.length < keep) lines.push({ line, text: record.slice(numberEnd + 1) });
  });
  return { result: { files, counts, truncated: result.truncated }, outputBytes };
}

/** Commits' tree listings the engine keeps at most. */
const LISTINGS_KEPT = 4;

/**
 * Every file path of the tree (up to `max`), for queries that can match files without a term; kept
 * in the engine's caches (repoCaches.ts `listings`), so searches that ask at once share one read.
 */
export function listTree(context: ToolContext, target: SearchTarget, max = 50_000): Promise<TreeListing> {
  const key = `${target.repo.dir}\0${target.commit}\0${max}`;
  // Read for whoever asks (within git's own time limit), not cancelled with the request that asked first.
  return keptPromise(context.caches.listings, key, LISTINGS_KEPT, () => readTree({ ...context, signal: new AbortController().signal }, target, max));
}

async function readTree(context: ToolContext, target: SearchTarget, max: number): Promise<TreeListing> {
  const result = await git(context, target.repo, ['ls-tree', '-r', '-z', '--long', target.commit], {
    maxOutputBytes: 16 * 1024 * 1024,
    onOutputLimit: 'truncate',
  });
  const paths: string[] = [];
  const sizes = new Map<string, number>();
  for (const record of result.stdout.split('\0')) {
    const match = /^\d{6} blob [0-9a-f]{40,64} +(\d+)\t([\s\S]+)$/.exec(record);
    if (!match?.[2]) continue;
    if (paths.length >= max) return { paths, sizes, truncated: true };
    paths.push(match[2]);
    sizes.set(match[2], Number(match[1]));
  }
  return { paths, sizes, truncated: result.truncated };
}
