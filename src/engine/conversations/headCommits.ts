/**
 * The commit each answer searches: HEAD, resolved after the question was asked. Questions that wait
 * for their turn to start a process (see `spawnTurns.ts`) at the same time share one resolution of
 * a repository's HEAD, which starts after all of them asked, so each still sees HEAD as of its
 * own question or later, and a busy engine starts fewer processes.
 */
import type { ServedRepository } from '../repos';
import type { SpawnTurns } from './spawnTurns';

/** Resolves HEAD with git; undefined for a repository without commits. */
export type ResolveHead = (repo: ServedRepository) => Promise<string | undefined>;

export class HeadCommits {
  /** Per repository folder: the resolution waiting for its turn, which later askers join. */
  private readonly waiting = new Map<string, Promise<string | undefined>>();

  constructor(
    private readonly turns: SpawnTurns,
    private readonly resolveHead: ResolveHead,
  ) {}

  /** HEAD's commit as of this call or later; rejects with the signal's reason if it aborts first. */
  resolve(repo: ServedRepository, signal: AbortSignal): Promise<string | undefined> {
    if (signal.aborted) return Promise.reject(signal.reason);
    let shared = this.waiting.get(repo.dir);
    if (!shared) {
      shared = this.startWhenItsTurn(repo);
      this.waiting.set(repo.dir, shared);
    }
    return untilAborted(shared, signal);
  }

  private async startWhenItsTurn(repo: ServedRepository): Promise<string | undefined> {
    await this.turns.take();
    // Starting now: whoever asks from here on needs a resolution that starts after them.
    this.waiting.delete(repo.dir);
    return this.resolveHead(repo);
  }
}

/** `promise`, or the signal's reason once it aborts; the shared work goes on for the others. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
