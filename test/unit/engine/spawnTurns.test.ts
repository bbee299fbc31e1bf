import assert from 'node:assert/strict';
import { SpawnTurns } from '../../../src/engine/conversations/spawnTurns';

/** Resolves after every immediate queued so far has run (one check phase of the event loop). */
const nextCheckPhase = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('spawn turns', function () {
  it('admits the first caller at once and the others in later turns, in the order they asked', async function () {
    const turns = new SpawnTurns();
    const admitted: number[] = [];
    const all = [1, 2, 3].map((caller) => turns.take().then(() => admitted.push(caller)));
    await Promise.resolve();
    assert.deepEqual(admitted, [1]);
    assert.equal(turns.queued, 2);
    await nextCheckPhase();
    assert.deepEqual(admitted, [1, 2]);
    await Promise.all(all);
    assert.deepEqual(admitted, [1, 2, 3]);
    assert.equal(turns.queued, 0);
  });

  it('never admits two callers in the same turn of the event loop', async function () {
    const turns = new SpawnTurns();
    const events: string[] = [];
    let ticking = true;
    const tick = (): void => {
      events.push('turn');
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    await Promise.all(Array.from({ length: 5 }, (_, index) => turns.take().then(() => events.push(`start ${index}`))));
    ticking = false;
    const starts = events.map((event, index) => [event, index] as const).filter(([event]) => event.startsWith('start'));
    assert.equal(starts.length, 5);
    for (let index = 1; index < starts.length; index++) {
      const between = events.slice((starts[index - 1]?.[1] ?? 0) + 1, starts[index]?.[1]);
      assert.ok(between.includes('turn'), `a turn passed between ${starts[index - 1]?.[0]} and ${starts[index]?.[0]}: ${events.join(', ')}`);
    }
  });

  it('drops a waiting caller whose signal aborts, rejecting with its reason, and goes on with the rest', async function () {
    const turns = new SpawnTurns();
    await turns.take();
    const controller = new AbortController();
    const cancelled = turns.take(controller.signal);
    const after = turns.take();
    controller.abort();
    await assert.rejects(cancelled, (error: unknown) => error instanceof Error && error.name === 'AbortError');
    assert.equal(turns.queued, 1);
    await after;
    assert.equal(turns.queued, 0);
  });

  it('rejects at once when the signal has already aborted', async function () {
    const turns = new SpawnTurns();
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(turns.take(controller.signal), (error: unknown) => error instanceof Error && error.name === 'AbortError');
    assert.equal(turns.queued, 0);
  });
});
