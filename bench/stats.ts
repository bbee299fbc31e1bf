/** Order statistics for benchmark samples (no averages: they hide the tail). */

/** The value below which `p` (0–1) of the samples fall, by the nearest-rank method. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length)));
  return sorted[rank - 1];
}

export function median(samples: readonly number[]): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export interface Summary {
  median: number;
  p95: number;
  min: number;
  max: number;
  n: number;
}

export function summarize(samples: readonly number[]): Summary {
  return {
    median: median(samples),
    p95: percentile(samples, 0.95),
    min: samples.length ? Math.min(...samples) : Number.NaN,
    max: samples.length ? Math.max(...samples) : Number.NaN,
    n: samples.length,
  };
}

/** Runs `body` `runs` times after `warmup` unmeasured runs and returns the times in milliseconds. */
export async function timeRuns(runs: number, body: () => unknown, warmup = 1): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await body();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await body();
    times.push(performance.now() - started);
  }
  return times;
}
