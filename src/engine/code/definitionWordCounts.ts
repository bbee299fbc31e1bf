/**
 * In how many of a commit's definitions each word is: the rarity a description's words are weighed
 * by (`repo/definitionRarity.ts`), counted over every definition of the commit's symbol table, not
 * only those of the files an answer reads. The words come from the caller (`SymbolSource.wordsOf`:
 * how a definition reads as words is the answer's business); this module counts them, bounded in
 * the words it holds while counting and in those it keeps. Pure.
 */

/** One definition's words as the caller reads them: each distinct word, and how many words it has in all (its length). */
export interface DefinitionWords {
  words: Iterable<string>;
  length: number;
}

/** Distinct words held while counting: past it, the rarest are let go (and words that rare are counted as unknown). */
const MAX_COUNTING = 300_000;
/** Words kept once counted (the most common; the rest are at most as common as `floor` says). */
export const MAX_KEPT_WORDS = 100_000;
/** A longer word is no word a description says. */
export const MAX_WORD_LENGTH = 64;

/** The counts of one commit: how many definitions, their total length, and each word's definition count. */
export class DefinitionWordCounts {
  constructor(
    /** Definitions counted. */
    readonly definitions: number,
    /** Their words in all (with repeats): the average definition's length is `length / definitions`. */
    readonly length: number,
    private readonly counts: ReadonlyMap<string, number>,
    /**
     * What a word not kept may have been counted at most (0: every word the definitions hold is kept,
     * so one not kept is in none of them).
     */
    readonly floor: number,
  ) {}

  /** In how many definitions `word` is (for a word not kept: `floor`, as many as it may have been in). */
  frequency(word: string): number {
    return this.counts.get(word) ?? this.floor;
  }

  get size(): number {
    return this.counts.size;
  }

  /** The kept words with their counts, most common first (as stored). */
  entries(): Array<[string, number]> {
    return [...this.counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  }
}

/** Counts definitions' words, a definition at a time. */
export class DefinitionWordCounter {
  private readonly counts = new Map<string, number>();
  private definitions = 0;
  private length = 0;
  /** Counts let go while counting were at most this. */
  private floor = 0;

  constructor(
    private readonly maxCounting = MAX_COUNTING,
    private readonly maxKept = MAX_KEPT_WORDS,
  ) {}

  add(definition: DefinitionWords): void {
    this.definitions++;
    this.length += definition.length;
    for (const word of new Set(definition.words)) {
      if (word.length === 0 || word.length > MAX_WORD_LENGTH) continue;
      const count = this.counts.get(word);
      if (count !== undefined) {
        this.counts.set(word, count + 1);
        continue;
      }
      // A word let go before counts again from one (its count is then short by `floor` at most).
      this.counts.set(word, 1);
      if (this.counts.size > this.maxCounting) this.prune();
    }
  }

  /** Lets the rarest words go (the floor raised to the most common of them) until at most three quarters of the bound are held. */
  private prune(): void {
    for (let below = 1; this.counts.size > (this.maxCounting * 3) / 4; below++) {
      for (const [word, count] of this.counts) if (count <= below) this.counts.delete(word);
      this.floor = Math.max(this.floor, below);
    }
  }

  /** The counts, the `maxKept` most common words kept. */
  done(): DefinitionWordCounts {
    let floor = this.floor;
    let kept: ReadonlyMap<string, number> = this.counts;
    if (this.counts.size > this.maxKept) {
      const sorted = [...this.counts].sort((a, b) => b[1] - a[1]);
      floor = Math.max(floor, sorted[this.maxKept]?.[1] ?? 0);
      kept = new Map(sorted.slice(0, this.maxKept).filter(([, count]) => count > floor));
    }
    return new DefinitionWordCounts(this.definitions, this.length, kept, floor);
  }
}

/** Counts as stored on disk: `[definitions, length, floor, [[word, count], …]]`. */
export function storedCounts(counts: DefinitionWordCounts): unknown[] {
  return [counts.definitions, counts.length, counts.floor, counts.entries()];
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

/** Counts read back from disk, or undefined when the value is not stored counts (another version, a damaged file). */
export function countsFromStored(value: unknown): DefinitionWordCounts | undefined {
  if (!Array.isArray(value) || value.length !== 4) return undefined;
  const [definitions, length, floor, rows] = value as unknown[];
  if (!isCount(definitions) || !isCount(length) || !isCount(floor) || !Array.isArray(rows)) return undefined;
  const counts = new Map<string, number>();
  for (const row of rows.slice(0, MAX_KEPT_WORDS)) {
    if (!Array.isArray(row) || row.length !== 2) return undefined;
    const [word, count] = row as unknown[];
    if (typeof word !== 'string' || word.length === 0 || word.length > MAX_WORD_LENGTH || !isCount(count) || count > definitions) return undefined;
    counts.set(word, count);
  }
  return new DefinitionWordCounts(definitions, length, counts, floor);
}
