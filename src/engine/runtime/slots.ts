/**
 * A bound on work running at once (answers, tool calls): past the limit, work waits its turn in
 * arrival order, so a burst costs time instead of memory and event-loop stalls.
 */
export class Slots {
  private running = 0;
  private readonly waiting: Array<{ start: () => void }> = [];

  constructor(readonly limit: number) {}

  /** How many are waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Resolves with `release` once a slot is free; `onQueued(ahead)` is told how many wait before it
   * when it must wait. Rejects (leaving the queue) if `signal` aborts first.
   */
  take(signal?: AbortSignal, onQueued?: (ahead: number) => void): Promise<() => void> {
    signal?.throwIfAborted();
    const release = this.releaser();
    if (this.running < this.limit) {
      this.running++;
      return Promise.resolve(release);
    }
    onQueued?.(this.waiting.length);
    return new Promise((resolve, reject) => {
      const entry = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          this.running++;
          resolve(release);
        },
      };
      const onAbort = (): void => {
        this.waiting.splice(this.waiting.indexOf(entry), 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(entry);
    });
  }

  /** Runs `task` in a slot. */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal, onQueued?: (ahead: number) => void): Promise<T> {
    const release = await this.take(signal, onQueued);
    try {
      return await task();
    } finally {
      release();
    }
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      this.waiting.shift()?.start();
    };
  }
}
