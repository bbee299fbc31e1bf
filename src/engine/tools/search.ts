/**
 * `sg_keyword_search`: exact search of the served repositories' committed files. Each term, phrase
 * or /regex/ is grepped once per repository; AND, OR and NOT then combine at the level of files
 * (as code search does), filters narrow, and the best files come back as numbered chunks.
 */
import { bestChunks, chunksFromLines, readBlobsAtOnce, readTargetText, renderBlocks, splitLines, type FileBlock } from '../repo/blocks';
import { plural, ToolError, type ToolContext, type ToolOutput } from '../repo/context';
import { DEFAULT_LINES_PER_FILE, grepTarget, listTree, type FileCounts, type GrepLine, type GrepOptions, type SearchTarget } from '../repo/grep';
import { evaluate, parseQuery, positivePatterns, requiredPatterns, type ParsedQuery, type PatternNode, type QueryNode } from '../search/query';
import { checkFilters, evaluateKnown, filterVerdicts, matchesWithoutPatterns, selectTargets } from '../repo/targets';
import { echo } from '../http/echo';
import { keptPromise } from '../runtime/keptPromises';
import { forEachInTurns } from '../runtime/inTurns';
import { escapeRegExp } from '../repo/paths';
import { lineMatcher, type LineMatcher } from '../search/grepPatterns';
import { testEach, type RegexWorker } from '../search/regex';
import { ALLOWED_LISTS_KEPT } from '../repo/repoCaches';
import { BestOf } from '../search/bestOf';

const DEFAULT_FILES = 15;
const MAX_FILES = 100;
const CHUNKS_PER_FILE = 3;
const BLOB_READ_MAX = 1024 * 1024;
/** Files read at once for the blocks shown (each may be a git process until the index is ready). */
const BLOCKS_AT_ONCE = 8;

interface FileHit extends Ranked {
  /** The positive patterns (ids) the file matches. */
  patterns: number[];
  /** Lines matched per positive pattern id: filled for the files shown. */
  lines: Map<number, GrepLine[]>;
  /** The file's bytes, when they were read to find its lines (files shown that the index does not hold). */
  bytes?: Buffer;
  hits: number;
}

export async function keywordSearch(context: ToolContext, args: { query: string }): Promise<ToolOutput<{ blocks: FileBlock[] }>> {
  const query = parseQuery(args.query, context.toolName);
  if (!query.root) throw new ToolError('The query is empty: give at least one term, such as parseConfig, or a filter such as file:README.');
  checkFilters(query);
  const notes: string[] = [];
  const targets = await selectTargets(context, query, notes);
  const wanted = Math.min(query.count ?? DEFAULT_FILES, MAX_FILES);
  if ((query.count ?? 0) > MAX_FILES) notes.push(`count is capped at ${MAX_FILES} files.`);
  const positive = positivePatterns(query.root);
  // The repositories are searched at once (each index in its own worker), their notes kept in order.
  const searched = await Promise.all(
    targets.map(async (target) => {
      const targetNotes: string[] = [];
      return { ...(await searchTarget(context, target, query, positive, wanted, targetNotes)), notes: targetNotes };
    }),
  );
  const matching = searched.reduce((sum, found) => sum + found.total, 0);
  const complete = searched.every((found) => found.complete);
  for (const found of searched) notes.push(...found.notes);
  const shown = searched
    .flatMap((found) => found.best)
    .sort(bestFirst)
    .slice(0, wanted);
  await readMatchedLines(context, query, shown);
  const blocks = await mapInOrder(shown, BLOCKS_AT_ONCE, (hit) => blockFor(context, hit));
  if (matching > shown.length)
    notes.push(
      `${matching - shown.length} more matching files are not shown: narrow the query with repo: or file: filters, or raise count: (up to ${MAX_FILES}).`,
    );
  const best = matching > shown.length ? `; the best ${shown.length} are shown` : '';
  // A search cut at its output cap never claims a count (or an absence) it did not establish.
  const heading = complete
    ? matching === 0
      ? `No file matches ${echo(args.query)}. Try fewer terms, OR between alternatives, or ${context.toolName('nls_search')} for a broader search.`
      : `${plural(matching, 'file')} ${matching === 1 ? 'matches' : 'match'} ${echo(args.query)}${best}:`
    : matching === 0
      ? `No file matched ${echo(args.query)} before the search stopped at its output cap (a term matches too much): add file: or repo: filters, or rarer terms.`
      : `${plural(matching, 'file')} found for ${echo(args.query)} before the search stopped at its output cap, so more may match${best}:`;
  return { text: blocks.length > 0 ? `${heading}\n\n${renderBlocks(blocks)}` : heading, structured: { blocks }, notes };
}

/** Best score first; equal scores by repository, then path. */
function bestFirst(a: Ranked, b: Ranked): number {
  return b.score - a.score || a.target.repo.name.localeCompare(b.target.repo.name) || a.path.localeCompare(b.path);
}

interface Ranked {
  target: SearchTarget;
  path: string;
  score: number;
}

/**
 * How many files of the target match the query, and the best `wanted` of them, scored by their
 * counts: the others are counted, not kept (a common term matches most of a large tree). The
 * lines of the files shown are read afterwards, for those files only.
 */
async function searchTarget(
  context: ToolContext,
  target: SearchTarget,
  query: ParsedQuery,
  positive: readonly PatternNode[],
  wanted: number,
  notes: string[],
): Promise<{ best: FileHit[]; total: number; complete: boolean }> {
  const counts = new Map<number, FileCounts>();
  let complete = true;
  // Only a file holding every required pattern can match: each pattern after the first required
  // one is searched in the files that hold all those searched before (the counts of the others
  // would never be looked at), the required ones first.
  const required = requiredPatterns(query.root);
  const ordered = [...query.patterns].sort((a, b) => Number(required.has(b.id)) - Number(required.has(a.id)));
  let candidates = await filesTheFiltersAllow(context, target, query);
  // The files holding every required pattern, once one was searched: no other file can match.
  let holdingRequired: string[] | undefined;
  for (const pattern of ordered) {
    if (candidates?.length === 0) {
      counts.set(pattern.id, new Map());
      continue;
    }
    const result = await grepTarget(context, target, { ...grepOptionsOf(query, pattern), linesPerFile: 0, ...(candidates ? { files: candidates } : {}) });
    if (result.truncated) {
      complete = false;
      notes.push(`${echo(pattern.value)} matches too much in ${target.repo.name}; not every match was considered.`);
    }
    counts.set(pattern.id, result.counts);
    if (required.has(pattern.id) && !result.truncated) candidates = holdingRequired = [...result.counts.keys()];
  }
  let paths: readonly string[];
  if (holdingRequired) {
    paths = holdingRequired;
  } else {
    const mayMatch = await filesThatMayMatch(context, target, query, counts, notes);
    paths = mayMatch.paths;
    complete &&= mayMatch.complete;
  }
  const verdicts = await filterVerdicts(context.regex, query, target.repo.name, paths);
  const best = new BestOf<Ranked>(wanted, bestFirst);
  const scorer = new Scorer(positive, counts);
  let total = 0;
  await forEachInTurns(paths, (path, index) => {
    const matches = evaluate(query.root, (leaf) =>
      leaf.kind === 'pattern' ? (counts.get(leaf.id)?.has(path) ?? false) : (verdicts.get(leaf.id)?.(index) ?? false),
    );
    if (!matches) return;
    total++;
    best.offer({ target, path, score: scorer.score(path) });
  });
  return { best: best.items().map(({ path, score }) => ({ target, path, score, lines: new Map(), ...scorer.matched(path) })), total, complete };
}

/**
 * The files that may match when no required pattern narrowed them: those holding any pattern,
 * and every file of the tree when a file without one can match (e.g. `NOT foo`).
 */
async function filesThatMayMatch(
  context: ToolContext,
  target: SearchTarget,
  query: ParsedQuery,
  counts: ReadonlyMap<number, FileCounts>,
  notes: string[],
): Promise<{ paths: string[]; complete: boolean }> {
  const universe = new Set<string>();
  for (const files of counts.values()) await forEachInTurns(files.keys(), (path) => universe.add(path));
  if (!matchesWithoutPatterns(query)) return { paths: [...universe], complete: true };
  const tree = await listTree(context, target);
  if (tree.truncated) notes.push(`${target.repo.name} has too many files; only the first ${tree.paths.length} were considered.`);
  await forEachInTurns(tree.paths, (path) => universe.add(path));
  return { paths: [...universe], complete: !tree.truncated };
}

/**
 * A matching file's score: ten per positive pattern it holds, its matching lines (up to 25), five
 * per plain term in its name, less a little per folder deep. Scoring allocates nothing: it runs
 * for every matching file, which may be most of a large tree.
 */
class Scorer {
  private readonly patterns: ReadonlyArray<{ id: number; counts: FileCounts | undefined; inName: RegExp | undefined }>;

  constructor(positive: readonly PatternNode[], counts: ReadonlyMap<number, FileCounts>) {
    this.patterns = positive.map((pattern) => ({
      id: pattern.id,
      counts: counts.get(pattern.id),
      // The term within the last path segment (after the last slash), in any case.
      inName: pattern.regex || pattern.value.includes('/') ? undefined : new RegExp(`${escapeRegExp(pattern.value)}(?=[^/]*$)`, 'i'),
    }));
  }

  score(path: string): number {
    let held = 0;
    let hits = 0;
    let bonus = 0;
    for (const pattern of this.patterns) {
      const count = pattern.counts?.get(path);
      if (count === undefined) continue;
      held++;
      hits += count;
      if (pattern.inName?.test(path)) bonus += 5;
    }
    let depth = 1;
    for (let at = path.indexOf('/'); at !== -1; at = path.indexOf('/', at + 1)) depth++;
    return held * 10 + Math.min(hits, 25) + bonus - depth * 0.1;
  }

  /** The positive patterns (ids) the file holds, and its matching lines in all. */
  matched(path: string): { patterns: number[]; hits: number } {
    const patterns: number[] = [];
    let hits = 0;
    for (const pattern of this.patterns) {
      const count = pattern.counts?.get(path);
      if (count === undefined) continue;
      patterns.push(pattern.id);
      hits += count;
    }
    return { patterns, hits };
  }
}

/**
 * The files the query's `file:` and `lang:` filters leave possible, so that the search reads those
 * only (and its output cap counts them only): a file whose filters make the query false cannot
 * match, whatever its terms (three-valued, so OR and NOT are honoured). Undefined when there is no
 * such filter, or when the tree is too large to list. Kept for the last few commits and filters
 * (one list, the same array each time, which the index also keeps its selection of).
 */
function filesTheFiltersAllow(context: ToolContext, target: SearchTarget, query: ParsedQuery): Promise<string[] | undefined> {
  if (!query.filters.some((filter) => filter.field !== 'repo')) return Promise.resolve(undefined);
  const key = `${target.repo.dir}\0${target.commit}\0${target.repo.name}\0${filterShape(query.root)}`;
  return keptPromise(context.caches.allowedLists, key, ALLOWED_LISTS_KEPT, () => listAllowed(context, target, query));
}

async function listAllowed(context: ToolContext, target: SearchTarget, query: ParsedQuery): Promise<string[] | undefined> {
  const tree = await listTree(context, target);
  if (tree.truncated) return undefined;
  const verdicts = await filterVerdicts(context.regex, query, target.repo.name, tree.paths);
  return tree.paths.filter(
    (_, index) => evaluateKnown(query.root, (leaf) => (leaf.kind === 'filter' ? (verdicts.get(leaf.id)?.(index) ?? false) : undefined)) !== false,
  );
}

/** What the filters' verdict depends on: the query's shape, its filters, not its terms. */
function filterShape(node: QueryNode | undefined): string {
  if (!node) return '';
  switch (node.kind) {
    case 'pattern':
      return '?';
    case 'filter':
      return `${node.field}:${JSON.stringify(node.value)}`;
    case 'not':
      return `not(${filterShape(node.child)})`;
    default:
      return `${node.kind}(${node.children.map(filterShape).join(',')})`;
  }
}

function grepOptionsOf(query: ParsedQuery, pattern: PatternNode): GrepOptions {
  return {
    patterns: [pattern.value],
    syntax: pattern.regex ? 'perl' : 'fixed',
    caseSensitive: query.caseSensitive,
    what: pattern.regex ? `The regular expression /${pattern.value}/` : `The term ${echo(pattern.value)}`,
  };
}

/**
 * The matched lines of the files shown, per repository and pattern, reading those files only: the
 * index's worker finds them in the files it holds; the others are read at once (readBlobsAtOnce)
 * and their lines found here: a fixed string on this thread, another pattern in the
 * regular-expression worker (regex.ts). A pattern that cannot be run there is grepped in those
 * files instead.
 */
async function readMatchedLines(context: ToolContext, query: ParsedQuery, shown: readonly FileHit[]): Promise<void> {
  const byTarget = new Map<SearchTarget, FileHit[]>();
  for (const hit of shown) byTarget.set(hit.target, [...(byTarget.get(hit.target) ?? []), hit]);
  for (const [target, hits] of byTarget) {
    const index = context.searchIndexes?.lookup(target, false);
    const toRead = hits.filter((hit) => !index?.holds(hit.path));
    if (toRead.length > 0) {
      const blobs = await readBlobsAtOnce(
        context,
        target,
        toRead.map((hit) => hit.path),
        BLOB_READ_MAX,
      );
      for (const hit of toRead) hit.bytes = blobs.get(hit.path);
    }
    for (const pattern of query.patterns) {
      const matching = hits.filter((hit) => hit.patterns.includes(pattern.id));
      const grepped: FileHit[] = [];
      const options = grepOptionsOf(query, pattern);
      const matcher = lineMatcher(options.patterns, options.syntax, options.caseSensitive, false);
      for (const hit of matching) {
        const found = hit.bytes && matcher ? await linesOf(context.regex, matcher, hit.bytes, options.what, options.syntax === 'fixed') : undefined;
        if (found) hit.lines.set(pattern.id, found);
        else grepped.push(hit);
      }
      if (grepped.length === 0) continue;
      const result = await grepTarget(context, target, { ...options, files: grepped.map((hit) => hit.path) });
      for (const hit of grepped) {
        const lines = result.files.get(hit.path);
        if (lines) hit.lines.set(pattern.id, lines);
      }
    }
  }
}

/**
 * The lines of `bytes` the matcher finds (git grep's numbers, text UTF-8 decoded as its output is),
 * the first DEFAULT_LINES_PER_FILE of them; undefined when the pattern could not be run in time
 * (git grep then answers, with its own limits). Fixed strings (`fixed`: escaped literals, which
 * match in linear time) run here; other regular expressions in the worker, bounded in time.
 */
async function linesOf(regex: RegexWorker, matcher: LineMatcher, bytes: Buffer, what: string, fixed: boolean): Promise<GrepLine[] | undefined> {
  const lines = bytes.toString('latin1').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let matches: (line: string, at: number) => boolean;
  if (matcher.kind === 'literal') {
    const needle = matcher.needle;
    matches = (line) => line.includes(needle);
  } else if (fixed) {
    const regex = new RegExp(matcher.source, matcher.flags.replace('g', ''));
    matches = (line) => regex.test(line);
  } else {
    try {
      const tested = await testEach(regex, matcher.source, matcher.flags.replace('g', ''), lines, what);
      matches = (_, at) => tested[at] === true;
    } catch {
      return undefined;
    }
  }
  const found: GrepLine[] = [];
  for (let at = 0; at < lines.length && found.length < DEFAULT_LINES_PER_FILE; at++) {
    const line = lines[at] ?? '';
    if (matches(line, at)) found.push({ line: at + 1, text: Buffer.from(line, 'latin1').toString('utf8') });
  }
  return found;
}

/** The file's block: chunks around the lines that match the most patterns, with a line of context. */
async function blockFor(context: ToolContext, hit: FileHit): Promise<FileBlock> {
  const block: FileBlock = { type: 'file', repo: hit.target.repo.name, file: hit.path, rev: hit.target.revision, chunks: [] };
  if (hit.lines.size === 0) return block;
  const scores = new Map<number, number>();
  const matched = new Map<number, string>();
  for (const lines of hit.lines.values()) {
    for (const entry of lines) {
      scores.set(entry.line, (scores.get(entry.line) ?? 0) + 10);
      matched.set(entry.line, entry.text);
    }
  }
  const blob = hit.bytes
    ? { text: hit.bytes.toString('utf8'), truncated: false }
    : await readTargetText(context, hit.target, hit.path, BLOB_READ_MAX).catch(() => undefined);
  if (!blob || blob.truncated) {
    block.chunks = chunksFromLines(
      [...matched.entries()].map(([line, text]) => ({ line, text })),
      CHUNKS_PER_FILE,
    );
  } else {
    block.chunks = bestChunks(splitLines(blob.text), scores, 1, CHUNKS_PER_FILE);
  }
  return block;
}

/** `run` over the items, at most `limit` at a time, results in the items' order. */
async function mapInOrder<T, R>(items: readonly T[], limit: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await run(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
