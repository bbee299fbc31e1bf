/**
 * Long loops on the engine's one thread that let other work in between: a search that matches a
 * hundred thousand files must not hold up, for a second, a request that costs a millisecond.
 */

/** Longest stretch a loop runs before the event loop gets a turn. */
const TURN_MS = 8;
/** Items between looks at the clock. */
const ITEMS_BETWEEN_LOOKS = 512;

/** Calls `each` for every item in order, giving the event loop a turn at least every few milliseconds. */
export async function forEachInTurns<T>(items: Iterable<T>, each: (item: T, index: number) => void): Promise<void> {
  let index = 0;
  let turnStarted = performance.now();
  for (const item of items) {
    each(item, index);
    index++;
    if (index % ITEMS_BETWEEN_LOOKS === 0 && performance.now() - turnStarted >= TURN_MS) {
      await nextTurn();
      turnStarted = performance.now();
    }
  }
}

/** Resolves once the event loop has served what was waiting (I/O included). */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
