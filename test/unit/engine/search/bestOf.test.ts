import * as assert from 'node:assert/strict';
import { BestOf } from '../../../../src/engine/search/bestOf';

interface Item {
  score: number;
  name: string;
  /** Arrival order, to see that equal items keep it. */
  seq: number;
}

const byScore = (a: Item, b: Item): number => b.score - a.score;

/** A reproducible stream with many equal scores. */
function stream(length: number, seed: number): Item[] {
  let state = seed;
  const next = (): number => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state;
  };
  return Array.from({ length }, (_, seq) => ({ score: next() % 17, name: `f${next() % 1000}`, seq }));
}

describe('BestOf', function () {
  it('keeps what a full sort would put first, for every limit, equal items in arrival order', function () {
    for (const seed of [1, 7, 42]) {
      const items = stream(500, seed);
      const sorted = [...items].sort(byScore);
      for (const limit of [0, 1, 2, 15, 100, 499, 500, 800]) {
        const best = new BestOf<Item>(limit, byScore);
        for (const item of items) best.offer(item);
        assert.deepEqual(best.items(), sorted.slice(0, limit), `seed ${seed}, limit ${limit}`);
      }
    }
  });

  it('orders by the whole comparator (ties broken by name)', function () {
    const compare = (a: Item, b: Item): number => b.score - a.score || a.name.localeCompare(b.name);
    const items = stream(300, 3);
    const best = new BestOf<Item>(20, compare);
    for (const item of items) best.offer(item);
    assert.deepEqual(best.items(), [...items].sort(compare).slice(0, 20));
  });

  it('hands out a copy: offering more later does not change a list already read', function () {
    const best = new BestOf<Item>(2, byScore);
    best.offer({ score: 1, name: 'a', seq: 0 });
    const first = best.items();
    best.offer({ score: 5, name: 'b', seq: 1 });
    assert.deepEqual(
      first.map((item) => item.name),
      ['a'],
    );
    assert.deepEqual(
      best.items().map((item) => item.name),
      ['b', 'a'],
    );
  });
});
