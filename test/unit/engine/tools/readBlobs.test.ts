/**
 * readBlobsAtOnce (src/engine/repo/blocks.ts): the blobs of the files a search shows, read from the
 * commit in two git processes (their sizes, then the bytes), never from the working tree; those
 * over the bound, missing, not blobs (a folder, a submodule), or whose name git cannot take on a line
 * are left out.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { readBlobsAtOnce } from '../../../../src/engine/repo/blocks';
import { createTestRepo } from '../../../support/gitRepos';
import { head, toolContext } from '../search/searchFiles';

describe('readBlobsAtOnce', function () {
  it('reads the named blobs of the commit as bytes, leaving out the larger, the missing and the unnameable', async function () {
    const files: Record<string, string> = {
      'a.txt': 'alpha\n',
      'dir/b.ts': 'export const café = "naïve";\n',
      'nul.bin': 'before\0after\n',
      'empty.txt': '',
      'big.txt': 'x'.repeat(2000),
      'odd\nname.txt': 'a newline in the name\n',
      'sp ace.md': 'spaces in the name\n',
    };
    const repo = await createTestRepo({ name: 'blobs', commits: [{ message: 'Files', files }] });
    try {
      // A submodule: the tree names a commit this repository does not hold.
      await repo.git('update-index', '--add', '--cacheinfo', `160000,${'1'.repeat(40)},sub`);
      await repo.git('commit', '--quiet', '-m', 'A submodule');
      const context = toolContext(repo, 'blobs');
      const target = { repo: context.repositories[0], commit: await head(repo), revision: 'HEAD' };
      // The working tree differs from the commit: the commit is what is read.
      await writeFile(path.join(repo.dir, 'a.txt'), 'changed since\n');
      const asked = ['big.txt', 'dir/b.ts', 'missing.txt', 'a.txt', 'odd\nname.txt', 'sub', 'nul.bin', 'empty.txt', 'sp ace.md', 'dir'];
      const found = await readBlobsAtOnce(context, target, asked, 1024);
      assert.deepEqual([...found.keys()], ['dir/b.ts', 'a.txt', 'nul.bin', 'empty.txt', 'sp ace.md']);
      for (const [name, bytes] of found) assert.deepEqual(bytes, Buffer.from(files[name] ?? '', 'utf8'), name);
      assert.equal((await readBlobsAtOnce(context, target, ['big.txt'], 2000)).get('big.txt')?.length, 2000, 'at the bound: read');
      assert.equal((await readBlobsAtOnce(context, target, [], 1024)).size, 0);
    } finally {
      await repo.remove();
    }
  });
});
