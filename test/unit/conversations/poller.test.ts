import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  ConversationPoller,
  DEFAULT_POLL_INTERVALS,
  type ConversationPollerOptions,
  type PollerClock,
  type RefreshOutcome,
} from '../../../src/conversations/poller';

/** A clock whose time moves only when the test says so; timers fire in order, promises settle between. */
class FakeClock implements PollerClock {
  private time = 0;
  private nextHandle = 1;
  private readonly timers = new Map<number, { at: number; callback: () => void }>();

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const handle = this.nextHandle++;
    this.timers.set(handle, { at: this.time + ms, callback });
    return handle;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  get pendingTimers(): number {
    return this.timers.size;
  }

  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    await settle();
    for (;;) {
      const due = [...this.timers].filter(([, timer]) => timer.at <= end).sort(([a, x], [b, y]) => x.at - y.at || a - b)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.time = due[1].at;
      due[1].callback();
      await settle();
    }
    this.time = end;
  }
}

function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function deferred<T>(): { promise: Promise<T>; resolve(value: T): void; reject(error: unknown): void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('ConversationPoller', () => {
  let clock: FakeClock;
  let calls: Array<{ id: number; at: number }>;
  let poller: ConversationPoller | undefined;

  beforeEach(() => {
    clock = new FakeClock();
    calls = [];
  });

  afterEach(() => {
    poller?.dispose();
    poller = undefined;
  });

  function start(
    outcome: (id: number, call: number) => RefreshOutcome | Promise<RefreshOutcome>,
    options: Partial<ConversationPollerOptions> = {},
  ): ConversationPoller {
    poller = new ConversationPoller({
      clock,
      // Round intervals for readable schedules; the defaults have a test of their own.
      watchedIntervalMs: 1000,
      hiddenIntervalMs: 10_000,
      refresh: async (id) => {
        calls.push({ id, at: clock.now() });
        return outcome(id, calls.filter((call) => call.id === id).length);
      },
      ...options,
    });
    return poller;
  }

  const times = (id = 1) => calls.filter((call) => call.id === id).map((call) => call.at);

  it('contributes the same defaults as settings (package.json) as it uses itself', () => {
    const manifest = JSON.parse(readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
      contributes: { configuration: { properties: Record<string, { default?: unknown }> } };
    };
    const properties = manifest.contributes.configuration.properties;
    assert.deepEqual(
      { watchedIntervalMs: properties['deepSearch.pollInterval.visible']?.default, hiddenIntervalMs: properties['deepSearch.pollInterval.hidden']?.default },
      DEFAULT_POLL_INTERVALS,
    );
  });

  it('defaults to twice a second while watched and every fifteen seconds while hidden', async () => {
    poller = new ConversationPoller({
      clock,
      refresh: async (id) => {
        calls.push({ id, at: clock.now() });
        return 'unfinished';
      },
      isWatched: (id) => id === 1,
    });
    poller.track(1);
    poller.track(2);
    await clock.advance(30_500);
    assert.deepEqual(times(1).slice(0, 3), [500, 1000, 1500]);
    assert.deepEqual(times(2), [15_000, 30_000]);
  });

  it('refreshes a watched conversation every second', async () => {
    start(() => 'unfinished', { isWatched: () => true }).track(1);
    await clock.advance(3500);
    assert.deepEqual(times(), [1000, 2000, 3000]);
  });

  it('refreshes a conversation nobody is looking at every ten seconds', async () => {
    start(() => 'unfinished', { isWatched: () => false }).track(1);
    await clock.advance(25_000);
    assert.deepEqual(times(), [10_000, 20_000]);
  });

  it('takes its intervals from the options', async () => {
    start(() => 'unfinished', { watchedIntervalMs: 300, hiddenIntervalMs: 700, isWatched: (id) => id === 1 });
    poller!.track(1);
    poller!.track(2);
    await clock.advance(1500);
    assert.deepEqual(times(1), [300, 600, 900, 1200, 1500]);
    assert.deepEqual(times(2), [700, 1400]);
  });

  it('applies new intervals to the next refresh', async () => {
    const poller = start(() => 'unfinished', { isWatched: () => false });
    poller.track(1);
    await clock.advance(10_000);
    poller.setIntervals({ watchedIntervalMs: 500, hiddenIntervalMs: 3000 });
    await clock.advance(6500);
    assert.deepEqual(times(), [10_000, 13_000, 16_000]);
  });

  it('schedules nothing while nothing is unfinished', async () => {
    const poller = start((id) => (id === 1 ? 'finished' : 'unfinished'), { isWatched: () => true });
    assert.equal(clock.pendingTimers, 0, 'nothing before anything is tracked');
    poller.track(1);
    poller.track(2);
    await clock.advance(1000);
    poller.untrack(2);
    assert.equal(clock.pendingTimers, 0, 'one finished, the other untracked: no timer left');
    const before = calls.length;
    await clock.advance(60_000);
    assert.equal(calls.length, before);
  });

  it('stops polling a conversation once a refresh finds it finished', async () => {
    const poller = start((_id, call) => (call === 2 ? 'finished' : 'unfinished'), { isWatched: () => true });
    poller.track(1);
    await clock.advance(10_000);
    assert.deepEqual(times(), [1000, 2000]);
    assert.equal(poller.isTracking(1), false);
    assert.deepEqual(poller.trackedIds, []);
    assert.equal(clock.pendingTimers, 0);
  });

  it('backs off exponentially after failed refreshes, up to the cap, and recovers', async () => {
    const failures: number[] = [];
    start((_id, call) => (call <= 4 ? Promise.reject(new Error('503')) : 'unfinished'), {
      isWatched: () => true,
      maxBackoffMs: 10_000,
      onError: (_id, _error, consecutive) => failures.push(consecutive),
    }).track(1);
    await clock.advance(40_000);
    // Waits: 1 s, then 2, 4, 8, 10 (capped) after failures 1–4, then 1 s again after the success.
    assert.deepEqual(times().slice(0, 7), [1000, 3000, 7000, 15_000, 25_000, 26_000, 27_000]);
    assert.deepEqual(failures, [1, 2, 3, 4]);
  });

  it('retries a conversation in backoff at once when told the cause may be mended, then polls at its interval', async () => {
    const failing = { now: true };
    const started = start(() => (failing.now ? Promise.reject(new Error('401')) : 'unfinished'), { isWatched: () => false, maxBackoffMs: 60_000 });
    started.track(1);
    started.track(2);
    await clock.advance(30_000);
    // Hidden: 10 s, then 20 s after the first failure: the next try would be at 70 s.
    assert.deepEqual(times(1), [10_000, 30_000]);
    failing.now = false;
    started.retryFailed();
    await clock.advance(0);
    assert.deepEqual(times(1), [10_000, 30_000, 30_000]);
    assert.deepEqual(times(2), [10_000, 30_000, 30_000]);
    await clock.advance(10_000);
    assert.deepEqual(times(1), [10_000, 30_000, 30_000, 40_000], 'back to the plain interval');
  });

  it('leaves conversations that are not failing on their schedule when failures are retried', async () => {
    start(() => 'unfinished', { isWatched: () => false }).track(1);
    await clock.advance(5000);
    poller!.retryFailed();
    await clock.advance(5000);
    assert.deepEqual(times(), [10_000]);
  });

  it('keeps polling when the error listener itself throws', async () => {
    start(() => Promise.reject(new Error('down')), {
      isWatched: () => true,
      onError: () => {
        throw new Error('listener bug');
      },
    }).track(1);
    await clock.advance(7000);
    assert.deepEqual(times(), [1000, 3000, 7000]);
  });

  it('refreshes at once when a panel opens on a conversation that is overdue under the faster interval', async () => {
    let visible = false;
    const poller = start(() => 'unfinished', { isWatched: () => visible });
    poller.track(1);
    await clock.advance(3000);
    assert.deepEqual(times(), []);
    visible = true;
    poller.watchersChanged();
    await clock.advance(0);
    assert.deepEqual(times(), [3000]);
    await clock.advance(1000);
    assert.deepEqual(times(), [3000, 4000]);
  });

  it('slows down when the panel is hidden again', async () => {
    let visible = true;
    const poller = start(() => 'unfinished', { isWatched: () => visible });
    poller.track(1);
    await clock.advance(1500);
    assert.deepEqual(times(), [1000]);
    visible = false;
    poller.watchersChanged();
    assert.equal(poller.nextRefreshAt(1), 11_000);
    await clock.advance(20_000);
    assert.deepEqual(times(), [1000, 11_000, 21_000]);
  });

  it('re-evaluates the watched predicate when told that watchers changed', async () => {
    let visible = false;
    const poller = start(() => 'unfinished', { isWatched: () => visible });
    poller.track(1);
    await clock.advance(500);
    visible = true;
    poller.watchersChanged();
    assert.equal(poller.nextRefreshAt(1), 1000);
    await clock.advance(600);
    assert.deepEqual(times(), [1000]);
  });

  it('never runs two refreshes of the same conversation at once', async () => {
    const slow = deferred<RefreshOutcome>();
    let running = 0;
    let maxRunning = 0;
    const poller = start(
      async (_id, call) => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        try {
          return call === 1 ? await slow.promise : 'unfinished';
        } finally {
          running--;
        }
      },
      { isWatched: () => true },
    );
    poller.track(1);
    await clock.advance(5000);
    poller.refreshSoon(1);
    poller.watchersChanged();
    poller.track(1);
    await clock.advance(5000);
    assert.deepEqual(times(), [1000], 'still waiting on the first refresh');
    slow.resolve('unfinished');
    await clock.advance(0);
    assert.deepEqual(times(), [1000, 10_000], 'the refresh asked for meanwhile runs right after');
    assert.equal(maxRunning, 1);
  });

  it('keeps polling a conversation tracked again while a refresh that saw it finished was running', async () => {
    const slow = deferred<RefreshOutcome>();
    const poller = start((_id, call) => (call === 1 ? slow.promise : 'unfinished'), { isWatched: () => true });
    poller.track(1);
    await clock.advance(1000);
    poller.track(1); // e.g. a follow-up was just added
    slow.resolve('finished');
    await clock.advance(0);
    assert.equal(poller.isTracking(1), true);
    await clock.advance(1000);
    assert.deepEqual(times(), [1000, 1000, 2000]);
  });

  it('refreshes at once a conversation restored after a reload', async () => {
    start(() => 'unfinished').track(1, { refreshNow: true });
    await clock.advance(0);
    assert.deepEqual(times(), [0]);
  });

  it("does not postpone a restored conversation's immediate refresh when watchers change", async () => {
    const poller = start(() => 'unfinished', { isWatched: () => false });
    poller.track(1, { refreshNow: true });
    poller.watchersChanged();
    await clock.advance(0);
    assert.deepEqual(times(), [0]);
  });

  it('stops polling an untracked conversation, even mid-refresh', async () => {
    const slow = deferred<RefreshOutcome>();
    const poller = start((_id, call) => (call === 1 ? slow.promise : 'unfinished'), { isWatched: () => true });
    poller.track(1);
    await clock.advance(1000);
    poller.untrack(1);
    slow.resolve('unfinished');
    await clock.advance(10_000);
    assert.deepEqual(times(), [1000]);
    assert.equal(clock.pendingTimers, 0);
  });

  it('clears every timer on dispose and ignores refreshes that end afterwards', async () => {
    const slow = deferred<RefreshOutcome>();
    const poller = start((id) => (id === 1 ? slow.promise : 'unfinished'), { isWatched: () => true });
    poller.track(1);
    poller.track(2);
    await clock.advance(1000);
    poller.dispose();
    assert.equal(clock.pendingTimers, 0);
    slow.resolve('unfinished');
    await clock.advance(10_000);
    poller.track(3);
    await clock.advance(10_000);
    assert.equal(clock.pendingTimers, 0);
    assert.deepEqual(
      calls.map((call) => call.id),
      [1, 2],
    );
  });
});
