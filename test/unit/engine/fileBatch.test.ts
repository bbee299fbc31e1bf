import assert from 'node:assert/strict';
import { readBlob, splitLines, type FileMatch } from '../../../src/engine/conversations/codeSearch';
import { MAX_FILE_CHARS, readTextFiles } from '../../../src/engine/conversations/fileBatch';
import { discoverRepositories, type ServedRepository } from '../../../src/engine/repos';
import { createTestRepo, type TestRepo } from '../../support/gitRepos';

describe('reading several files in one git process', function () {
  const files: Record<string, string> = {
    'src/app.ts': 'export const a = 1;\n\nexport const b = 2;\n',
    'docs/notes [draft].md': 'windows line\r\nsecond\r\n',
    'no-final-newline.txt': 'first\nlast',
    'data/blob.bin': 'PNG\0\u0001\u0002binary',
    'huge.txt': `${'y'.repeat(200)}\n`.repeat(Math.ceil((MAX_FILE_CHARS + 50_000) / 201)),
    // Short lines: git's name and number before each make the output far larger than the text.
    'many-lines.txt': 'z\n'.repeat(350_000),
  };
  let repo: TestRepo;
  let served: ServedRepository;
  let first: string;
  let head: string;
  const git = { signal: new AbortController().signal, timeoutMs: 20_000 };

  before(async function () {
    repo = await createTestRepo({
      commits: [
        { files, message: 'files' },
        { files: { 'src/app.ts': 'export const a = 10;\n' }, message: 'change app' },
      ],
    });
    [served] = (await discoverRepositories([repo.dir])) as [ServedRepository];
    first = (await repo.git('rev-parse', 'HEAD~1')).trim();
    head = (await repo.git('rev-parse', 'HEAD')).trim();
  });
  after(async function () {
    await repo?.remove();
  });

  /** What reading the file on its own with `git cat-file` gives. */
  async function alone(commit: string, path: string): Promise<string[]> {
    const match: FileMatch = { repo: served, commit, path, termHits: new Map(), hits: 0, lines: [] };
    return splitLines(await readBlob(match, git));
  }

  it('gives every line of each text file, as reading it alone does', async function () {
    const paths = ['src/app.ts', 'docs/notes [draft].md', 'no-final-newline.txt'];
    const read = await readTextFiles(served, first, paths, git);
    assert.deepEqual([...read.keys()].sort(), [...paths].sort());
    for (const path of paths) assert.deepEqual(read.get(path), await alone(first, path), path);
    assert.deepEqual(read.get('src/app.ts'), ['export const a = 1;', '', 'export const b = 2;']);
    assert.deepEqual(read.get('docs/notes [draft].md'), ['windows line', 'second']);
  });

  it('reads the commit it is given, not a later one', async function () {
    assert.deepEqual((await readTextFiles(served, head, ['src/app.ts'], git)).get('src/app.ts'), ['export const a = 10;']);
    assert.deepEqual((await readTextFiles(served, first, ['src/app.ts'], git)).get('src/app.ts')?.length, 3);
  });

  it('leaves out binary files and paths that do not exist, for the caller to read alone', async function () {
    const read = await readTextFiles(served, first, ['data/blob.bin', 'missing.txt', 'src/app.ts'], git);
    assert.deepEqual([...read.keys()], ['src/app.ts']);
  });

  it('cuts a file longer than the limit at the limit', async function () {
    const lines = (await readTextFiles(served, first, ['huge.txt'], git)).get('huge.txt') ?? [];
    const chars = lines.reduce((sum, line) => sum + line.length + 1, 0);
    assert.ok(chars <= MAX_FILE_CHARS + 1, `${chars} characters kept`);
    assert.ok(chars > MAX_FILE_CHARS - 202, `${chars} characters kept`);
    assert.ok(lines.every((line) => line === 'y'.repeat(200) || 'y'.repeat(200).startsWith(line)));
  });

  it('leaves out a file that the output limit stopped before its end, for the caller to read alone', async function () {
    const read = await readTextFiles(served, first, ['many-lines.txt'], git);
    assert.equal(read.has('many-lines.txt'), false);
    assert.equal((await alone(first, 'many-lines.txt')).length, 350_000, 'reading it alone gives it whole');
  });

  it('reads nothing, and runs no git, for no paths', async function () {
    const read = await readTextFiles(served, 'not-a-commit', [], git);
    assert.equal(read.size, 0);
  });
});
