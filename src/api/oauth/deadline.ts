/**
 * A sign-in waits for a person (a browser tab, a code typed on another device): until they finish,
 * cancel, or the time allowed runs out. No `vscode` import.
 */
import { DeepSearchError, isDeepSearchError } from '../errors';

/**
 * Runs `wait` with a signal that aborts when `cancel` does or `timeoutMs` passes. Resolves to its
 * value, or undefined when the person cancelled; rejects with a `timeout` error saying
 * `timeoutMessage` when the time ran out (its own failures pass through).
 */
export async function untilDeadline<T>(
  wait: (signal: AbortSignal) => Promise<T>,
  options: { cancel: AbortSignal; timeoutMs: number; timeoutMessage: string },
): Promise<T | undefined> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), options.timeoutMs);
  try {
    return await wait(AbortSignal.any([options.cancel, deadline.signal]));
  } catch (error) {
    if (options.cancel.aborted) return undefined;
    if (deadline.signal.aborted && (!isDeepSearchError(error) || error.kind === 'canceled')) throw new DeepSearchError('timeout', options.timeoutMessage);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
