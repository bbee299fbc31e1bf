/**
 * The index's counts as it gets them from its worker: pairs of file number and count, in file
 * order, read through the index's path numbering. A common term in a large tree matches a hundred
 * thousand files: as a Map that is megabytes of table per search, here an array of numbers.
 */
import type { FileCounts } from './grepResult';

export class IndexCounts implements FileCounts {
  readonly size: number;

  /**
   * `pairs`: file number, count, … in ascending file order. `paths` and `numbers` are the index's
   * (shared by every search of the index, never copied).
   */
  constructor(
    private readonly pairs: Int32Array,
    private readonly paths: readonly string[],
    private readonly numbers: ReadonlyMap<string, number>,
  ) {
    this.size = pairs.length / 2;
  }

  get(path: string): number | undefined {
    const file = this.numbers.get(path);
    if (file === undefined) return undefined;
    let low = 0;
    let high = this.size;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const at = this.pairs[2 * middle];
      if (at === file) return this.pairs[2 * middle + 1];
      if (at < file) low = middle + 1;
      else high = middle;
    }
    return undefined;
  }

  has(path: string): boolean {
    return this.get(path) !== undefined;
  }

  *keys(): IterableIterator<string> {
    for (let at = 0; at < this.pairs.length; at += 2) yield this.paths[this.pairs[at]];
  }

  *entries(): IterableIterator<[string, number]> {
    for (let at = 0; at < this.pairs.length; at += 2) yield [this.paths[this.pairs[at]], this.pairs[at + 1]];
  }
}
