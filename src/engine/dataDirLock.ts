/**
 * One engine per data folder: two engines writing the same files would hand out the same ids and
 * overwrite each other's conversations. The lock names its process, so a lock left by a process
 * that died is taken over rather than blocking forever.
 */
import { readFile, unlink, writeFile } from 'node:fs/promises';
import * as path from 'node:path';

export class DataDirLockedError extends Error {}

export interface DataDirLock {
  release(): Promise<void>;
}

const LOCK_FILE = 'engine.lock';

export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  const file = path.join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(file, `${process.pid}\n`, { flag: 'wx' });
      return { release: () => unlink(file).catch(() => undefined) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number.parseInt(await readFile(file, 'utf8').catch(() => ''), 10);
      if (isRunning(holder)) {
        throw new DataDirLockedError(
          `Another engine (process ${holder}) is using the data folder ${dataDir}: stop it, or give this one another --data folder.`,
        );
      }
      await unlink(file).catch(() => undefined);
    }
  }
  throw new DataDirLockedError(`Could not lock the data folder ${dataDir}; try again.`);
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
