/** Waits `ms`, or rejects with a `canceled` error as soon as `signal` aborts. No `vscode` import. */
import { canceledError } from './errors';

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(canceledError());
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(canceledError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
