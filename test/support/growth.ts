/**
 * How a piece of work's time grows from size n to 4n (or another multiple), for tests of "linear
 * time" that hold on a slow or busy machine: no time is compared with a limit, only the two sizes
 * with each other. Linear work grows about 4 times, quadratic 16 times, a backtracking one far more.
 */
import { performance } from 'node:perf_hooks';

export interface Growth {
  /** The fastest run at size n, in milliseconds. */
  small: number;
  /** The fastest run at size `times` n, in milliseconds. */
  large: number;
  /** How many times n the large size is. */
  times: number;
  /** large / small. */
  factor: number;
}

/**
 * Runs `work` at sizes n and `times` n (4 unless told), alternating, `runs` times each, and keeps
 * the fastest run of each size: a pause of the machine (other processes, a garbage collection) only
 * ever slows a run down.
 */
export async function growthFrom(n: number, work: (size: number) => unknown, runs = 3, times = 4): Promise<Growth> {
  let small = Infinity;
  let large = Infinity;
  for (let run = 0; run < runs; run++) {
    small = Math.min(small, await timed(() => work(n)));
    large = Math.min(large, await timed(() => work(times * n)));
  }
  return { small, large, times, factor: large / Math.max(small, 0.001) };
}

async function timed(work: () => unknown): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** A message for an assertion on growth. */
export function describeGrowth(growth: Growth, n: number): string {
  return `${n}: ${growth.small.toFixed(1)} ms, ${growth.times * n}: ${growth.large.toFixed(1)} ms (${growth.factor.toFixed(1)} times)`;
}
