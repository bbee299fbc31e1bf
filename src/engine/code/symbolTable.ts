/**
 * A commit's symbol table: the definitions of its implementation files, from the parser, so that a
 * question's names and words find the definitions named for them wherever they are (not only in the
 * files a keyword search ranks first), and, when the caller says how a definition reads as words,
 * in how many of the commit's definitions each word is (`definitionWordCounts.ts`: what a
 * description's words weigh). Built once per commit in the background, a file at a time between
 * other work, bounded in files, size, entries and words; kept on disk beside the search filters and
 * read back after a restart. The files come from the caller (`SymbolSource`): this module knows
 * definitions, not git.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomically } from '../storage/atomicFile';
import { ensureRoom } from '../storage/diskRoom';
import { nextTurn } from '../runtime/inTurns';
import { DEFINITION_KINDS, findDefinitions, MAX_NAME_LENGTH, type Definition, type DefinitionKind } from './definitions';
import { countsFromStored, DefinitionWordCounter, storedCounts, type DefinitionWords, type DefinitionWordCounts } from './definitionWordCounts';
import { kindOfPath } from './fileKinds';
import { grammarFor } from './grammars';

/** What a table is built from: a commit's file paths, and the texts of some of them. */
export interface SymbolSource {
  /** Identifies the repository and commit (a table per key). */
  key: string;
  listFiles(signal: AbortSignal): Promise<readonly string[]>;
  /** The texts of these files (those it could read). */
  readFiles(paths: readonly string[], signal: AbortSignal): Promise<Map<string, string>>;
  /**
   * The words of each of a file's definitions, as a description is matched against them: when given,
   * the table also counts in how many of the commit's definitions each word is (`words`).
   */
  wordsOf?(path: string, text: string, definitions: readonly Definition[]): Iterable<DefinitionWords>;
}

export interface SymbolEntry extends Definition {
  path: string;
}

export interface SymbolTablesOptions {
  /** Where tables are kept; none: in memory only. */
  dir?: string;
  log(line: string): void;
  signal: AbortSignal;
  /** Free space a table never takes on the folder's disk (DEFAULT_SPARE_BYTES). */
  spareBytes?: number;
}

/** Files parsed per commit at most (the first in tree order); larger trees are said so in the log. */
const MAX_FILES = 20_000;
/** Larger files are skipped (generated tables, bundles). */
export const MAX_FILE_BYTES = 256 * 1024;
/** Definitions kept per commit at most. */
const MAX_ENTRIES = 200_000;
const READ_BATCH = 64;
const PARSE_TIMEOUT_MS = 200;
const TABLES_KEPT = 4;
const FAILURES_KEPT = 16;
/** A table whose build failed is built again after this long at the earliest. */
const RETRY_AFTER_MS = 10 * 60_000;
/** Larger files in the tables' folder are not tables of this engine. */
const MAX_STORED_BYTES = 64 * 1024 * 1024;
const MAX_STORED_PATH = 4096;
const FORMAT = 2;

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

/** A key is `<repository>@<commit>`: the part before the last `@` names the repository. */
function repositoryPrefix(key: string): string {
  const at = key.lastIndexOf('@');
  return `${hash(at > 0 ? key.slice(0, at) : key).slice(0, 16)}-`;
}

/** The definitions of one commit, found by name and by the words of their names. */
export class SymbolTable {
  private readonly byName = new Map<string, SymbolEntry[]>();

  constructor(
    readonly entries: readonly SymbolEntry[],
    /** In how many of the commit's definitions each word is, when its source said how definitions read as words. */
    readonly words?: DefinitionWordCounts,
  ) {
    for (const entry of entries) {
      const key = entry.name.toLowerCase().replaceAll('_', '');
      const list = this.byName.get(key);
      if (list) list.push(entry);
      else this.byName.set(key, [entry]);
    }
  }

  /** Definitions named `name` (in any case, with or without underscores). */
  named(name: string): readonly SymbolEntry[] {
    return this.byName.get(name.toLowerCase().replaceAll('_', '')) ?? [];
  }

  /** Definitions whose names hold the text (lower case) somewhere, at most `limit`. */
  holding(text: string, limit: number): SymbolEntry[] {
    const found: SymbolEntry[] = [];
    for (const [key, list] of this.byName) {
      if (!key.includes(text)) continue;
      for (const entry of list) {
        found.push(entry);
        if (found.length >= limit) return found;
      }
    }
    return found;
  }
}

/** The symbol tables of the commits asked about: a few in memory, all on disk. */
export class SymbolTables {
  private readonly ready = new Map<string, SymbolTable>();
  private readonly building = new Map<string, Promise<SymbolTable | undefined>>();
  /** When a table's build last failed, by key (a few). */
  private readonly failed = new Map<string, number>();
  /** One build at a time: parsing shares the engine's thread with every request. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: SymbolTablesOptions) {}

  /** Resolves once no build is under way (a stopping engine waits for its writes). */
  async idle(): Promise<void> {
    while (this.building.size > 0) await Promise.allSettled([...this.building.values()]);
  }

  /** The table of the source's commit if it is ready; otherwise its build (or its read from disk) is started. */
  lookup(source: SymbolSource): SymbolTable | undefined {
    const table = this.ready.get(source.key);
    if (table) {
      this.ready.delete(source.key);
      this.ready.set(source.key, table);
      return table;
    }
    void this.build(source);
    return undefined;
  }

  /** The table, once built or read (undefined when it could not be, or after `maxWaitMs`, or once `signal` aborts). */
  async whenReady(source: SymbolSource, signal: AbortSignal, maxWaitMs: number): Promise<SymbolTable | undefined> {
    const table = this.lookup(source);
    if (table || signal.aborted) return table;
    const building = this.building.get(source.key);
    if (!building) return this.ready.get(source.key);
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const stopped = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), maxWaitMs);
      onAbort = () => resolve(undefined);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([building, stopped]);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal.removeEventListener('abort', onAbort);
    }
  }

  /** Builds the table (or reads it from disk), once per key at a time; one that failed is not tried again for a while. */
  build(source: SymbolSource): Promise<SymbolTable | undefined> {
    const ready = this.ready.get(source.key);
    if (ready) return Promise.resolve(ready);
    const known = this.building.get(source.key);
    if (known) return known;
    const failedAt = this.failed.get(source.key);
    if (failedAt !== undefined && Date.now() - failedAt < RETRY_AFTER_MS) return Promise.resolve(undefined);
    const made = (async () => {
      const onDisk = await this.read(source.key);
      if (onDisk) return onDisk;
      const turn = this.queue.then(() => this.make(source));
      this.queue = turn.catch(() => undefined);
      const table = await turn;
      if (table) await this.write(source.key, table);
      return table;
    })()
      .catch((error: unknown) => {
        if (!this.options.signal.aborted) this.options.log(`symbol table of ${source.key}: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      })
      .then((table) => {
        this.building.delete(source.key);
        if (table) this.keep(source.key, table);
        else if (!this.options.signal.aborted) this.remember(source.key);
        return table;
      });
    this.building.set(source.key, made);
    return made;
  }

  private remember(key: string): void {
    this.failed.set(key, Date.now());
    for (const oldest of this.failed.keys()) {
      if (this.failed.size <= FAILURES_KEPT) break;
      this.failed.delete(oldest);
    }
  }

  private keep(key: string, table: SymbolTable): void {
    this.ready.set(key, table);
    for (const oldest of this.ready.keys()) {
      if (this.ready.size <= TABLES_KEPT) break;
      this.ready.delete(oldest);
    }
  }

  private async make(source: SymbolSource): Promise<SymbolTable | undefined> {
    const { signal } = this.options;
    const listed = await source.listFiles(signal);
    const parsed = listed.filter((file) => grammarFor(file) !== undefined && kindOfPath(file) === 'implementation');
    if (parsed.length > MAX_FILES) this.options.log(`symbol table of ${source.key}: ${parsed.length} source files, the first ${MAX_FILES} parsed`);
    const entries: SymbolEntry[] = [];
    const counter = source.wordsOf ? new DefinitionWordCounter() : undefined;
    const files = parsed.slice(0, MAX_FILES);
    for (let at = 0; at < files.length && entries.length < MAX_ENTRIES; at += READ_BATCH) {
      if (signal.aborted) return undefined;
      const texts = await source.readFiles(files.slice(at, at + READ_BATCH), signal);
      for (const [file, text] of texts) {
        if (text.length > MAX_FILE_BYTES) continue;
        // A file the parser cannot take is left out, not the table.
        const definitions = (await findDefinitions(file, text, { timeoutMs: PARSE_TIMEOUT_MS }).catch(() => undefined)) ?? [];
        const kept = definitions.slice(0, MAX_ENTRIES - entries.length);
        for (const definition of kept) entries.push({ ...definition, path: file });
        if (counter && kept.length > 0) for (const words of source.wordsOf?.(file, text, kept) ?? []) counter.add(words);
        // A parse takes a few milliseconds on the engine's thread: requests get their turn between files.
        await nextTurn();
      }
    }
    return new SymbolTable(entries, counter?.done());
  }

  /** `<repository hash>-<key hash>.json`: one file per commit, the repository's others removed when one is written. */
  private fileOf(key: string): string | undefined {
    if (this.options.dir === undefined) return undefined;
    return path.join(this.options.dir, `${repositoryPrefix(key)}${hash(key)}.json`);
  }

  /** Removes the repository's tables of other commits (a repository keeps its latest on disk, as its filters do). */
  private async prune(key: string, kept: string): Promise<void> {
    const dir = this.options.dir;
    if (dir === undefined) return;
    const prefix = repositoryPrefix(key);
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      if (name.startsWith(prefix) && path.join(dir, name) !== kept) await rm(path.join(dir, name), { force: true }).catch(() => undefined);
    }
  }

  private async read(key: string): Promise<SymbolTable | undefined> {
    const file = this.fileOf(key);
    if (!file) return undefined;
    // A table larger than any this engine writes is not read (a damaged or foreign file).
    const size = await stat(file).then(
      (stats) => stats.size,
      () => undefined,
    );
    if (size === undefined || size > MAX_STORED_BYTES) return undefined;
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined) return undefined;
    try {
      const stored = JSON.parse(text) as { format?: number; key?: string; paths?: unknown[]; entries?: unknown[]; words?: unknown };
      if (stored.format !== FORMAT || stored.key !== key || !Array.isArray(stored.paths) || !Array.isArray(stored.entries)) return undefined;
      const entries = stored.entries.slice(0, MAX_ENTRIES).flatMap((row) => entryOf(row, stored.paths ?? []));
      if (stored.words === undefined) return new SymbolTable(entries);
      // Counts that do not read back are counted again with the table.
      const words = countsFromStored(stored.words);
      return words ? new SymbolTable(entries, words) : undefined;
    } catch {
      return undefined;
    }
  }

  private async write(key: string, table: SymbolTable): Promise<void> {
    const file = this.fileOf(key);
    if (!file || this.options.signal.aborted) return;
    const paths: string[] = [];
    const pathIndex = new Map<string, number>();
    const rows = table.entries.map((entry) => {
      let index = pathIndex.get(entry.path);
      if (index === undefined) {
        index = paths.push(entry.path) - 1;
        pathIndex.set(entry.path, index);
      }
      return [index, entry.name, entry.kind, entry.container ?? null, entry.line, entry.endLine, entry.nameLine];
    });
    try {
      const text = JSON.stringify({ format: FORMAT, key, paths, entries: rows, ...(table.words ? { words: storedCounts(table.words) } : {}) });
      // A table only saves time: conversations in the same folder come first.
      await ensureRoom(path.dirname(file), Buffer.byteLength(text), 'symbol tables are', this.options.spareBytes);
      await writeFileAtomically(file, text);
      await this.prune(key, file);
    } catch (error) {
      // A table not kept is built again after a restart; nothing else depends on it.
      this.options.log(`symbol table of ${key} not kept on disk: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

function isLine(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1;
}

/** A stored row as an entry, or nothing when it is not one (a table from another version, a damaged file). */
function entryOf(row: unknown, paths: readonly unknown[]): SymbolEntry[] {
  if (!Array.isArray(row) || row.length !== 7) return [];
  const [index, name, kind, container, line, endLine, nameLine] = row as unknown[];
  const file: unknown = typeof index === 'number' ? paths[index] : undefined;
  if (typeof file !== 'string' || file.length > MAX_STORED_PATH || /[\0\n\r]/.test(file)) return [];
  if (typeof name !== 'string' || name.length === 0 || name.length > MAX_NAME_LENGTH || typeof kind !== 'string' || !DEFINITION_KINDS.has(kind)) return [];
  if (!isLine(line) || !isLine(endLine) || !isLine(nameLine) || endLine < line) return [];
  if (container !== null && (typeof container !== 'string' || container.length > MAX_NAME_LENGTH)) return [];
  return [{ path: file, name, kind: kind as DefinitionKind, line, endLine, nameLine, ...(typeof container === 'string' ? { container } : {}) }];
}
