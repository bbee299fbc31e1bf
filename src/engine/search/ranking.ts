/**
 * Ranking for natural-language search: query words become terms (identifiers whole, in their
 * camelCase and snake_case spellings, never split into their parts; stop words dropped; words
 * reduced to a stem that is a prefix of their variants),
 * and files are scored with BM25 over their contents plus a bonus for terms in their path.
 */
import { identifierSpellings } from './searchTerms';

export interface SearchTermSpec {
  /** Lower-case text searched for as a substring (a stem such as `connect`, or a whole identifier). */
  text: string;
  /** Weight in the score: identifiers count more than stems of plain words. */
  weight: number;
}

const STOPWORDS = new Set(
  (
    'a about after all also an and any are as at be because been before being between both but by can could did do does ' +
    'doing done each for from get gets got had has have how i if in into is it its just me more most my no not of on or ' +
    'other our out over same should so some such than that the their them then there these they this those through to too ' +
    'under up very was we were what when where which while who why will with would you your code codebase find show ' +
    'explain tell where please implement implemented implementation work works working use used uses using'
  ).split(' '),
);

const SUFFIXES = ['ations', 'ation', 'ments', 'ment', 'ness', 'ings', 'ing', 'ions', 'ion', 'ers', 'er', 'ies', 'ied', 'es', 'ed', 'ly', 's'];
const MIN_STEM = 3;
const MAX_TERMS = 12;

/** A prefix of the word's inflections: `connections` → `connect`, `retries` → `retr`, `handler` → `handl`. */
export function stem(word: string): string {
  let result = word.toLowerCase();
  // `runs` → `run`, `tags` → `tag` (not `class`, `bus`, `this`).
  if (result.length === 4 && result.endsWith('s') && !/(ss|us|is)$/.test(result)) return result.slice(0, 3);
  if (result.length <= 4) return result;
  for (const suffix of SUFFIXES) {
    if (suffix === 's' && result.endsWith('ss')) break;
    if (result.endsWith(suffix) && result.length - suffix.length >= MIN_STEM) {
      result = result.slice(0, -suffix.length);
      if (/(ing|ed|er|ers|ings)$/.test(suffix) && /([b-df-hj-np-tv-z])\1$/.test(result) && result.length > MIN_STEM) result = result.slice(0, -1);
      break;
    }
  }
  if (/[eyi]$/.test(result) && result.length - 1 >= MIN_STEM + 1) result = result.slice(0, -1);
  return result;
}

/**
 * Which terms (indexes) make a file a candidate for scoring, by the files of the tree holding each:
 * those in at most `common` files; when every term is more common, the rarest one (the first of
 * equals); none when no term is found. A file holding only common terms is not worth a document.
 */
export function candidateTerms(fileCounts: readonly number[], common: number): number[] {
  const rare = fileCounts.flatMap((files, index) => (files > 0 && files <= common ? [index] : []));
  if (rare.length > 0) return rare;
  let rarest = -1;
  fileCounts.forEach((files, index) => {
    if (files > 0 && (rarest === -1 || files < (fileCounts[rarest] ?? 0))) rarest = index;
  });
  return rarest === -1 ? [] : [rarest];
}

/** The terms of a natural-language query, at most twelve (or `max`: a paragraph says more than a question), deduplicated. */
export function queryTerms(words: readonly string[], max = MAX_TERMS): SearchTermSpec[] {
  const terms = new Map<string, SearchTermSpec>();
  const add = (text: string, weight: number): void => {
    if (text.length < 2 || terms.has(text)) return;
    terms.set(text, { text, weight });
  };
  for (const word of words) {
    for (const token of word.match(/[A-Za-z_$][A-Za-z0-9_$]*|\d{2,}/g) ?? []) {
      const spellings = identifierSpellings(token);
      if (spellings.length > 0) {
        // `parseConfig` is also written parse_config; its parts alone would match most files.
        for (const spelling of spellings) add(spelling, 1.5);
      } else if (!STOPWORDS.has(token.toLowerCase())) {
        const stemmed = stem(token);
        add(stemmed, 1);
        // Long words are often abbreviated in code: configuration ~ config, authentication ~ authen.
        if (stemmed.length >= 8) add(stemmed.slice(0, 6), 0.5);
      }
    }
  }
  return [...terms.values()].slice(0, max);
}

export interface Document {
  key: string;
  path: string;
  /** Length in bytes. */
  length: number;
  /** Matching lines per term text. */
  termFrequencies: Map<string, number>;
}

export interface CorpusStats {
  /** Files in the searched trees. */
  documentCount: number;
  averageLength: number;
  /** Files containing each term. */
  documentFrequency: Map<string, number>;
}

/**
 * One term's share of a file's score: BM25 for its matching lines (`tf`), plus a bonus when the
 * file's path holds the term. The search worker ranks the files it holds with it too
 * (searchWorkerThread.ts): one definition for both.
 */
export function termScore(tf: number, inPath: boolean, weight: number, df: number, documentCount: number, length: number, averageLength: number): number {
  const k1 = 1.2;
  const b = 0.75;
  const pathWeight = 2;
  const idf = Math.log(1 + (documentCount - df + 0.5) / (df + 0.5));
  let score = 0;
  if (tf > 0) {
    const norm = 1 - b + (b * length) / Math.max(1, averageLength);
    score += weight * idf * ((tf * (k1 + 1)) / (tf + k1 * norm));
  }
  if (inPath) score += weight * idf * pathWeight * 0.5;
  return score;
}

/**
 * Which terms earn the path bonus: those the path holds, except a term inside a longer one the path
 * also holds (`authoriz` in `authorization`: one word, one bonus). Shared with the worker, like termScore.
 */
export function pathBonuses(lowerPath: string, texts: readonly string[]): boolean[] {
  const held = texts.map((text) => lowerPath.includes(text));
  return texts.map(
    (text, index) =>
      held[index] === true && !texts.some((other, at) => at !== index && held[at] === true && other.length > text.length && other.includes(text)),
  );
}

/** BM25 of one document for the terms, plus a bonus per word found in its path. */
export function bm25(document: Document, terms: readonly SearchTermSpec[], stats: CorpusStats): number {
  let score = 0;
  const inPath = pathBonuses(
    document.path.toLowerCase(),
    terms.map((term) => term.text),
  );
  terms.forEach((term, index) => {
    const df = stats.documentFrequency.get(term.text) ?? 0;
    const tf = document.termFrequencies.get(term.text) ?? 0;
    score += termScore(tf, inPath[index] === true, term.weight, df, stats.documentCount, document.length, stats.averageLength);
  });
  return score;
}

/** Score of each line for chunk selection: sum of the weights × idf of the distinct terms on it. */
export function lineScores(lines: readonly string[], terms: readonly SearchTermSpec[], stats: CorpusStats): Map<number, number> {
  const scores = new Map<number, number>();
  lines.forEach((line, index) => {
    const lower = line.toLowerCase();
    let score = 0;
    for (const term of terms) {
      if (!lower.includes(term.text)) continue;
      const df = stats.documentFrequency.get(term.text) ?? 0;
      score += term.weight * Math.log(1 + (stats.documentCount - df + 0.5) / (df + 0.5));
    }
    if (score > 0) scores.set(index + 1, score);
  });
  return scores;
}
