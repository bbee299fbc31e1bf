/**
 * The on-disk filter of a whole tree (gramFilter.ts writes it), built by a search worker of its own
 * (searchWorkerThread.ts, `task: 'filter'`): every regular file's blob in tree order, hashed as it
 * streams (no text is kept; binary files too, which only makes them candidates git grep then
 * skips), each file listed under the buckets of its trigrams.
 */
import { isUtf8 } from 'node:buffer';
import os from 'node:os';
import { streamBlobs } from './blobStream';
import { releaseBuffers } from './releaseBuffers';
import type { FilterMessage, WorkerInit } from './searchWorker';
import type { TreeGit } from './treeGit';
import { regularFiles } from './treeText';
import { GRAM_BUCKET_BITS, gramTable } from './trigrams';

/** File numbers in 16 bits: the lists stay small, and so does the memory of the build. */
const MAX_FILTER_FILES = 0x10000;

export async function buildTreeFilter(init: WorkerInit, git: TreeGit): Promise<FilterMessage> {
  // A build the engine starts on its own (at start, after an index) gives way to the searches of
  // the moment, as its cat-file does: on Linux, which keeps a nice value per thread, this thread's
  // (elsewhere the call would lower the whole engine's).
  if (process.platform === 'linux') {
    try {
      os.setPriority(0, os.constants.priority.PRIORITY_BELOW_NORMAL);
    } catch {
      // Not allowed here: it builds at the engine's own priority.
    }
  }
  const listing = await git.output(['ls-tree', '-r', '-z', '--long', init.commit], undefined, init.listingMaxBytes);
  const entries = regularFiles(listing);
  // A search names the candidates to git by path: one that does not decode could not be named.
  if (entries.some((entry) => !isUtf8(entry.path))) throw new Error('the tree has paths that are not UTF-8');
  if (entries.length > MAX_FILTER_FILES) throw new Error('the tree has ' + entries.length + ' files, more than a filter holds (' + MAX_FILTER_FILES + ')');
  const grams = gramTable(GRAM_BUCKET_BITS, false);
  await streamBlobs(git, entries, {
    start() {
      grams.restart();
    },
    bytes(chunk, from, to) {
      grams.add(chunk, from, to);
    },
    end() {
      grams.endBlock();
    },
  });
  const table = grams.finish(releaseBuffers);
  const paths = entries.map((entry) => entry.path.toString('utf8')).join('\0');
  const bytes = entries.reduce((sum, entry) => sum + entry.size, 0);
  return { type: 'filter', paths, offsets: table.offsets, postings: table.postings, bytes };
}
