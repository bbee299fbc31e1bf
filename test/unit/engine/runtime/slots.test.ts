import assert from 'node:assert/strict';
import { Slots } from '../../../../src/engine/runtime/slots';

describe('engine: Slots (work at once)', function () {
  it('runs up to the limit at once and starts the rest in arrival order as slots free', async function () {
    const slots = new Slots(2);
    const log: string[] = [];
    const gates = new Map<number, () => void>();
    const task = (id: number) => () =>
      new Promise<void>((resolve) => {
        log.push(`start ${id}`);
        gates.set(id, () => {
          log.push(`end ${id}`);
          resolve();
        });
      });
    const queuedAhead: number[] = [];
    const runs = [1, 2, 3, 4].map((id) => slots.run(task(id), undefined, (ahead) => queuedAhead.push(ahead)));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(log, ['start 1', 'start 2']);
    assert.deepEqual(queuedAhead, [0, 1], 'the third is next, the fourth has one ahead');
    assert.equal(slots.queued, 2);
    gates.get(2)!();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(log, ['start 1', 'start 2', 'end 2', 'start 3']);
    gates.get(1)!();
    gates.get(3)!();
    await new Promise((resolve) => setImmediate(resolve));
    gates.get(4)!();
    await Promise.all(runs);
    assert.deepEqual(log, ['start 1', 'start 2', 'end 2', 'start 3', 'end 1', 'end 3', 'start 4', 'end 4']);
    assert.equal(slots.queued, 0);
  });

  it('frees the slot of a task that throws, and drops a waiter whose signal aborts', async function () {
    const slots = new Slots(1);
    await assert.rejects(
      slots.run(async () => Promise.reject(new Error('boom'))),
      /boom/,
    );
    let releaseFirst!: () => void;
    const first = slots.run(() => new Promise<void>((resolve) => (releaseFirst = resolve)));
    const controller = new AbortController();
    const waiting = slots.run(async () => 'never', controller.signal);
    assert.equal(slots.queued, 1);
    controller.abort(new Error('cancelled'));
    await assert.rejects(waiting, /cancelled/);
    assert.equal(slots.queued, 0);
    const third = slots.run(async () => 'ran');
    releaseFirst();
    await first;
    assert.equal(await third, 'ran');
  });
});
