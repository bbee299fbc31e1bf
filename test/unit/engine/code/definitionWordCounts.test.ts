/**
 * In how many of a commit's definitions each word is (src/engine/code/definitionWordCounts.ts):
 * counted once per definition, bounded while counting and when kept, and read back from disk only
 * when whole.
 */
import assert from 'node:assert/strict';
import { countsFromStored, DefinitionWordCounter, storedCounts } from '../../../../src/engine/code/definitionWordCounts';

describe('definition word counts', function () {
  it('counts a word once per definition that holds it, however often it says it', function () {
    const counter = new DefinitionWordCounter();
    counter.add({ words: ['ledger', 'ledger', 'post'], length: 5 });
    counter.add({ words: ['ledger'], length: 2 });
    counter.add({ words: ['quarantin'], length: 1 });
    const counts = counter.done();
    assert.deepEqual([counts.definitions, counts.length], [3, 8]);
    assert.deepEqual([counts.frequency('ledger'), counts.frequency('post'), counts.frequency('quarantin')], [2, 1, 1]);
    assert.equal(counts.frequency('absent'), 0, 'every word was kept: one not kept is in no definition');
  });

  it('holds a bounded number of words while counting and when kept, the rarest let go and said to be at most that rare', function () {
    const counter = new DefinitionWordCounter(100, 40);
    for (let at = 0; at < 50; at++) counter.add({ words: ['common', `shared${at % 10}`], length: 2 });
    for (let at = 0; at < 1_000; at++) counter.add({ words: [`rare${at}`], length: 1 });
    const counts = counter.done();
    assert.ok(counts.size <= 40, `kept ${counts.size}`);
    assert.equal(counts.frequency('common'), 50);
    assert.equal(counts.frequency('shared3'), 5);
    assert.ok(counts.floor >= 1, 'words let go are said to be in up to `floor` definitions');
    assert.equal(counts.frequency('rare5'), counts.floor);
    assert.equal(counts.definitions, 1_050);
  });

  it('reads stored counts back whole, and refuses damaged ones', function () {
    const counter = new DefinitionWordCounter();
    counter.add({ words: ['ledger', 'post'], length: 4 });
    counter.add({ words: ['ledger'], length: 1 });
    const stored = JSON.parse(JSON.stringify(storedCounts(counter.done()))) as unknown;
    const read = countsFromStored(stored);
    assert.deepEqual([read?.definitions, read?.length, read?.frequency('ledger'), read?.frequency('post')], [2, 5, 2, 1]);
    for (const damaged of [null, [2, 5, 0], [2, 5, 0, [['ledger', 3]]], [2, 5, 0, [['', 1]]], [2, -1, 0, []], [2, 5, 0, [['x'.repeat(65), 1]]]])
      assert.equal(countsFromStored(damaged), undefined, JSON.stringify(damaged));
  });
});
