import * as assert from 'node:assert/strict';
import { IndexCounts } from '../../../../src/engine/search/indexCounts';

describe('IndexCounts', function () {
  const paths = Array.from({ length: 50 }, (_, at) => `src/f${at}.ts`);
  const numbers = new Map(paths.map((path, at) => [path, at]));

  it('reads as the Map of the same counts would: sizes, lookups, order', function () {
    for (const every of [1, 2, 7, 50]) {
      const held = paths.map((_, at) => at).filter((at) => at % every === 0);
      const pairs = Int32Array.from(held.flatMap((at) => [at, at + 1]));
      const counts = new IndexCounts(pairs, paths, numbers);
      const expected = new Map(held.map((at) => [paths[at], at + 1]));
      assert.equal(counts.size, expected.size);
      assert.deepEqual([...counts.entries()], [...expected.entries()]);
      assert.deepEqual([...counts.keys()], [...expected.keys()]);
      for (const path of [...paths, 'not/in/the/tree.ts']) {
        assert.equal(counts.get(path), expected.get(path), path);
        assert.equal(counts.has(path), expected.has(path), path);
      }
    }
  });

  it('holds nothing when the worker found nothing', function () {
    const counts = new IndexCounts(new Int32Array(0), paths, numbers);
    assert.equal(counts.size, 0);
    assert.equal(counts.get('src/f0.ts'), undefined);
    assert.deepEqual([...counts.keys()], []);
  });
});
