/**
 * The best `limit` of a stream of items, in order, without holding the rest: a search that matches
 * a hundred thousand files keeps only the few it shows (and counts the others).
 */
export class BestOf<T> {
  private readonly kept: T[] = [];

  /** `compare` orders the best first, as a sort's comparator would. */
  constructor(
    private readonly limit: number,
    private readonly compare: (a: T, b: T) => number,
  ) {}

  offer(item: T): void {
    if (this.limit <= 0) return;
    if (this.kept.length === this.limit && this.compare(item, this.kept[this.kept.length - 1]) >= 0) return;
    // The first place whose item the new one comes before (equal items keep their arrival order).
    let low = 0;
    let high = this.kept.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.compare(item, this.kept[middle]) < 0) high = middle;
      else low = middle + 1;
    }
    this.kept.splice(low, 0, item);
    if (this.kept.length > this.limit) this.kept.pop();
  }

  /** The kept items, best first. */
  items(): T[] {
    return [...this.kept];
  }
}
