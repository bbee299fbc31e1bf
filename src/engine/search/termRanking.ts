/**
 * Ranking the index's files for natural-language search: each term's matching lines per file
 * (kept for the terms last asked), and the best files by BM25 (ranking.ts). Its terms are ASCII
 * words, searched as literals: no scan for them can run away, so they run outside the worker's
 * time-limited context.
 */
import type { BlockFilter } from './blockFilter';
import type { LineMatcher } from './grepPatterns';
import { pathBonuses, termScore } from './ranking';
import type { RankReply, RankRequest } from './searchWorker';
import type { TextLayout } from './textLayout';
import { countLines } from './textScan';

const collator = new Intl.Collator();

export class TermRanking {
  /**
   * Each term's counts, kept for the terms last asked within a byte budget: questions asked
   * together share words, and a ranking asks for its terms twice (their frequencies, then the
   * scores). The budget is an eighth of the text (at most 32 MiB), so the index stays within 1.5
   * times its text.
   */
  private readonly cacheLimit: number;
  private readonly cache = new Map<string, Int32Array>();
  private cacheBytes = 0;

  constructor(
    private readonly layout: TextLayout,
    private readonly filter: BlockFilter,
  ) {
    this.cacheLimit = Math.min(32 * 1024 * 1024, Math.max(1024 * 1024, Math.floor(layout.text.length / 8)));
  }

  /** Pairs of file index and matching-line count, in file order, for a term in any (ASCII) case. */
  termCounts(term: string): Int32Array {
    const kept = this.cache.get(term);
    if (kept !== undefined) {
      this.cache.delete(term);
      this.cache.set(term, kept);
      return kept;
    }
    // Terms are lower-case ASCII words: every match holds the term itself, folded.
    const matcher: LineMatcher = { kind: 'regex', source: term.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&'), flags: 'gi', wholeWord: false, length: term.length };
    const { counts } = countLines(this.layout, this.filter, {
      matcher,
      allowed: null,
      required: term.length >= 3 ? { kind: 'literal', text: term.toLowerCase() } : null,
    });
    this.cache.set(term, counts);
    this.cacheBytes += counts.byteLength;
    for (const [key, value] of this.cache) {
      if (this.cacheBytes <= this.cacheLimit || key === term) break;
      this.cache.delete(key);
      this.cacheBytes -= value.byteLength;
    }
    return counts;
  }

  /** The best `limit` candidates of the request, best first. */
  rank(request: RankRequest): Omit<RankReply, 'id'> {
    const { fileCount, paths, sizes } = this.layout;
    const terms = request.terms;
    const counts = terms.map((term) => this.termCounts(term.text));
    const selecting = request.selecting;
    const allowed = request.allowed;
    const candidate = new Uint8Array(fileCount);
    let total = 0;
    for (const index of selecting) {
      const pairs = counts[index];
      for (let at = 0; at < pairs.length; at += 2) {
        const file = pairs[at];
        if (candidate[file] === 0 && (allowed === null || allowed[file] === 1)) {
          candidate[file] = 1;
          total++;
        }
      }
    }
    // Candidates in file order; each term's pairs are walked alongside (they are in file order too).
    const texts = terms.map((term) => term.text);
    const cursors = new Int32Array(terms.length);
    const frequency = new Int32Array(terms.length);
    const limit = request.limit;
    const best: Array<{ file: number; score: number; frequency: Int32Array | undefined }> = [];
    const before = (a: { file: number; score: number }, b: { file: number; score: number }): number =>
      b.score - a.score || collator.compare(request.keyPrefix + paths[a.file], request.keyPrefix + paths[b.file]);
    for (let file = 0; file < fileCount; file++) {
      if (candidate[file] === 0) continue;
      const inPath = pathBonuses(paths[file].toLowerCase(), texts);
      let score = 0;
      for (let index = 0; index < terms.length; index++) {
        const pairs = counts[index];
        let at = cursors[index];
        while (at < pairs.length && pairs[at] < file) at += 2;
        cursors[index] = at;
        const tf = at < pairs.length && pairs[at] === file ? pairs[at + 1] : 0;
        frequency[index] = tf;
        const term = terms[index];
        score += termScore(tf, inPath[index], term.weight, request.documentFrequencies[index], request.documentCount, sizes[file], request.averageLength);
      }
      const entry: (typeof best)[number] = { file, score, frequency: undefined };
      if (best.length === limit && before(entry, best[best.length - 1]) >= 0) continue;
      entry.frequency = Int32Array.from(frequency);
      let place = best.length;
      while (place > 0 && before(entry, best[place - 1]) < 0) place--;
      best.splice(place, 0, entry);
      if (best.length > limit) best.pop();
    }
    const frequencies = new Int32Array(best.length * terms.length);
    best.forEach((entry, index) => frequencies.set(entry.frequency ?? [], index * terms.length));
    return {
      total,
      files: Int32Array.from(best, (entry) => entry.file),
      scores: Float64Array.from(best, (entry) => entry.score),
      frequencies,
    };
  }
}
