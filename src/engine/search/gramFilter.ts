/**
 * A commit's trigram filter on disk: which of its regular files can hold a match at all, for the
 * searches the in-memory index does not answer (a tree past the index budget, and every search
 * until the index is built: the engine builds the filter as it starts). A search looks up the
 * trigrams every match must contain (literalQuery.ts) and hands git grep only the files that hold
 * them all.
 *
 * The search worker builds it (searchWorkerThread.ts, `task: 'filter'`): every regular file's blob
 * in tree order, each file listed under the buckets of its trigrams (trigrams.ts; files, not blocks of
 * them: a block of a few files holds the trigrams of a common word far more often than one file
 * does); this thread writes it to the engine's data folder, one file per commit, and reads back
 * only the lists a search needs. Its size is about a sixth of the text.
 *
 * A file that does not read back as one whole, well-formed filter (cut short, another version,
 * altered) is not used: the search reads the tree as it would without one.
 */
import { createHash } from 'node:crypto';
import { mkdir, open, readdir, rename, unlink, type FileHandle } from 'node:fs/promises';
import { DEFAULT_SPARE_BYTES, ensureRoom } from '../storage/diskRoom';
import { endianness } from 'node:os';
import * as path from 'node:path';
import type { RequiredText } from './literalQuery';
import { GRAM_BUCKET_BITS, gramBucket } from './trigrams';
import { formatSize } from '../messages/toolError';

const MAGIC = 'DSGRAMS\n';
const FORMAT = 1;
const EXTENSION = '.grams';
/** A header longer than this is not one this engine wrote. */
const MAX_HEADER_BYTES = 4096;
/** Trigrams of one literal looked up at most (fewer only let more files through). */
const MAX_GRAMS_PER_LITERAL = 16;
/** Trigrams of a literal whose lists are read: its rarest (by their lists' lengths). */
const RAREST_GRAMS = 6;
/** File numbers a search reads from the lists at most (past them, it does without the filter). */
const MAX_ENTRIES_READ = 256 * 1024;
export { DEFAULT_SPARE_BYTES } from '../storage/diskRoom';
/** Literals of one search looked up at most (past them, the rest of the search requires nothing). */
const MAX_LITERALS = 64;

interface Header {
  format: number;
  endianness: string;
  commit: string;
  bucketBits: number;
  files: number;
  /** Bytes per posting (a file number): 2 (up to 65,536 files) or 4. */
  width: 2 | 4;
  postings: number;
  pathBytes: number;
  /** Bytes of the files the filter covers. */
  bytes: number;
}

/** What the worker built: see FilterMessage in searchWorker.ts. */
export interface FilterTables {
  paths: string;
  offsets: Int32Array;
  postings: Uint16Array | Int32Array;
  bytes: number;
}

/** The filter's file for a repository folder and commit, under the engine's `dir`. */
export function filterFile(dir: string, repositoryDir: string, commit: string): string {
  const folder = createHash('sha256').update(repositoryDir).digest('hex').slice(0, 16);
  return path.join(dir, folder, `${commit}${EXTENSION}`);
}

/**
 * Writes the filter of `commit` to `file` whole (a temporary file renamed), then removes the
 * repository's filters of other commits: one is kept per repository, as one index is. Throws,
 * writing nothing, when fewer than `spareBytes` would stay free on the disk.
 */
export async function writeFilter(file: string, commit: string, tables: FilterTables, spareBytes = DEFAULT_SPARE_BYTES): Promise<void> {
  const paths = Buffer.from(tables.paths, 'utf8');
  const width = tables.postings instanceof Uint16Array ? 2 : 4;
  const header: Header = {
    format: FORMAT,
    endianness: endianness(),
    commit,
    bucketBits: GRAM_BUCKET_BITS,
    files: tables.paths === '' ? 0 : tables.paths.split('\0').length,
    width,
    postings: tables.postings.length,
    pathBytes: paths.length,
    bytes: tables.bytes,
  };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const lead = Buffer.alloc(MAGIC.length + 4);
  lead.write(MAGIC, 'latin1');
  lead.writeUInt32LE(headerBytes.length, MAGIC.length);
  const parts = [lead, headerBytes, padding(lead.length + headerBytes.length), paths, padding(paths.length)];
  for (const table of [tables.offsets, tables.postings]) parts.push(Buffer.from(table.buffer, table.byteOffset, table.byteLength));
  await ensureRoomForFilter(
    path.dirname(path.dirname(file)),
    parts.reduce((sum, part) => sum + part.length, 0),
    spareBytes,
  );
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  const handle = await open(temporary, 'w');
  try {
    await handle.writev(parts);
  } catch (error) {
    await handle.close();
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
  await handle.close();
  await rename(temporary, file);
  for (const name of await readdir(path.dirname(file))) {
    if (name !== path.basename(file) && (name.endsWith(EXTENSION) || name.endsWith('.tmp')))
      await unlink(path.join(path.dirname(file), name)).catch(() => undefined);
  }
}

/**
 * Throws unless a filter of `bytes` (0: before its size is known) can be written in `dir` (created
 * if need be) while `spareBytes` stay free on its disk. A filter only saves time; the conversations
 * in the same data folder must never lack room for it.
 */
export async function ensureRoomForFilter(dir: string, bytes: number, spareBytes = DEFAULT_SPARE_BYTES): Promise<void> {
  await ensureRoom(dir, bytes, bytes === 0 ? 'filters are' : `a filter of ${formatSize(bytes)} is`, spareBytes);
}

function padding(length: number): Buffer {
  return Buffer.alloc((4 - (length % 4)) % 4);
}

/** One commit's filter: its file list and bucket offsets in memory, the buckets' file lists read per search. */
export class GramFilter {
  private constructor(
    private readonly file: string,
    readonly commit: string,
    /** The commit's regular files, in tree order. */
    readonly paths: readonly string[],
    private readonly offsets: Int32Array,
    private readonly width: 2 | 4,
    private readonly postingsStart: number,
    /** Bytes of the file. */
    readonly diskBytes: number,
  ) {}

  /** The filter of `commit` in `file`; undefined when there is none, or not a whole one of this format. */
  static async open(file: string, commit: string): Promise<GramFilter | undefined> {
    let handle: FileHandle;
    try {
      handle = await open(file, 'r');
    } catch {
      return undefined;
    }
    try {
      const size = (await handle.stat()).size;
      const lead = Buffer.alloc(MAGIC.length + 4);
      await handle.read(lead, 0, lead.length, 0);
      const headerLength = lead.readUInt32LE(MAGIC.length);
      if (lead.toString('latin1', 0, MAGIC.length) !== MAGIC || headerLength > MAX_HEADER_BYTES) return undefined;
      const headerBytes = Buffer.alloc(headerLength);
      await handle.read(headerBytes, 0, headerLength, lead.length);
      const header = JSON.parse(headerBytes.toString('utf8')) as Partial<Header>;
      if (!isHeader(header, commit)) return undefined;
      const pathsStart = lead.length + headerLength + padding(lead.length + headerLength).length;
      const tablesStart = pathsStart + header.pathBytes + padding(header.pathBytes).length;
      const offsetsBytes = ((1 << header.bucketBits) + 1) * 4;
      const postingsStart = tablesStart + offsetsBytes;
      if (size !== postingsStart + header.postings * header.width) return undefined;
      const paths = Buffer.alloc(header.pathBytes);
      await handle.read(paths, 0, paths.length, pathsStart);
      // A typed array over a buffer of its own (aligned).
      const offsets = new Int32Array((1 << header.bucketBits) + 1);
      await handle.read(new Uint8Array(offsets.buffer), 0, offsetsBytes, tablesStart);
      const names = header.files === 0 ? [] : paths.toString('utf8').split('\0');
      if (names.length !== header.files || !ascending(offsets, 0, header.postings)) return undefined;
      return new GramFilter(file, commit, names, offsets, header.width, postingsStart, size);
    } catch {
      return undefined;
    } finally {
      await handle.close();
    }
  }

  /**
   * The files, in tree order, among those `selects` allows (null: all), that can hold a match of
   * `required`; undefined when the filter cannot narrow the search (nothing is required, the
   * terms are in most files, the file is gone) or more than `maxFiles` remain.
   */
  async candidates(required: RequiredText, selects: ((path: string) => boolean) | null, maxFiles: number): Promise<string[] | undefined> {
    if (required.kind === 'anything') return undefined;
    const literals = new Set<string>();
    gatherLiterals(required, literals);
    // A filter file gone meanwhile (a newer commit's replaced it) narrows nothing.
    const lists = await this.readLists(literals).catch(() => undefined);
    if (!lists) return undefined;
    const holding = this.filesOf(required, lists);
    if (holding === null) return undefined;
    const files: string[] = [];
    for (let file = 0; file < holding.length; file++) {
      if (holding[file] === 0) continue;
      const name = this.paths[file];
      if (selects !== null && !selects(name)) continue;
      if (files.length === maxFiles) return undefined;
      files.push(name);
    }
    return files;
  }

  /** Each literal's files: those listed under every bucket of its trigrams (a mask). */
  private async readLists(literals: ReadonlySet<string>): Promise<Map<string, Uint8Array> | undefined> {
    const buckets = new Set<number>();
    const bucketsOf = new Map<string, number[]>();
    const length = (bucket: number): number => this.offsets[bucket + 1] - this.offsets[bucket];
    for (const literal of literals) {
      // The rarest trigrams of the literal say nearly all that all of them would.
      const own = literalBuckets(literal)
        .sort((a, b) => length(a) - length(b))
        .slice(0, RAREST_GRAMS);
      bucketsOf.set(literal, own);
      for (const bucket of own) buckets.add(bucket);
    }
    // Lists this long belong to terms most files hold: reading them would cost more than it saves.
    let entries = 0;
    for (const bucket of buckets) entries += length(bucket);
    if (entries > MAX_ENTRIES_READ) return undefined;
    const handle = await open(this.file, 'r');
    const filesIn = new Map<number, Uint16Array | Int32Array>();
    try {
      await Promise.all(
        [...buckets].map(async (bucket) => {
          const from = this.offsets[bucket];
          const count = this.offsets[bucket + 1] - from;
          const list = this.width === 2 ? new Uint16Array(count) : new Int32Array(count);
          if (count > 0) await handle.read(new Uint8Array(list.buffer), 0, count * this.width, this.postingsStart + from * this.width);
          filesIn.set(bucket, list);
        }),
      );
    } finally {
      await handle.close();
    }
    const masks = new Map<string, Uint8Array>();
    for (const [literal, own] of bucketsOf) {
      let mask: Uint8Array | undefined;
      // The shortest lists first: the mask only shrinks.
      const lists = own.map((bucket) => filesIn.get(bucket) as Uint16Array | Int32Array).sort((a, b) => a.length - b.length);
      for (const list of lists) {
        const next = new Uint8Array(this.paths.length);
        for (const file of list) if (file < next.length && (mask === undefined || mask[file] === 1)) next[file] = 1;
        mask = next;
      }
      masks.set(literal, mask ?? new Uint8Array(this.paths.length).fill(1));
    }
    return masks;
  }

  /** The files that can hold a match of `required` (a mask; null: every file). */
  private filesOf(required: RequiredText, lists: ReadonlyMap<string, Uint8Array>): Uint8Array | null {
    if (required.kind === 'anything') return null;
    // A literal past MAX_LITERALS was not looked up: it requires nothing the filter knows.
    if (required.kind === 'literal') return lists.get(required.text) ?? null;
    const masks = required.of.map((each) => this.filesOf(each, lists));
    if (required.kind === 'any') {
      if (masks.includes(null)) return null;
      const union = new Uint8Array(this.paths.length);
      for (const mask of masks as Uint8Array[]) for (let file = 0; file < union.length; file++) union[file] |= mask[file];
      return union;
    }
    let both: Uint8Array | null = null;
    for (const mask of masks) {
      if (mask === null) continue;
      if (both === null) both = Uint8Array.from(mask);
      else for (let file = 0; file < both.length; file++) both[file] &= mask[file];
    }
    return both;
  }
}

function isHeader(header: Partial<Header>, commit: string): header is Header {
  const count = (value: unknown, max: number): boolean => Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= max;
  return (
    header.format === FORMAT &&
    header.endianness === endianness() &&
    header.commit === commit &&
    header.bucketBits === GRAM_BUCKET_BITS &&
    count(header.files, 1 << 26) &&
    (header.width === 4 || (header.width === 2 && (header.files as number) <= 0x10000)) &&
    count(header.postings, 2 ** 31 - 1) &&
    count(header.pathBytes, 2 ** 30) &&
    count(header.bytes, Number.MAX_SAFE_INTEGER)
  );
}

/** Whether `table` starts at `first`, never falls, and ends at `last`. */
function ascending(table: Int32Array, first: number, last: number): boolean {
  if (table[0] !== first || table[table.length - 1] !== last) return false;
  for (let at = 1; at < table.length; at++) if (table[at] < table[at - 1]) return false;
  return true;
}

function gatherLiterals(required: RequiredText, into: Set<string>): void {
  if (required.kind === 'literal') {
    if (into.size < MAX_LITERALS) into.add(required.text);
  } else if (required.kind !== 'anything') {
    for (const each of required.of) gatherLiterals(each, into);
  }
}

/**
 * The buckets of a literal's trigrams (its characters are bytes, ASCII folded), at most
 * MAX_GRAMS_PER_LITERAL of them spread over it; none for a literal that is not all bytes (it then
 * requires nothing the filter knows).
 */
function literalBuckets(literal: string): number[] {
  if (/[^\u0000-\u00ff]/.test(literal)) return [];
  const grams = literal.length - 2;
  const taken = Math.min(grams, MAX_GRAMS_PER_LITERAL);
  const buckets = new Set<number>();
  for (let each = 0; each < taken; each++) {
    const at = Math.floor((each * grams) / taken);
    buckets.add(gramBucket(literal.charCodeAt(at), literal.charCodeAt(at + 1), literal.charCodeAt(at + 2), GRAM_BUCKET_BITS));
  }
  return [...buckets];
}
