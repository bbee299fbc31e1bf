/**
 * The index's n-gram filter: the text is cut into blocks of about BLOCK_BYTES, each starting at a
 * line start (a match never spans lines, so it lies within one block), and every trigram of a line
 * (ASCII letters folded to lower case) lists the blocks that hold it, through a hash of
 * GRAM_BUCKET_BITS bits (two trigrams may share a list: that only makes a block a candidate
 * needlessly). A search reads only the blocks that hold every trigram of the text its matches must
 * contain (literalQuery.ts).
 */
import type { RequiredText } from './literalQuery';
import { releaseBuffers } from './releaseBuffers';
import { GRAM_BUCKET_BITS, gramBucket, gramTable } from './trigrams';

const BLOCK_BYTES = 64 * 1024;

export class BlockFilter {
  /** Where each block starts, and where the last ends. */
  readonly blockStarts: Int32Array;
  readonly blockCount: number;
  /** Per trigram bucket b, its blocks are `blocks[offsets[b] .. offsets[b + 1])`. */
  private readonly offsets: Int32Array;
  private readonly blocks: Uint16Array | Int32Array;

  /** The filter of the text whose bytes these are. */
  constructor(bytes: Uint8Array) {
    const starts = [0];
    for (let at = BLOCK_BYTES; at < bytes.length;) {
      const lineEnd = bytes.indexOf(10, at - 1);
      if (lineEnd === -1 || lineEnd + 1 >= bytes.length) break;
      starts.push(lineEnd + 1);
      at = lineEnd + 1 + BLOCK_BYTES;
    }
    starts.push(bytes.length);
    this.blockStarts = Int32Array.from(starts);
    this.blockCount = starts.length - 1;
    const grams = gramTable(GRAM_BUCKET_BITS, this.blockCount > 0x10000);
    for (let block = 0; block < this.blockCount; block++) {
      grams.add(bytes, this.blockStarts[block], this.blockStarts[block + 1]);
      grams.endBlock();
    }
    const table = grams.finish(releaseBuffers);
    this.offsets = table.offsets;
    this.blocks = table.postings;
  }

  /** The blocks that may hold a match of what is required (literalQuery.ts): a mask, or null for every block. */
  candidates(required: RequiredText | null | undefined): Uint8Array | null {
    if (required === undefined || required === null || required.kind === 'anything') return null;
    if (required.kind === 'literal') return this.holding(required.text);
    const blockCount = this.blockCount;
    const masks = required.of.map((part) => this.candidates(part));
    if (required.kind === 'any') {
      if (masks.includes(null)) return null;
      const union = new Uint8Array(blockCount);
      for (const mask of masks) for (let block = 0; mask !== null && block < blockCount; block++) union[block] |= mask[block];
      return union;
    }
    let both: Uint8Array | null = null;
    for (const mask of masks) {
      if (mask === null) continue;
      if (both === null) both = mask;
      else for (let block = 0; block < blockCount; block++) both[block] &= mask[block];
    }
    return both;
  }

  /** The blocks holding every trigram of a literal (lower-case ASCII letters, Latin-1), rarest lists first. */
  private holding(literal: string): Uint8Array {
    const lists: Array<[number, number]> = [];
    for (let at = 0; at + 2 < literal.length; at++) {
      const bucket = gramBucket(literal.charCodeAt(at), literal.charCodeAt(at + 1), literal.charCodeAt(at + 2), GRAM_BUCKET_BITS);
      lists.push([this.offsets[bucket], this.offsets[bucket + 1]]);
    }
    lists.sort((a, b) => a[1] - a[0] - (b[1] - b[0]));
    const blocks = this.blocks;
    let mask: Uint8Array | null = null;
    for (const [from, to] of lists) {
      const next = new Uint8Array(this.blockCount);
      for (let at = from; at < to; at++) {
        const block = blocks[at];
        if (mask === null || mask[block] === 1) next[block] = 1;
      }
      mask = next;
    }
    return mask ?? new Uint8Array(this.blockCount).fill(1);
  }
}
