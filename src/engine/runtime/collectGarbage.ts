/**
 * A full garbage collection of the engine's thread, asked for after rare events that leave tens of
 * megabytes behind (a repository's index and filter built, an old index let go). V8 gives idle
 * memory back only after a major collection, and an engine that then sits idle may not run one for
 * a long time: its memory would stay at the build's level. Where the collector cannot be reached,
 * nothing happens.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | null | undefined;

/** Whether a collection ran. */
export function collectGarbage(): boolean {
  if (collect === undefined) {
    try {
      // The flag makes `gc` a global of contexts created from now on: one is made to take it from.
      setFlagsFromString('--expose-gc');
      const found: unknown = runInNewContext('typeof gc === "function" ? gc : null');
      collect = typeof found === 'function' ? (found as () => void) : null;
    } catch {
      collect = null;
    }
  }
  collect?.();
  return collect !== null;
}
