/**
 * Finds the code that answers a question, with the stack natural-language search uses: BM25 over the
 * question's terms picks candidate files (the index's, or git grep's), what each file is comes from
 * the repository's git attributes, its path and its text (`code/fileKinds.ts`), its definitions from
 * the parser (`code/definitions.ts`), and the spans are ranked by name, body, proximity, file score
 * and kind (`spanRanking.ts`).
 */
import { fileKind, KIND_WEIGHT, kindOfPath, type FileKind, type LinguistAttributes } from '../code/fileKinds';
import { isAttributesFile, linguistAttributes } from '../code/gitAttributes';
import { findDefinitions, type Definition } from '../code/definitions';
import { MAX_FILE_BYTES as SYMBOL_FILE_BYTES, type SymbolSource, type SymbolTable } from '../code/symbolTable';
import { keptPromise } from '../runtime/keptPromises';
import { parseQuery, type ParsedQuery } from '../search/query';
import type { CorpusStats } from '../search/ranking';
import type { SearchTarget } from '../search/grepResult';
import { readBlobsAtOnce, readTargetText, splitLines } from './blocks';
import type { ToolContext } from './context';
import { listTree } from './grep';
import { allowedByFilters, rankFiles, type RankOptions } from './fileRanking';
import { orderCandidates } from './candidateOrder';
import { wordsOfFile } from './definitionText';
import { ATTRIBUTES_KEPT, DEFINITIONS_KEPT } from './repoCaches';
import { withFramingNames, type QuestionAnalysis } from './question';
import { rankSpans, scoreName, SHORT_TERM, type CandidateFile, type ScoredSpan, type TermWeights } from './spanRanking';

/** A candidate file with where it came from. */
export interface ReadFile extends CandidateFile {
  target: SearchTarget;
}

export type AnswerSpan = ScoredSpan<ReadFile>;

export interface Retrieved {
  /** Ranked spans, best first (at most a few per file): the definitions ranking fused with BM25 over the source files. */
  spans: AnswerSpan[];
  /** Whether every ranking put the first file first (the lead is clearly ahead). */
  unanimous: boolean;
  /** Every file read, by ranking order of the search. */
  files: ReadFile[];
  /** Files holding some of the terms. */
  total: number;
  stats: CorpusStats;
  weights: TermWeights;
  notes: string[];
  /** Characters of the files read. */
  charsRead: number;
}

export interface RetrieveOptions {
  /** The search's filters (repo:, file:, rev:); default: every repository at HEAD. */
  query?: ParsedQuery;
  /** Candidates read and parsed, the best by BM25 weighed by what their paths say they are. Default 16. */
  filesRead?: number;
  /**
   * Wait (a few seconds at most) for a symbol table being built: an answer may; a search shown as
   * the user types may not (it uses the tables that are ready).
   */
  waitForSymbols?: boolean;
  waitForIndexes?: RankOptions['waitForIndexes'];
  /** Told which files are about to be read (a turn of the answer). */
  reading?(files: ReadonlyArray<{ path: string; repo: string }>): Promise<void>;
}

/** BM25 candidates asked of the search. */
const CANDIDATES = 60;
/** Candidates read and parsed by default: the best by BM25 weighed by what their path says they are. */
const FILES_READ = 16;
/** The same for a description: its words are spread over more files. */
const DESCRIPTION_FILES_READ = 24;
const MAX_FILE_BYTES = 1024 * 1024;
const SPANS_PER_FILE = 6;

export async function retrieve(context: ToolContext, asked: QuestionAnalysis, options: RetrieveOptions): Promise<Retrieved> {
  let question = asked;
  const ranked = await rankFiles(context, options.query ?? parseQuery('', context.toolName), question.terms, {
    limit: CANDIDATES,
    ...(options.waitForIndexes ? { waitForIndexes: options.waitForIndexes } : {}),
  });
  const weights = termWeights(question, ranked.stats);
  const prior = ranked.files
    .map((file) => ({ file, kind: kindOfPath(file.document.path) }))
    .sort((a, b) => b.file.score * KIND_WEIGHT[b.kind] - a.file.score * KIND_WEIGHT[a.kind]);
  const files: ReadFile[] = [];
  let charsRead = 0;
  const weightsTotal = [...weights.values()].reduce((sum, weight) => sum + weight, 0) || 1;
  const toRead: Array<{ target: SearchTarget; path: string; score: number }> = prior
    .slice(0, options.filesRead ?? (question.kind === 'description' ? DESCRIPTION_FILES_READ : FILES_READ))
    .map(({ file }) => ({ target: file.target, path: file.document.path, score: file.score }));
  // Definitions named for the question, wherever they are: their files are read too.
  const scores = new Map(ranked.files.map((file) => [`${file.target.repo.dir}\0${file.document.path}`, file.score]));
  const tables = await symbolTablesOf(
    context,
    ranked.files.map((file) => file.target),
    options.waitForSymbols === true,
  );
  // A word of a request that names definitions of the repository ("I need the lookup that") is a name after all.
  question = withFramingNames(question, (word) => tables.some(({ table }) => (table?.named(word).length ?? 0) > 0));
  const named = namedElsewhere(question, weights, weightsTotal, tables, toRead);
  for (const found of await withinFilters(context, options.query, named)) {
    toRead.push({ ...found, score: scores.get(`${found.target.repo.dir}\0${found.path}`) ?? 0 });
  }
  if (toRead.length > 0) await options.reading?.(toRead.map((file) => ({ path: file.path, repo: file.target.repo.name })));
  for (const file of toRead) {
    context.signal.throwIfAborted();
    const blob = await readTargetText(context, file.target, file.path, MAX_FILE_BYTES).catch((error: unknown) => {
      if (context.signal.aborted) throw error;
      return undefined;
    });
    if (!blob || blob.binary) continue;
    charsRead += blob.text.length;
    const lines = splitLines(blob.text);
    if (blob.truncated) lines.pop();
    const kind = await kindOf(context, file.target, file.path, lines);
    const definitions = await definitionsOf(context, file.target, file.path, blob.text);
    files.push({ target: file.target, path: file.path, kind, lines, definitions, fileScore: file.score });
  }
  const perFile = new Map<ReadFile, number>();
  // Fused with BM25 over the files read (their `fileScore`): the floor under the definitions ranking.
  // A description's words weigh by their rarity across each repository's definitions (its symbol table's counts).
  const rarities = new Map(tables.flatMap(({ target, table }) => (table?.words ? [[target.repo, table.words] as const] : [])));
  const ordered = orderCandidates(await rankSpans(files, question, weights), question, (file) =>
    file.target.revision === 'HEAD' ? rarities.get(file.target.repo) : undefined,
  );
  const spans = ordered.spans.filter((span) => {
    const count = perFile.get(span.file) ?? 0;
    perFile.set(span.file, count + 1);
    return count < SPANS_PER_FILE;
  });
  return { spans, unanimous: ordered.unanimous, files, total: ranked.total, stats: ranked.stats, weights, notes: ranked.notes, charsRead };
}

/** How long an answer waits for a commit's symbol table being built before it answers without. */
const SYMBOLS_WAIT_MS = 5_000;
/** Files added for their definitions' names at most. */
const NAMED_FILES = 6;
/** Definitions looked at per word of the question. */
const PER_WORD = 200;
/** A definition's name brings its file in when it scores at least this (a rare word of the question, or its name). */
const NAMED_SCORE = 2;

/** The symbol tables of the searched commits (those of HEADs: a search of another revision, `rev:`, uses none and builds none). */
async function symbolTablesOf(
  context: ToolContext,
  searched: readonly SearchTarget[],
  wait: boolean,
): Promise<Array<{ target: SearchTarget; table: SymbolTable | undefined }>> {
  const tables = context.symbolTables;
  if (!tables) return [];
  const targets = [
    ...new Map(searched.filter((target) => target.revision === 'HEAD').map((target) => [`${target.repo.dir}\0${target.commit}`, target])).values(),
  ];
  // Every repository's table at once, under one deadline.
  return Promise.all(
    targets.map(async (target) => {
      const source = symbolSource(context, target);
      return { target, table: wait ? await tables.whenReady(source, context.signal, SYMBOLS_WAIT_MS) : tables.lookup(source) };
    }),
  );
}

/**
 * The files of the symbol tables whose definitions the question names (or whose names are made of
 * its words), best first, that are not read already: at most `NAMED_FILES`.
 */
function namedElsewhere(
  question: QuestionAnalysis,
  weights: TermWeights,
  totalWeight: number,
  tables: ReadonlyArray<{ target: SearchTarget; table: SymbolTable | undefined }>,
  reading: ReadonlyArray<{ target: SearchTarget; path: string }>,
): Array<{ target: SearchTarget; path: string }> {
  const best = new Map<string, { target: SearchTarget; path: string; score: number }>();
  for (const { target, table } of tables) {
    if (!table) continue;
    const entries = [
      ...question.names.flatMap((name) => table.named(name)),
      ...question.stems.filter((stemmed) => stemmed.length >= 4).flatMap((stemmed) => table.holding(stemmed, PER_WORD)),
    ];
    for (const entry of entries) {
      if (reading.some((file) => file.target.repo === target.repo && file.path === entry.path)) continue;
      const { score } = scoreName(entry, question, weights, totalWeight, true);
      const key = `${target.repo.dir}\0${entry.path}`;
      if (score >= NAMED_SCORE && score > (best.get(key)?.score ?? 0)) best.set(key, { target, path: entry.path, score });
    }
  }
  return [...best.values()].sort((a, b) => b.score - a.score || a.path.localeCompare(b.path)).slice(0, NAMED_FILES);
}

/** The files the query's filters allow (`file:\.py$`): a definition's file is no exception. */
async function withinFilters<T extends { target: SearchTarget; path: string }>(
  context: ToolContext,
  query: ParsedQuery | undefined,
  files: readonly T[],
): Promise<T[]> {
  if (!query || query.filters.length === 0) return [...files];
  const kept: T[] = [];
  for (const file of files) if ((await allowedByFilters(context.regex, query, file.target, [file.path]))?.[0] !== 0) kept.push(file);
  return kept;
}

/** A commit's files as its symbol table reads them: the tree's listing, and its blobs in batches. */
export function symbolSource(context: ToolContext, target: SearchTarget): SymbolSource {
  return {
    key: `${target.repo.name}@${target.commit}`,
    listFiles: async () => (await listTree(context, target)).paths,
    readFiles: async (paths, signal) => {
      const blobs = await readBlobsAtOnce({ ...context, signal }, target, paths, SYMBOL_FILE_BYTES);
      const texts = new Map<string, string>();
      for (const [path, bytes] of blobs) if (!bytes.includes(0)) texts.set(path, bytes.toString('utf8'));
      return texts;
    },
    // The table counts each word's definitions over the commit: what a description's words weigh.
    wordsOf: (_path, text, definitions) => wordsOfFile(text, definitions),
  };
}

/**
 * Each term's weight in the query times its inverse document frequency in the searched trees; a
 * synonym (not searched, so of unknown frequency) weighs its share of the average term.
 */
function termWeights(question: QuestionAnalysis, stats: CorpusStats): Map<string, number> {
  const weights = new Map<string, number>();
  for (const term of question.terms) {
    const df = stats.documentFrequency.get(term.text) ?? 0;
    if (df === 0) continue;
    weights.set(term.text, term.weight * Math.log(1 + (stats.documentCount - df + 0.5) / (df + 0.5)));
  }
  const average = weights.size > 0 ? [...weights.values()].reduce((sum, weight) => sum + weight, 0) / weights.size : 0;
  // How many files hold `man` says nothing of how many hold the word (every `command` does): a short word weighs as an average one.
  for (const [text, weight] of weights) if (text.length <= SHORT_TERM && !/^\d+$/.test(text)) weights.set(text, Math.max(weight, average));
  for (const synonym of question.synonyms) if (!weights.has(synonym.text)) weights.set(synonym.text, synonym.weight * average);
  return weights;
}

/** What a file of the target is: its path and lines, as the commit's git attributes have it. */
export async function kindOf(context: ToolContext, target: SearchTarget, path: string, lines: readonly string[]): Promise<FileKind> {
  return fileKind(path, (await commitAttributes(context, target)).get(path) ?? {}, lines);
}

/** A file's definitions, kept (by the engine's caches) for the next question that reads it. */
export function definitionsOf(context: ToolContext, target: SearchTarget, path: string, text: string): Promise<Definition[] | undefined> {
  // A file the parser cannot take (a grammar that failed to load) is read as text, not a failure.
  return keptPromise(context.caches.definitions, `${target.repo.dir}\0${target.commit}\0${path}`, DEFINITIONS_KEPT, () =>
    findDefinitions(path, text).catch(() => undefined),
  );
}

/**
 * The linguist attributes git gives the files of the commit's listing (asked once per commit, and
 * only of a tree with a `.gitattributes` file). A file past the listing's bound gets none.
 */
function commitAttributes(context: ToolContext, target: SearchTarget): Promise<Map<string, LinguistAttributes>> {
  return keptPromise(context.caches.attributes, `${target.repo.dir}\0${target.commit}`, ATTRIBUTES_KEPT, async () => {
    const tree = await listTree(context, target);
    if (!tree.paths.some(isAttributesFile)) return new Map<string, LinguistAttributes>();
    return linguistAttributes(target.repo.dir, target.commit, tree.paths, context.signal, context.launcher).catch((error: unknown) => {
      // Cancelled: not kept as a commit without attributes (keptPromise keeps no failure).
      if (context.signal.aborted) throw error;
      // git could not say (a damaged repository, a limit): kinds come from paths and text, as without attributes.
      return new Map<string, LinguistAttributes>();
    });
  });
}
