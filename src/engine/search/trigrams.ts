/**
 * Trigram tables: which blocks of text hold each trigram (bytes, ASCII letters folded to lower
 * case, never across a newline), through a hash of `bucketBits` bits; a block is a run of lines of
 * the index's text, or one file of the on-disk filter. Two trigrams may share a
 * bucket: that only makes a block a candidate needlessly, never hides one. The search index's
 * in-memory n-gram filter (searchWorkerThread.ts) and the on-disk filter of whole trees
 * (gramFilter.ts) are both built with `gramTable` and read with `gramBucket`.
 */

/** Hash bits of the bucket a trigram goes to (2^18 buckets). */
export const GRAM_BUCKET_BITS = 18;

export interface GramTable {
  /** Hashes `bytes[from, to)` into the current block; a trigram may span calls (a file read in chunks). */
  add(bytes: Uint8Array, from: number, to: number): void;
  /** No trigram spans this point (a file starts). */
  restart(): void;
  /** Closes the current block: what follows goes to the next. */
  endBlock(): void;
  /**
   * Each bucket's blocks, in order: `postings[offsets[b] .. offsets[b + 1])` for bucket b. The
   * pair arrays are handed to `release` first (their memory can go at once).
   */
  finish(release?: (buffers: ArrayBuffer[]) => void): { offsets: Int32Array<ArrayBuffer>; postings: Uint16Array<ArrayBuffer> | Int32Array<ArrayBuffer> };
}

/**
 * A table under construction. `wide`: block numbers may pass 65,535 (otherwise they are kept in
 * 16 bits, half the memory).
 */
export function gramTable(bucketBits: number, wide: boolean): GramTable {
  const buckets = 1 << bucketBits;
  const shift = 32 - bucketBits;
  const folded = new Uint8Array(256);
  for (let byte = 0; byte < 256; byte++) folded[byte] = byte >= 65 && byte <= 90 ? byte + 32 : byte;
  // Which block last listed each bucket: a block lists a bucket once.
  const seen = new Int32Array(buckets).fill(-1);
  let pairBuckets = new Int32Array(1 << 16);
  let pairBlocks: Int32Array | Uint16Array = wide ? new Int32Array(1 << 16) : new Uint16Array(1 << 16);
  let pairs = 0;
  let block = 0;
  let key = 0;
  let run = 0;
  return {
    add(bytes, from, to) {
      for (let at = from; at < to; at++) {
        const byte = bytes[at];
        if (byte === 10) {
          run = 0;
          continue;
        }
        key = ((key << 8) | folded[byte]) & 0xffffff;
        if (++run < 3) continue;
        const bucket = Math.imul(key, 0x9e3779b1) >>> shift;
        if (seen[bucket] === block) continue;
        seen[bucket] = block;
        if (pairs === pairBuckets.length) {
          const moreBuckets = new Int32Array(pairs * 2);
          moreBuckets.set(pairBuckets);
          pairBuckets = moreBuckets;
          const moreBlocks = wide ? new Int32Array(pairs * 2) : new Uint16Array(pairs * 2);
          moreBlocks.set(pairBlocks);
          pairBlocks = moreBlocks;
        }
        pairBuckets[pairs] = bucket;
        pairBlocks[pairs++] = block;
      }
    },
    restart() {
      run = 0;
    },
    endBlock() {
      block++;
      run = 0;
    },
    finish(release) {
      // A counting sort of the (bucket, block) pairs by bucket: blocks stay in order within each.
      const offsets = new Int32Array(buckets + 1);
      for (let at = 0; at < pairs; at++) offsets[pairBuckets[at] + 1]++;
      for (let bucket = 0; bucket < buckets; bucket++) offsets[bucket + 1] += offsets[bucket];
      const postings = wide ? new Int32Array(pairs) : new Uint16Array(pairs);
      const filled = offsets.slice(0, buckets);
      for (let at = 0; at < pairs; at++) postings[filled[pairBuckets[at]]++] = pairBlocks[at];
      release?.([pairBuckets.buffer, pairBlocks.buffer as ArrayBuffer]);
      pairBuckets = new Int32Array(0);
      pairBlocks = new Int32Array(0);
      return { offsets, postings };
    },
  };
}

/** The bucket of the trigram of three bytes (each already folded: lower-case ASCII letters). */
export function gramBucket(first: number, second: number, third: number, bucketBits: number): number {
  return Math.imul((first << 16) | (second << 8) | third, 0x9e3779b1) >>> (32 - bucketBits);
}
