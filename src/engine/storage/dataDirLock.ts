/**
 * One engine per data folder: two engines writing the same files would hand out the same ids and
 * overwrite each other's conversations. The lock names its process, so a lock left by a process
 * that died is taken over rather than blocking forever.
 *
 * Taking over is the racy part (read the dead pid, remove the file, create ours: another engine
 * may do the same in between and remove the lock just taken). So a stale lock is only ever removed
 * by whoever holds a second, short-lived file (`engine.lock.takeover`, created exclusively), and
 * only after reading the lock again under it: a live engine's lock is never removed.
 */
import { readFile, stat, unlink, writeFile } from 'node:fs/promises';
import * as path from 'node:path';

export class DataDirLockedError extends Error {}

export interface DataDirLock {
  release(): Promise<void>;
}

const LOCK_FILE = 'engine.lock';
const TAKEOVER_FILE = 'engine.lock.takeover';
/** A takeover lasts milliseconds: one older than this was left by a process that died in it. */
const TAKEOVER_STALE_MS = 10_000;
/** How long a lock may stay empty while its engine writes its pid into it. */
const BEING_WRITTEN_MS = 2000;
const ATTEMPTS = 300;

export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  const file = path.join(dataDir, LOCK_FILE);
  const takeover = path.join(dataDir, TAKEOVER_FILE);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (await createExclusive(file)) return heldLock(file);
    const holder = await holderOf(file);
    refuseIfHeld(holder, dataDir);
    // A lock without a pid yet may be one another engine is writing this moment.
    if (Number.isNaN(holder) && (await ageOf(file)) < BEING_WRITTEN_MS) {
      await delay(10);
      continue;
    }
    // The holder is gone: take the lock over, one engine at a time.
    if (!(await createExclusive(takeover))) {
      if ((await ageOf(takeover)) > TAKEOVER_STALE_MS) await unlink(takeover).catch(ignoreMissing);
      await delay(10 + Math.random() * 20);
      continue;
    }
    try {
      refuseIfHeld(await holderOf(file), dataDir);
      await unlink(file).catch(ignoreMissing);
      if (await createExclusive(file)) return heldLock(file);
    } finally {
      await unlink(takeover).catch(ignoreMissing);
    }
  }
  throw new DataDirLockedError(`Could not lock the data folder ${dataDir}; try again.`);
}

/** Creates `file` naming this process; false when it exists. */
async function createExclusive(file: string): Promise<boolean> {
  try {
    await writeFile(file, `${process.pid}\n`, { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

async function holderOf(file: string): Promise<number> {
  return Number.parseInt(await readFile(file, 'utf8').catch(() => ''), 10);
}

function refuseIfHeld(holder: number, dataDir: string): void {
  if (isRunning(holder)) {
    throw new DataDirLockedError(`Another engine (process ${holder}) is using the data folder ${dataDir}: stop it, or give this one another --data folder.`);
  }
}

/** Milliseconds since `file` was last written; NaN when it is gone (so no comparison holds). */
async function ageOf(file: string): Promise<number> {
  const info = await stat(file).catch(() => undefined);
  return info ? Date.now() - info.mtimeMs : Number.NaN;
}

function heldLock(file: string): DataDirLock {
  return { release: () => unlink(file).catch(() => undefined) };
}

function ignoreMissing(error: unknown): void {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function isRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
