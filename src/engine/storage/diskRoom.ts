/**
 * Room on the data folder's disk for what only saves time (search filters, symbol tables): written
 * only while a spare amount stays free, so that conversations in the same folder never lack room.
 */
import { mkdir, statfs } from 'node:fs/promises';
import { formatSize } from '../messages/toolError';

/** Free space such files never take on the data folder's disk, by default. */
export const DEFAULT_SPARE_BYTES = 256 * 1024 * 1024;

/**
 * Throws unless `bytes` (0: before the size is known) can be written in `dir` (created if need be)
 * while `spareBytes` stay free on its disk; `what` names the file(s) in the message.
 */
export async function ensureRoom(dir: string, bytes: number, what: string, spareBytes = DEFAULT_SPARE_BYTES): Promise<void> {
  await mkdir(dir, { recursive: true });
  const disk = await statfs(dir);
  const free = disk.bavail * disk.bsize;
  if (free >= bytes + spareBytes) return;
  throw new Error(`the data folder's disk has ${formatSize(free)} free, and ${what} written only while ${formatSize(spareBytes)} more stay free`);
}
