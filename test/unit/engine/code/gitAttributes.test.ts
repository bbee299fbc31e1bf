/**
 * What a commit's git attributes say a file is (`kindOf` in src/engine/repo/retrieval.ts, through
 * src/engine/code/gitAttributes.ts): git itself reads them, from the commit asked for, in real
 * repositories: every rule of git's (character classes, quoted patterns, macros, nested files),
 * in a work tree or a bare repository, leaving nothing behind.
 */
import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { linguistAttributes } from '../../../../src/engine/code/gitAttributes';
import type { FileKind } from '../../../../src/engine/code/fileKinds';
import { kindOf } from '../../../../src/engine/repo/retrieval';
import { createTestRepo, type CommitSpec, type TestRepo } from '../../../support/gitRepos';
import { head, toolContext } from '../search/searchFiles';

/** Lines that say nothing of what a file is. */
const CODE = ['export const value = 1;'];

/** What each path of the commit at HEAD is, by `kindOf`. */
async function kinds(repo: TestRepo, paths: readonly string[], commit?: string): Promise<Record<string, FileKind>> {
  const context = toolContext(repo, 'attributes');
  const target = { repo: context.repositories[0], commit: commit ?? (await head(repo)), revision: 'HEAD' };
  const found: Record<string, FileKind> = {};
  for (const file of paths) found[file] = await kindOf(context, target, file, CODE);
  return found;
}

/** Each of `paths` as a small source file. */
function sources(paths: readonly string[]): Record<string, string> {
  return Object.fromEntries(paths.map((file) => [file, `${CODE.join('\n')}\n`]));
}

async function withRepo(commits: CommitSpec[], work: (repo: TestRepo) => Promise<void>, bare = false): Promise<void> {
  const repo = await createTestRepo({ name: 'attributes', commits, bare });
  try {
    await work(repo);
  } finally {
    await repo.remove();
  }
}

/** The temporary folders of attribute reads now in the OS temp folder. */
async function scratchFolders(): Promise<string[]> {
  return (await readdir(tmpdir())).filter((name) => name.startsWith('deep-search-attributes-'));
}

describe('git attributes of a commit, as git reads them', function () {
  it("applies linguist attributes by git's pattern rules: the later line wins, a deeper file overrides within its folder", async function () {
    const files = [
      'clients/app.js',
      'lib/vendor/jquery.min.js',
      'docs/guide.ts',
      'docs/examples/run.ts',
      'src/clients/app.js',
      'web/app.js',
      'web/local.js',
      'web/sub/local.js',
      'server/app.js',
    ];
    const attributes = {
      '.gitattributes': [
        '# generated clients',
        'clients/** linguist-generated',
        '*.min.js linguist-vendored=true',
        'docs/** linguist-documentation',
        'docs/examples/** -linguist-documentation',
        '*.txt text eol=lf',
        'server/*.js linguist-generated',
      ].join('\n'),
      'web/.gitattributes': '*.js linguist-generated\n*.js -linguist-generated\n/local.js linguist-vendored\n',
    };
    await withRepo([{ message: 'files', files: { ...sources(files), ...attributes } }], async (repo) => {
      assert.deepEqual(await kinds(repo, files), {
        'clients/app.js': 'generated',
        'lib/vendor/jquery.min.js': 'vendored',
        'docs/guide.ts': 'documentation',
        'docs/examples/run.ts': 'example',
        'src/clients/app.js': 'implementation',
        'web/app.js': 'implementation',
        'web/local.js': 'vendored',
        'web/sub/local.js': 'implementation',
        'server/app.js': 'generated',
      });
    });
  });

  it('reads character classes, quoted patterns and macros, and macros only from the root file, as git does', async function () {
    const files = [
      'src/gen1.js',
      'src/genx.js',
      'third party/lib.js',
      'third party/sub/lib.js',
      'api/client.ts',
      'web/Widget.js',
      'web/widget.js',
      'sub/x.js',
      'tools/a.js',
    ];
    const attributes = {
      '.gitattributes': [
        '[attr]machine-made linguist-generated -diff',
        'src/gen[[:digit:]]*.js linguist-generated',
        '"third party/*.js" linguist-vendored',
        'api/*.ts machine-made',
        'tools/[!b-z].js linguist-documentation',
      ].join('\n'),
      'web/.gitattributes': '[[:upper:]]*.js linguist-vendored\n',
      // A macro defined below the root is not one: git ignores the definition (with a warning).
      'sub/.gitattributes': '[attr]made linguist-generated\n*.js made\n',
    };
    await withRepo([{ message: 'files', files: { ...sources(files), ...attributes } }], async (repo) => {
      assert.deepEqual(await kinds(repo, files), {
        'src/gen1.js': 'generated',
        'src/genx.js': 'implementation',
        'third party/lib.js': 'vendored',
        'third party/sub/lib.js': 'implementation',
        'api/client.ts': 'generated',
        'web/Widget.js': 'vendored',
        'web/widget.js': 'implementation',
        'sub/x.js': 'implementation',
        'tools/a.js': 'documentation',
      });
    });
  });

  it('reads the commit asked for, not the work tree or another commit, and leaves the repository index as it was', async function () {
    const files = sources(['src/a.js']);
    await withRepo(
      [
        { message: 'generated', files: { ...files, '.gitattributes': 'src/*.js linguist-generated\n' } },
        { message: 'written by hand', files: { '.gitattributes': 'src/*.js -linguist-generated\n' } },
      ],
      async (repo) => {
        const first = (await repo.git('rev-parse', 'HEAD~1')).trim();
        await writeFile(path.join(repo.dir, '.gitattributes'), 'src/*.js linguist-vendored\n');
        const index = await readFile(path.join(repo.dir, '.git', 'index'));
        assert.deepEqual(await kinds(repo, ['src/a.js'], first), { 'src/a.js': 'generated' });
        assert.deepEqual(await kinds(repo, ['src/a.js']), { 'src/a.js': 'implementation' });
        assert.deepEqual(await readFile(path.join(repo.dir, '.git', 'index')), index, "the repository's index is neither read nor written");
      },
    );
  });

  it('reads a bare repository, and removes its temporary index', async function () {
    const before = await scratchFolders();
    await withRepo(
      [{ message: 'files', files: { ...sources(['gen/a.ts', 'src/b.ts']), '.gitattributes': '"gen/*" linguist-generated\n' } }],
      async (repo) => {
        assert.deepEqual(await kinds(repo, ['gen/a.ts', 'src/b.ts']), { 'gen/a.ts': 'generated', 'src/b.ts': 'implementation' });
      },
      true,
    );
    assert.deepEqual(await scratchFolders(), before);
  });

  it('asks git about many paths in bounded batches, in order, and says which are set, unset or given a value', async function () {
    const attributes = [
      '*.gen linguist-generated',
      'f1*.gen -linguist-generated',
      'f2*.gen linguist-generated=false',
      'f3*.gen linguist-vendored=yes',
      'f4*.gen !linguist-generated',
    ].join('\n');
    await withRepo([{ message: 'files', files: { '.gitattributes': `${attributes}\n` } }], async (repo) => {
      // The paths need not be in the tree: git matches them against the commit's patterns.
      const paths = Array.from({ length: 12_001 }, (_, index) => `d/f${index}.gen`);
      const found = await linguistAttributes(repo.dir, await head(repo), [...paths, 'plain.txt'], new AbortController().signal);
      assert.equal(found.size, 12_001 - 1_111, 'every path but those whose attribute is unspecified again (f4…)');
      assert.deepEqual(found.get('d/f0.gen'), { generated: true });
      assert.deepEqual(found.get('d/f12000.gen'), { generated: false }, 'the last path of the third batch');
      assert.deepEqual(found.get('d/f10.gen'), { generated: false });
      assert.deepEqual(found.get('d/f20.gen'), { generated: false });
      assert.deepEqual(found.get('d/f30.gen'), { generated: true, vendored: true });
      assert.equal(found.has('d/f40.gen'), false);
      assert.equal(found.has('plain.txt'), false);
    });
  });
});
