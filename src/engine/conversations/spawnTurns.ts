/**
 * Starting a process blocks Node's event loop until the child has replaced itself with the program:
 * the OS copies the process (longer the larger it is, as the extension host is), and on a busy
 * machine the child may wait for a CPU first; milliseconds to tens of milliseconds each. When many
 * answers reach a git step in the same turn of the loop, their starts would run back to back and
 * hold every HTTP request behind them.
 * `SpawnTurns` lets one start through per turn of the event loop, in the order asked, so network
 * I/O is served between any two.
 */
export class SpawnTurns {
  private readonly waiting: Array<{ admit: () => void; signal: AbortSignal | undefined; onAbort: () => void }> = [];
  /** True from an admission until the next turn of the event loop. */
  private turnTaken = false;

  /**
   * Resolves when the caller may start its process: at once when no other start happened in this
   * turn, else in a later turn after everyone who asked earlier. Rejects with the signal's reason
   * if it aborts first. Start the process synchronously after this resolves.
   */
  take(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (!this.turnTaken) {
      this.admitted();
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const entry = {
        signal,
        admit: () => {
          signal?.removeEventListener('abort', entry.onAbort);
          resolve();
        },
        onAbort: () => {
          const index = this.waiting.indexOf(entry);
          if (index >= 0) this.waiting.splice(index, 1);
          reject(signal?.reason);
        },
      };
      signal?.addEventListener('abort', entry.onAbort, { once: true });
      this.waiting.push(entry);
    });
  }

  /** How many callers wait for a turn. */
  get queued(): number {
    return this.waiting.length;
  }

  private admitted(): void {
    this.turnTaken = true;
    setImmediate(() => this.nextTurn());
  }

  private nextTurn(): void {
    this.turnTaken = false;
    const next = this.waiting.shift();
    if (!next) return;
    this.admitted();
    next.admit();
  }
}
