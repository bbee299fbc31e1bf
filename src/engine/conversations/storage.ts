/**
 * The durable conversation store: one JSON file per conversation plus a meta file for the id
 * counters, each replaced atomically (temp file, fsync, rename, fsync of the folder), so a crash at
 * any moment leaves either the old or the new version and nothing acknowledged is lost.
 */
import { mkdir, readdir, readFile, unlink } from 'node:fs/promises';
import * as path from 'node:path';
import { isConversationRecord, type ConversationRecord, type IdCounters } from './records';
import { syncDirectory, writeFileAtomically } from '../storage/atomicFile';

/** The full-disk seam lives with the atomic writes; tests reach it here too. */
export { fullDiskSeamForTests } from '../storage/atomicFile';

const FORMAT_VERSION = 1;

export interface LoadedStore {
  storage: ConversationStorage;
  records: ConversationRecord[];
  counters: IdCounters;
}

export class ConversationStorage {
  /** Per file: the last queued task, so writes of one file never overlap or reorder. */
  private readonly tails = new Map<string, Promise<void>>();
  /** Per file: a write that is queued but not started; later saves join it instead of queueing. */
  private readonly waiting = new Map<string, Promise<void>>();

  private constructor(
    private readonly conversationsDir: string,
    private readonly metaFile: string,
  ) {}

  /** Creates the folder if needed and loads every stored conversation. */
  static async open(dataDir: string, log: (line: string) => void = () => undefined): Promise<LoadedStore> {
    const conversationsDir = path.join(dataDir, 'conversations');
    await mkdir(conversationsDir, { recursive: true });
    const storage = new ConversationStorage(conversationsDir, path.join(dataDir, 'meta.json'));
    const records: ConversationRecord[] = [];
    for (const name of await readdir(conversationsDir)) {
      const file = path.join(conversationsDir, name);
      if (name.endsWith('.tmp')) {
        await unlink(file).catch(() => undefined); // an interrupted write; the previous version stands
        continue;
      }
      if (!/^\d+\.json$/.test(name)) continue;
      const record = await readRecord(file);
      if (record) records.push(record);
      else log(`storage: skipped ${file}: not a readable conversation`);
    }
    const counters = await readCounters(storage.metaFile);
    for (const record of records) {
      counters.nextConversationId = Math.max(counters.nextConversationId, record.id + 1);
      for (const question of record.questions) {
        counters.nextQuestionId = Math.max(counters.nextQuestionId, question.id + 1);
      }
    }
    return { storage, records, counters };
  }

  /** Durably stores the record as it is when the write starts; resolves once it is on disk. */
  save(record: ConversationRecord): Promise<void> {
    return this.enqueueWrite(this.fileOf(record.id), () => JSON.stringify({ version: FORMAT_VERSION, conversation: record }));
  }

  /** Durably stores the counters as they are when the write starts. */
  saveCounters(counters: Readonly<IdCounters>): Promise<void> {
    return this.enqueueWrite(this.metaFile, () => JSON.stringify({ version: FORMAT_VERSION, ...counters }));
  }

  /** Deletes the conversation's file after any write of it that is already queued. */
  remove(id: number): Promise<void> {
    const file = this.fileOf(id);
    return this.enqueue(file, async () => {
      await unlink(file).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
      await syncDirectory(this.conversationsDir);
    });
  }

  /** Resolves once every queued write has finished. */
  async idle(): Promise<void> {
    while (this.tails.size > 0) {
      await Promise.allSettled([...this.tails.values()]);
    }
  }

  private fileOf(id: number): string {
    return path.join(this.conversationsDir, `${id}.json`);
  }

  private enqueueWrite(file: string, serialize: () => string): Promise<void> {
    const queued = this.waiting.get(file);
    if (queued) return queued;
    const write = this.enqueue(file, async () => {
      this.waiting.delete(file);
      await writeFileAtomically(file, serialize());
    });
    this.waiting.set(file, write);
    return write;
  }

  private enqueue(file: string, task: () => Promise<void>): Promise<void> {
    const previous = this.tails.get(file) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(task);
    this.tails.set(file, next);
    const forget = (): void => {
      if (this.tails.get(file) === next) this.tails.delete(file);
    };
    next.then(forget, forget);
    return next;
  }
}

async function readRecord(file: string): Promise<ConversationRecord | undefined> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as { conversation?: unknown };
    return isConversationRecord(parsed.conversation) ? { ...parsed.conversation, starred: parsed.conversation.starred === true } : undefined;
  } catch {
    return undefined;
  }
}

async function readCounters(file: string): Promise<IdCounters> {
  const counters: IdCounters = { nextConversationId: 1, nextQuestionId: 1 };
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<IdCounters>;
    if (Number.isInteger(parsed.nextConversationId)) counters.nextConversationId = Math.max(1, parsed.nextConversationId ?? 1);
    if (Number.isInteger(parsed.nextQuestionId)) counters.nextQuestionId = Math.max(1, parsed.nextQuestionId ?? 1);
  } catch {
    // No meta file yet (first start) or an unreadable one: the ids found in the records decide.
  }
  return counters;
}
