/**
 * Decides when unfinished conversations are refreshed: often while someone is looking, rarely
 * when nobody is, never when nothing is unfinished. Pure scheduling: the refresh itself is a
 * callback and time comes from an injectable clock.
 */

export interface PollerClock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/**
 * Twice a second while someone is waiting for the answer, every 15 s otherwise. The settings
 * `deepSearch.pollInterval.*` contribute the same defaults (a unit test holds package.json to them).
 */
export const DEFAULT_POLL_INTERVALS = { watchedIntervalMs: 500, hiddenIntervalMs: 15_000 } as const;

export const systemClock: PollerClock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** What a refresh found: `finished` stops polling that conversation. */
export type RefreshOutcome = 'finished' | 'unfinished';

export interface ConversationPollerOptions {
  /** Fetches the conversation (and publishes it); rejects on failure. */
  refresh(id: number): Promise<RefreshOutcome>;
  /** Whether someone is looking at the conversation (a visible panel, a focused tree item…). */
  isWatched?(id: number): boolean;
  /** Called after each failed refresh; polling continues with backoff. */
  onError?(id: number, error: unknown, consecutiveFailures: number): void;
  clock?: PollerClock;
  /** Default `DEFAULT_POLL_INTERVALS`. */
  watchedIntervalMs?: number;
  /** Default `DEFAULT_POLL_INTERVALS`. */
  hiddenIntervalMs?: number;
  /** Longest wait after repeated failures. Default 60000 ms. */
  maxBackoffMs?: number;
}

interface TrackedConversation {
  /** When the last refresh ended (or tracking began). */
  lastRefreshAt: number;
  failures: number;
  timer?: unknown;
  dueAt?: number;
  /** The pending timer was asked for "as soon as possible", not set by the interval. */
  soon?: boolean;
  refreshing: boolean;
  /** A refresh was asked for while one was running: run another as soon as it ends. */
  refreshRequested: boolean;
  /** Untracked while refreshing: forget it when the refresh ends. */
  dropped: boolean;
}

export class ConversationPoller {
  private readonly tracked = new Map<number, TrackedConversation>();
  private readonly clock: PollerClock;
  private watchedIntervalMs: number;
  private hiddenIntervalMs: number;
  private readonly maxBackoffMs: number;
  private disposed = false;

  constructor(private readonly options: ConversationPollerOptions) {
    this.clock = options.clock ?? systemClock;
    this.watchedIntervalMs = options.watchedIntervalMs ?? DEFAULT_POLL_INTERVALS.watchedIntervalMs;
    this.hiddenIntervalMs = options.hiddenIntervalMs ?? DEFAULT_POLL_INTERVALS.hiddenIntervalMs;
    this.maxBackoffMs = options.maxBackoffMs ?? 60_000;
  }

  /** Starts polling a conversation; `refreshNow` for one restored after a reload. */
  track(id: number, options: { refreshNow?: boolean } = {}): void {
    if (this.disposed) {
      return;
    }
    const existing = this.tracked.get(id);
    if (existing) {
      existing.dropped = false;
      // A refresh running now may have fetched the state from before the caller's change.
      if (options.refreshNow || existing.refreshing) {
        this.refreshSoon(id);
      }
      return;
    }
    const entry: TrackedConversation = {
      lastRefreshAt: this.clock.now(),
      failures: 0,
      refreshing: false,
      refreshRequested: false,
      dropped: false,
    };
    this.tracked.set(id, entry);
    if (options.refreshNow) {
      this.setTimer(id, entry, 0, true);
    } else {
      this.schedule(id, entry);
    }
  }

  untrack(id: number): void {
    const entry = this.tracked.get(id);
    if (!entry) {
      return;
    }
    this.clearTimer(entry);
    if (entry.refreshing) {
      entry.dropped = true;
    } else {
      this.tracked.delete(id);
    }
  }

  isTracking(id: number): boolean {
    const entry = this.tracked.get(id);
    return !!entry && !entry.dropped;
  }

  get trackedIds(): number[] {
    return [...this.tracked].filter(([, entry]) => !entry.dropped).map(([id]) => id);
  }

  /** When the next refresh of `id` is due (clock time), or undefined if none is scheduled. */
  nextRefreshAt(id: number): number | undefined {
    return this.tracked.get(id)?.dueAt;
  }

  /** New intervals (from settings) apply to every conversation's next refresh. */
  setIntervals(intervals: { watchedIntervalMs: number; hiddenIntervalMs: number }): void {
    this.watchedIntervalMs = intervals.watchedIntervalMs;
    this.hiddenIntervalMs = intervals.hiddenIntervalMs;
    this.watchersChanged();
  }

  /** `isWatched` may answer differently now: reschedule, without postponing a refresh asked for soon. */
  watchersChanged(): void {
    for (const [id, entry] of this.tracked) {
      this.schedule(id, entry, { keepSooner: true });
    }
  }

  /** Refreshes as soon as possible, but never while a refresh of the same id is running. */
  refreshSoon(id: number): void {
    const entry = this.tracked.get(id);
    if (!entry || entry.dropped || this.disposed) {
      return;
    }
    if (entry.refreshing) {
      entry.refreshRequested = true;
    } else {
      this.setTimer(id, entry, 0, true);
    }
  }

  /**
   * What made refreshes fail may be mended (the user signed in again, the network is back): every
   * conversation in backoff is refreshed now, and its backoff forgotten.
   */
  retryFailed(): void {
    for (const [id, entry] of this.tracked) {
      if (entry.failures === 0) continue;
      entry.failures = 0;
      this.refreshSoon(id);
    }
  }

  dispose(): void {
    this.disposed = true;
    for (const entry of this.tracked.values()) {
      this.clearTimer(entry);
    }
    this.tracked.clear();
  }

  private isWatched(id: number): boolean {
    return this.options.isWatched?.(id) ?? false;
  }

  /** The wait between refreshes: the base interval, doubled per consecutive failure up to the cap. */
  private intervalFor(id: number, failures: number): number {
    const base = this.isWatched(id) ? this.watchedIntervalMs : this.hiddenIntervalMs;
    if (failures === 0) {
      return base;
    }
    return Math.min(Math.max(this.maxBackoffMs, base), base * 2 ** failures);
  }

  /** (Re)arms the timer from the last refresh: an overdue refresh under a shorter interval runs now. */
  /** `keepSooner`: a refresh asked for with `refreshSoon` (or `track(…, {refreshNow})`) is not postponed. */
  private schedule(id: number, entry: TrackedConversation, options: { keepSooner?: boolean } = {}): void {
    if (entry.refreshing || entry.dropped || this.disposed) {
      return;
    }
    const dueAt = entry.lastRefreshAt + this.intervalFor(id, entry.failures);
    if (options.keepSooner && entry.timer !== undefined && entry.soon) {
      return;
    }
    this.setTimer(id, entry, Math.max(0, dueAt - this.clock.now()));
  }

  private setTimer(id: number, entry: TrackedConversation, delayMs: number, soon = false): void {
    this.clearTimer(entry);
    entry.soon = soon;
    entry.dueAt = this.clock.now() + delayMs;
    entry.timer = this.clock.setTimeout(() => {
      entry.timer = undefined;
      entry.dueAt = undefined;
      void this.run(id, entry);
    }, delayMs);
  }

  private clearTimer(entry: TrackedConversation): void {
    if (entry.timer !== undefined) {
      this.clock.clearTimeout(entry.timer);
      entry.timer = undefined;
    }
    entry.dueAt = undefined;
  }

  private async run(id: number, entry: TrackedConversation): Promise<void> {
    if (entry.refreshing || this.disposed || this.tracked.get(id) !== entry) {
      return;
    }
    entry.refreshing = true;
    let outcome: RefreshOutcome = 'unfinished';
    try {
      outcome = await this.options.refresh(id);
      entry.failures = 0;
    } catch (error) {
      entry.failures++;
      try {
        this.options.onError?.(id, error, entry.failures);
      } catch {
        // A faulty listener must not stop polling.
      }
    }
    entry.refreshing = false;
    entry.lastRefreshAt = this.clock.now();
    if (this.disposed || this.tracked.get(id) !== entry) {
      return;
    }
    if (entry.dropped) {
      this.tracked.delete(id);
    } else if (entry.refreshRequested) {
      entry.refreshRequested = false;
      this.setTimer(id, entry, 0, true);
    } else if (outcome === 'finished') {
      this.tracked.delete(id);
    } else {
      this.schedule(id, entry);
    }
  }
}
