/**
 * Files replaced atomically (temp file, fsync, rename, fsync of the folder): a crash at any moment
 * leaves the old or the new version. The conversation store and the OAuth server's tokens use it.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import * as path from 'node:path';

/**
 * A seam for tests on machines where they cannot mount a small file system to fill (not root): while
 * `device` is set, every write of more than `spaceLeft` bytes goes through that file instead of its
 * temp file. Tests set `/dev/full`, whose writes fail with the kernel's own ENOSPC. The engine never
 * sets it.
 */
export const fullDiskSeamForTests: { device?: string; spaceLeft?: number } = {};

export async function writeFileAtomically(file: string, contents: string): Promise<void> {
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  const bytes = Buffer.from(contents, 'utf8');
  const seam = fullDiskSeamForTests.device !== undefined && bytes.length > (fullDiskSeamForTests.spaceLeft ?? 0);
  try {
    const handle = await open(seam ? (fullDiskSeamForTests.device as string) : temporary, 'w');
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (error) {
    // A temp file cut short (a full disk) holds on to the space it got: give it back at once.
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
  await syncDirectory(path.dirname(file));
}

/** Makes a rename durable; some platforms (Windows) cannot open folders, and need not. */
export async function syncDirectory(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EACCES') throw error;
  } finally {
    await handle?.close();
  }
}
