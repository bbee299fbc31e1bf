/**
 * A commit's symbol table: the definitions of its implementation files, from the parser, so that a
 * question's names and words find the definitions named for them wherever they are (not only in the
 * files a keyword search ranks first). Built once per commit in the background, a file at a time
 * between other work, bounded in files, size and entries; kept on disk beside the search filters
 * and read back after a restart. The files come from the caller (`SymbolSource`): this module knows
 * definitions, not git.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomically } from '../atomicFile';
import { nextTurn } from '../inTurns';
import { findDefinitions, type Definition, type DefinitionKind } from './definitions';
import { kindOfPath } from './fileKinds';
import { grammarFor } from './grammars';

/** What a table is built from: a commit's file paths, and the texts of some of them. */
export interface SymbolSource {
  /** Identifies the repository and commit (a table per key). */
  key: string;
  listFiles(signal: AbortSignal): Promise<readonly string[]>;
  /** The texts of these files (those it could read). */
  readFiles(paths: readonly string[], signal: AbortSignal): Promise<Map<string, string>>;
}

export interface SymbolEntry extends Definition {
  path: string;
}

export interface SymbolTablesOptions {
  /** Where tables are kept; none: in memory only. */
  dir?: string;
  log(line: string): void;
  signal: AbortSignal;
}

/** Files parsed per commit at most (the first in tree order); larger trees are said so in the log. */
export const MAX_FILES = 20_000;
/** Larger files are skipped (generated tables, bundles). */
export const MAX_FILE_BYTES = 256 * 1024;
/** Definitions kept per commit at most. */
export const MAX_ENTRIES = 300_000;
const READ_BATCH = 64;
const PARSE_TIMEOUT_MS = 200;
const TABLES_KEPT = 4;
const FORMAT = 1;

/** The definitions of one commit, found by name and by the words of their names. */
export class SymbolTable {
  private readonly byName = new Map<string, SymbolEntry[]>();

  constructor(readonly entries: readonly SymbolEntry[]) {
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

  /** The table, once built or read (undefined when it could not be, or after `maxWaitMs`). */
  async whenReady(source: SymbolSource, signal: AbortSignal, maxWaitMs: number): Promise<SymbolTable | undefined> {
    const table = this.lookup(source);
    if (table) return table;
    const building = this.building.get(source.key);
    if (!building) return this.ready.get(source.key);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), maxWaitMs);
    });
    const aborted = new Promise<undefined>((resolve) => signal.addEventListener('abort', () => resolve(undefined), { once: true }));
    try {
      return await Promise.race([building, timeout, aborted]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Builds the table (or reads it from disk), once per key at a time. */
  build(source: SymbolSource): Promise<SymbolTable | undefined> {
    const ready = this.ready.get(source.key);
    if (ready) return Promise.resolve(ready);
    const known = this.building.get(source.key);
    if (known) return known;
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
        return table;
      });
    this.building.set(source.key, made);
    return made;
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
    const files = parsed.slice(0, MAX_FILES);
    for (let at = 0; at < files.length && entries.length < MAX_ENTRIES; at += READ_BATCH) {
      if (signal.aborted) return undefined;
      const texts = await source.readFiles(files.slice(at, at + READ_BATCH), signal);
      for (const [file, text] of texts) {
        if (text.length > MAX_FILE_BYTES) continue;
        const definitions = (await findDefinitions(file, text, { timeoutMs: PARSE_TIMEOUT_MS })) ?? [];
        for (const definition of definitions) {
          if (entries.length >= MAX_ENTRIES) break;
          entries.push({ ...definition, path: file });
        }
        // A parse takes a few milliseconds on the engine's thread: requests get their turn between files.
        await nextTurn();
      }
    }
    return new SymbolTable(entries);
  }

  private fileOf(key: string): string | undefined {
    if (this.options.dir === undefined) return undefined;
    return path.join(this.options.dir, `${createHash('sha256').update(key).digest('hex').slice(0, 32)}.json`);
  }

  private async read(key: string): Promise<SymbolTable | undefined> {
    const file = this.fileOf(key);
    if (!file) return undefined;
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined) return undefined;
    try {
      const stored = JSON.parse(text) as { format?: number; key?: string; paths?: string[]; entries?: unknown[] };
      if (stored.format !== FORMAT || stored.key !== key || !Array.isArray(stored.paths) || !Array.isArray(stored.entries)) return undefined;
      return new SymbolTable(stored.entries.slice(0, MAX_ENTRIES).flatMap((row) => entryOf(row, stored.paths ?? [])));
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
      await writeFileAtomically(file, JSON.stringify({ format: FORMAT, key, paths, entries: rows }));
    } catch (error) {
      // A table not kept is built again after a restart; nothing else depends on it.
      this.options.log(`symbol table of ${key} not kept on disk: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

const KINDS = new Set<DefinitionKind>(['function', 'method', 'class', 'interface', 'type', 'enum', 'struct', 'trait', 'module', 'constant', 'variable', 'field']);

/** A stored row as an entry, or nothing when it is not one (a table from another version, a damaged file). */
function entryOf(row: unknown, paths: readonly string[]): SymbolEntry[] {
  if (!Array.isArray(row) || row.length !== 7) return [];
  const [index, name, kind, container, line, endLine, nameLine] = row as unknown[];
  const file = typeof index === 'number' ? paths[index] : undefined;
  if (file === undefined || typeof name !== 'string' || !KINDS.has(kind as DefinitionKind)) return [];
  if (typeof line !== 'number' || typeof endLine !== 'number' || typeof nameLine !== 'number') return [];
  return [{ path: file, name, kind: kind as DefinitionKind, line, endLine, nameLine, ...(typeof container === 'string' ? { container } : {}) }];
}
