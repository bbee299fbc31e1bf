/**
 * Several rankings of the same things made one. Each ranking scores its things; a thing's fused
 * score is the sum, over the rankings, of the ranking's weight times the thing's score as a share
 * of that ranking's best (a thing a ranking does not hold gets nothing from it). Unlike a fusion of
 * ranks alone, a ranking that is sure (its first far ahead, as a definition named by the question's
 * words is) keeps its margin, and one that misfires cannot bury what the others put first. Pure.
 */

export interface Ranking<T> {
  /** Each thing's score in this ranking (higher is better; only positive scores count). */
  scores: ReadonlyMap<T, number>;
  weight: number;
}

/** Each thing's fused score (higher is better). */
export function fusedScores<T>(rankings: ReadonlyArray<Ranking<T>>): Map<T, number> {
  const fused = new Map<T, number>();
  for (const { scores, weight } of rankings) {
    const best = Math.max(0, ...scores.values());
    if (best <= 0) continue;
    for (const [thing, score] of scores) if (score > 0) fused.set(thing, (fused.get(thing) ?? 0) + (weight * score) / best);
  }
  return fused;
}

/** The things of every ranking by fused score, ties in the order of the first ranking that holds them. */
export function fuse<T>(rankings: ReadonlyArray<Ranking<T>>): T[] {
  const scores = fusedScores(rankings);
  const firstSeen = new Map<T, number>();
  for (const { scores: ranked } of rankings) for (const thing of ranked.keys()) if (!firstSeen.has(thing)) firstSeen.set(thing, firstSeen.size);
  return [...scores.keys()].sort((a, b) => (scores.get(b) ?? 0) - (scores.get(a) ?? 0) || (firstSeen.get(a) ?? 0) - (firstSeen.get(b) ?? 0));
}

/** The best score of each group (a file's best span), as a ranking's scores. */
export function bestOf<T, G>(things: Iterable<T>, groupOf: (thing: T) => G, scoreOf: (thing: T) => number): Map<G, number> {
  const best = new Map<G, number>();
  for (const thing of things) {
    const group = groupOf(thing);
    const score = scoreOf(thing);
    if (score > (best.get(group) ?? 0)) best.set(group, score);
  }
  return best;
}
