/**
 * The files of a search that hold a query's terms, scored with BM25 (stems and whole identifiers, the
 * path a bonus): counted and scored in a repository's search index when it is ready, by git grep (or
 * ripgrep) otherwise. The first stage of natural-language search and of answers (`repo/retrieval.ts`
 * reads the best of them and ranks their definitions).
 */
import type { ToolContext } from './context';
import { grepTarget, listTree, type FileCounts, type SearchTarget, type TreeListing } from './grep';
import type { SearchIndex } from '../search/searchIndex';
import { evaluate, type FilterNode, type ParsedQuery } from '../search/query';
import { bm25, candidateTerms, type CorpusStats, type Document, type SearchTermSpec } from '../search/ranking';
import { evaluateKnown, filterVerdicts, selectTargets } from './targets';
import { ToolError } from '../messages/toolError';
import type { RegexWorker } from '../search/regex';
import { echo } from '../http/echo';

/** A file that holds some of the terms, with its BM25 score. */
export interface RankedFile {
  target: SearchTarget;
  document: Document;
  score: number;
}

/** The best files holding the terms, best first, with the corpus figures their scores came from. */
export interface RankedFiles {
  /** At most `RankOptions.limit`. */
  files: RankedFile[];
  /** Files that hold some of the terms (and pass the filters), counted exactly. */
  total: number;
  stats: CorpusStats;
  notes: string[];
}

export interface RankOptions {
  /** How many of the best files are wanted. */
  limit: number;
  /**
   * For work that may wait (an answer): when a repository's search index is being built, wait for
   * it (at most `maxWaitMs`) instead of grepping the whole tree per term meanwhile; `waiting` is
   * told which repositories it waits for.
   */
  waitForIndexes?: { maxWaitMs: number; waiting(repositories: string[]): Promise<void> };
}

/**
 * The files of the query's repositories (and files, by its filters) that hold any of the terms,
 * scored with BM25: the one ranking behind natural-language search and the answerer's search. A
 * repository with a ready search index is counted and scored in the index's worker (exact counts,
 * no work on the engine's thread per file); the others by git grep (or ripgrep) here.
 */
export async function rankFiles(context: ToolContext, query: ParsedQuery, terms: readonly SearchTermSpec[], options: RankOptions): Promise<RankedFiles> {
  const notes: string[] = [];
  const targets = await selectTargets(context, query, notes);
  if (options.waitForIndexes) await waitForIndexes(context, targets, options.waitForIndexes);
  const stats: CorpusStats = { documentCount: 0, averageLength: 0, documentFrequency: new Map() };
  const addFrequency = (term: string, files: number): void => void stats.documentFrequency.set(term, (stats.documentFrequency.get(term) ?? 0) + files);
  let totalLength = 0;
  const scored: RankedFile[] = [];
  const indexed: Array<{ target: SearchTarget; index: SearchIndex; selecting: number[] }> = [];
  for (const target of targets) {
    const tree = await listTree(context, target);
    stats.documentCount += tree.paths.length;
    for (const size of tree.sizes.values()) totalLength += size;
    const common = Math.max(50, tree.paths.length * COMMON_TERM_SHARE);
    const index = context.searchIndexes?.lookup(target, false);
    const inIndex = await index?.termFiles(
      terms.map((term) => term.text),
      context.signal,
    );
    // Files past the index budget (or the whole tree, without an index) are counted here.
    const counted =
      index && inIndex && index.unread.length === 0 ? undefined : await countTerms(context, target, terms, notes, index && inIndex ? index.unread : undefined);
    const fileCounts = terms.map((_, at) => (inIndex?.[at] ?? 0) + (counted?.[at]?.size ?? 0));
    terms.forEach((term, at) => addFrequency(term.text, fileCounts[at] ?? 0));
    const selecting = candidateTerms(fileCounts, common);
    if (index && inIndex) indexed.push({ target, index, selecting });
    if (!counted) continue;
    const documents = documentsOf(target, terms, counted, selecting, tree);
    const paths = [...documents.keys()];
    const verdicts = await filterVerdicts(context.regex, query, target.repo.name, paths);
    paths.forEach((path, index) => {
      const document = documents.get(path);
      if (!document || !passesFilters(query, (filter) => verdicts.get(filter.id)?.(index) ?? false)) return;
      scored.push({ target, document, score: 0 });
    });
  }
  stats.averageLength = stats.documentCount > 0 ? totalLength / stats.documentCount : 1;
  for (const file of scored) file.score = bm25(file.document, terms, stats);
  let total = scored.length;
  for (const { target, index, selecting } of indexed) {
    const ranked = await index.rank(
      {
        terms: terms.map(({ text, weight }) => ({ text, weight })),
        documentFrequencies: terms.map((term) => stats.documentFrequency.get(term.text) ?? 0),
        documentCount: stats.documentCount,
        averageLength: stats.averageLength,
        allowed: await allowedByFilters(context.regex, query, target, index.paths),
        selecting,
        limit: options.limit,
        keyPrefix: `${target.repo.name}\0`,
      },
      context.signal,
    );
    if (!ranked) throw new ToolError(`The search index of ${target.repo.name} stopped while ranking: try again (the next search uses git grep).`);
    total += ranked.total;
    for (const { path, length, score, termFrequencies } of ranked.best) {
      scored.push({ target, score, document: { key: `${target.repo.name}\0${path}`, path, length, termFrequencies } });
    }
  }
  scored.sort((a, b) => b.score - a.score || a.document.key.localeCompare(b.document.key));
  return { files: scored.slice(0, options.limit), total, stats, notes };
}

/** Which of an index's files the query's filters allow (1), or null when it has none. */
export async function allowedByFilters(regex: RegexWorker, query: ParsedQuery, target: SearchTarget, paths: readonly string[]): Promise<Uint8Array | null> {
  if (query.filters.length === 0) return null;
  const verdicts = await filterVerdicts(regex, query, target.repo.name, paths);
  const allowed = new Uint8Array(paths.length);
  for (let index = 0; index < paths.length; index++) {
    if (passesFilters(query, (filter) => verdicts.get(filter.id)?.(index) ?? false)) allowed[index] = 1;
  }
  return allowed;
}

async function waitForIndexes(context: ToolContext, targets: readonly SearchTarget[], wait: NonNullable<RankOptions['waitForIndexes']>): Promise<void> {
  const indexes = context.searchIndexes;
  if (!indexes) return;
  // Starts the builds that have not started (a lookup of HEAD does).
  const pending = targets.filter((target) => !indexes.lookup(target) && indexes.isBuilding(target));
  if (pending.length === 0) return;
  await wait.waiting(pending.map((target) => target.repo.name));
  await Promise.all(pending.map((target) => indexes.whenReady(target, context.signal, wait.maxWaitMs)));
}

/**
 * A term in more than this share of a tree's files (as common words are in prose and code) scores
 * too little to make a file a candidate by itself: files become candidates through the rarer terms.
 */
const COMMON_TERM_SHARE = 0.1;

/** Matching lines per file of each term in the target (or in `files` only), counted exactly. */
async function countTerms(
  context: ToolContext,
  target: SearchTarget,
  terms: readonly SearchTermSpec[],
  notes: string[],
  files?: readonly string[],
): Promise<Array<FileCounts>> {
  const counts: Array<FileCounts> = [];
  for (const term of terms) {
    const result = await grepTarget(context, target, {
      patterns: [term.text],
      syntax: 'fixed',
      caseSensitive: false,
      linesPerFile: 0,
      what: `The term ${echo(term.text)}`,
      ...(files ? { files } : {}),
    });
    if (result.truncated) notes.push(`"${term.text}" matches too much in ${target.repo.name}; not every file was counted.`);
    counts.push(result.counts);
  }
  return counts;
}

/** The candidates among the counted files (those holding a `selecting` term), with their counts per term. */
function documentsOf(
  target: SearchTarget,
  terms: readonly SearchTermSpec[],
  counts: ReadonlyArray<FileCounts>,
  selecting: readonly number[],
  tree: TreeListing,
): Map<string, Document> {
  const documents = new Map<string, Document>();
  for (const selected of selecting) {
    for (const path of counts[selected]?.keys() ?? []) {
      if (documents.has(path)) continue;
      const termFrequencies = new Map<string, number>();
      terms.forEach((term, at) => {
        const count = counts[at]?.get(path);
        if (count) termFrequencies.set(term.text, count);
      });
      documents.set(path, { key: `${target.repo.name}\0${path}`, path, length: tree.sizes.get(path) ?? 0, termFrequencies });
    }
  }
  return documents;
}

/** Patterns do not restrict natural-language search (any term may match); its filters do. */
function passesFilters(query: ParsedQuery, holds: (filter: FilterNode) => boolean): boolean {
  const verdict = evaluateKnown(query.root, (leaf) => (leaf.kind === 'filter' ? holds(leaf) : undefined));
  if (verdict !== undefined) return verdict;
  return evaluate(query.root, (leaf) => (leaf.kind === 'filter' ? holds(leaf) : true));
}
