/**
 * An estimate of the work marked's emphasis pass does on a paragraph, from its delimiter runs
 * (`*`, `_`, `~`) alone, for the Markdown budget scan (`markdownBudget.ts`). marked pairs runs by
 * scanning ahead from each one that may open emphasis, so what costs is what stays unpaired:
 *
 * - runs that pair nowhere (`_a_a_a…`, `a__a__…`): about the square of their number, one unit
 *   each (a run of two or three characters counts two or three);
 * - openers left waiting while later runs might close them (`_a_a _a_a …`, `*_a *_a …`): each such
 *   run is looked at once per waiting opener, `WAITING_WEIGHT` units each;
 * - long runs paired with long runs (`***…a***…`): nested emphasis as deep as the runs are long,
 *   counted like unpaired runs.
 *
 * Pairs that close as they should (`*a* *a*`, `**b**`) cost next to nothing. The runs are judged by
 * CommonMark's flanking rules, on the characters either side; marked follows them closely enough.
 * Calibrated on marked 18.2.1 (pinned in package.json; test/unit/webview/emphasisCost.test.ts
 * compares the model with it): a unit is about 6 ns.
 */

/** Units for a run looked at by one waiting opener: the scan for closers is that much slower. */
export const WAITING_WEIGHT = 64;

const SPACE = 32;
const TAB = 9;
const NEWLINE = 10;
const CARRIAGE_RETURN = 13;
const UNDERSCORE = 95;

export class EmphasisCost {
  /** Units of the paragraphs before the current one. */
  private finished = 0;
  /** The current paragraph: runs, unpaired weight, nested weight, waiting openers' work. */
  runs = 0;
  private unpaired = 0;
  private nested = 0;
  private waitingWork = 0;
  private longestRun = 0;
  /** Openers waiting for a closer, per delimiter: `*`, `_`, `~`. */
  private readonly waiting = new Map<number, number>();

  /** The estimate so far, the current paragraph included. */
  get total(): number {
    const weight = this.unpaired + this.nested;
    return this.finished + weight * weight + WAITING_WEIGHT * this.waitingWork;
  }

  /** A run of `length` characters `char`, between the characters `before` and `after` (NaN: none). */
  run(char: number, length: number, before: number, after: number): void {
    this.runs++;
    if (length > 3) {
      this.nested += 2 * Math.min(length, this.longestRun);
      if (length > this.longestRun) this.longestRun = length;
    }
    const weight = Math.min(length, 3);
    const waiting = this.waiting.get(char) ?? 0;
    // marked looks at every run not preceded by a space as a possible closer of each waiting opener.
    if (!isSpace(before)) this.waitingWork += waiting;
    const left = isLeftFlanking(before, after);
    const right = isLeftFlanking(after, before);
    const underscore = char === UNDERSCORE;
    const canClose = right && (!underscore || !left || isPunctuation(after));
    const canOpen = left && (!underscore || !right || isPunctuation(before));
    if (canClose && waiting > 0) {
      this.waiting.set(char, waiting - 1);
      // The opener it closes stops counting as unpaired.
      this.unpaired = Math.max(0, this.unpaired - weight);
      return;
    }
    this.unpaired += weight;
    if (canOpen) this.waiting.set(char, waiting + 1);
  }

  /** Ready for another answer. */
  reset(): void {
    this.endParagraph();
    this.finished = 0;
  }

  endParagraph(): void {
    this.finished = this.total;
    this.runs = 0;
    this.unpaired = 0;
    this.nested = 0;
    this.waitingWork = 0;
    this.longestRun = 0;
    this.waiting.clear();
  }
}

/** Left-flanking by CommonMark (and right-flanking with the sides swapped). */
function isLeftFlanking(before: number, after: number): boolean {
  if (isSpace(after)) return false;
  return !isPunctuation(after) || isSpace(before) || isPunctuation(before);
}

/** Whitespace, or no character at all (the paragraph's start or end). */
function isSpace(char: number): boolean {
  return Number.isNaN(char) || char === SPACE || char === TAB || char === NEWLINE || char === CARRIAGE_RETURN || char === 0xa0;
}

/** ASCII punctuation (CommonMark also counts Unicode punctuation; close enough for an estimate). */
function isPunctuation(char: number): boolean {
  return (char >= 33 && char <= 47) || (char >= 58 && char <= 64) || (char >= 91 && char <= 96) || (char >= 123 && char <= 126);
}
