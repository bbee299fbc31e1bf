/**
 * The order of an answer's candidates: the definitions ranking (`spanRanking.ts`), for a description
 * the definitions by what they are (`definitionText.ts`: their names, documentation and bodies
 * against every word it says), and BM25 over the source files, fused (`fusion.ts`): files first, then the spans
 * of each file. A ranking that misfires on a question's wording falls back to what the others find,
 * BM25 among them. Pure.
 */
import { LEADING_KINDS } from '../code/fileKinds';
import { definitionWords, describeScores, type WordRarity } from './definitionText';
import { bestOf, fuse, fusedScores, type Ranking } from './fusion';
import type { QuestionAnalysis } from './question';
import type { CandidateFile, ScoredSpan } from './spanRanking';

/**
 * How much each ranking weighs, for a question and for a description: a question's few words say
 * what the definition is named and does (the definitions ranking reads them best, names, bodies and
 * documentation alike, with BM25 as its floor); a paragraph's many words misfire more often in names,
 * and say more of what the code is (the definitions by their words weighted by rarity, which a
 * question's few words are too few for) and which file holds it.
 */
const WEIGHTS = {
  question: { spans: 1, described: 0, bm25: 0.25 },
  description: { spans: 0.5, described: 1, bm25: 1 },
} as const;

export interface CandidateOrder<F extends CandidateFile> {
  spans: Array<ScoredSpan<F>>;
  /** Whether every ranking puts the first file first: then the lead is clearly ahead. */
  unanimous: boolean;
}

/**
 * `spans` (best first, as ranked) in the fused order. BM25 is each file's `fileScore`; only source
 * files count in the file order (tests, docs and the like never lead). `rarity`: how rare words are
 * across the definitions of a file's repository, when known (else across the definitions scored).
 */
export function orderCandidates<F extends CandidateFile>(
  spans: ReadonlyArray<ScoredSpan<F>>,
  question: QuestionAnalysis,
  rarity: (file: F) => WordRarity | undefined = () => undefined,
): CandidateOrder<F> {
  const weights = WEIGHTS[question.kind];
  // A question's few words are too few to weigh by rarity: only a description is matched by them.
  const described = weights.described > 0 ? describedScores(spans, question.described, rarity) : new Map<ScoredSpan<F>, number>();
  const leading = spans.filter((span) => LEADING_KINDS.has(span.file.kind));
  const byFile = (score: (span: ScoredSpan<F>) => number): Map<F, number> => bestOf(leading, (span) => span.file, score);
  const fileRankings: Array<Ranking<F>> = [
    { scores: byFile((span) => span.score), weight: weights.spans },
    { scores: byFile((span) => described.get(span) ?? 0), weight: weights.described },
    { scores: byFile((span) => span.file.fileScore), weight: weights.bm25 },
  ].filter((ranking) => ranking.weight > 0);
  const files = fuse(fileRankings);
  const fileRank = new Map(files.map((file, index) => [file, index]));
  const spanScore = fusedScores<ScoredSpan<F>>([
    { scores: new Map(spans.map((span) => [span, span.score])), weight: weights.spans },
    { scores: described, weight: weights.described },
  ]);
  const position = new Map(spans.map((span, index) => [span, index]));
  const ordered = [...spans].sort(
    (a, b) =>
      (fileRank.get(a.file) ?? files.length) - (fileRank.get(b.file) ?? files.length) ||
      (spanScore.get(b) ?? 0) - (spanScore.get(a) ?? 0) ||
      (position.get(a) ?? 0) - (position.get(b) ?? 0),
  );
  const first = files[0];
  const unanimous = first !== undefined && fileRankings.every((ranking) => topOf(ranking.scores) === first);
  return { spans: ordered, unanimous };
}

function topOf<T>(scores: ReadonlyMap<T, number>): T | undefined {
  let top: T | undefined;
  let best = 0;
  for (const [thing, score] of scores) if (score > best) [top, best] = [thing, score];
  return top;
}

/**
 * How well each span with a definition says what the question's words say (those holding none left
 * out), the spans of each repository weighed by its rarity.
 */
function describedScores<F extends CandidateFile>(
  spans: ReadonlyArray<ScoredSpan<F>>,
  words: readonly string[],
  rarity: (file: F) => WordRarity | undefined,
): Map<ScoredSpan<F>, number> {
  const scored = new Map<ScoredSpan<F>, number>();
  if (words.length === 0) return scored;
  const groups = new Map<WordRarity | undefined, Array<ScoredSpan<F>>>();
  for (const span of spans) {
    if (span.definition === undefined) continue;
    const key = rarity(span.file);
    const group = groups.get(key);
    if (group) group.push(span);
    else groups.set(key, [span]);
  }
  for (const [key, group] of groups) for (const [span, score] of describedGroup(group, words, key)) scored.set(span, score);
  return scored;
}

function describedGroup<F extends CandidateFile>(
  withDefinitions: ReadonlyArray<ScoredSpan<F>>,
  words: readonly string[],
  rarity: WordRarity | undefined,
): Array<[ScoredSpan<F>, number]> {
  const documents = withDefinitions.map((span) =>
    definitionWords({
      name: span.definition?.name ?? '',
      ...(span.definition?.container !== undefined ? { container: span.definition.container } : {}),
      documentation: span.docStart !== undefined ? span.file.lines.slice(span.docStart - 1, span.start - 1) : [],
      body: span.file.lines.slice(span.start - 1, span.end),
    }),
  );
  const scores = describeScores(documents, words, rarity);
  return withDefinitions.flatMap((span, index) => ((scores[index] ?? 0) > 0 ? [[span, scores[index] ?? 0] as [ScoredSpan<F>, number]] : []));
}
