/**
 * sg_read_file, sg_list_files and sg_list_repos on real repositories: numbering, ranges, revisions,
 * the 128 KB limit, binary and Latin-1 files, symbolic links, pagination, and paths or revisions
 * that try to leave the repository or pass for git options.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { APP, BIG_LINES, EMPTY, LIB, McpSession, TOOLS, type McpWorld, useMcpWorld } from './fixture';

interface Content {
  content: string;
}
interface Files {
  files: Array<{ path: string; isDirectory: boolean }>;
}
interface Repos {
  repositories: Array<{ name: string; description: string; private: boolean; archived: boolean; fork: boolean; stars: number }>;
  pagination: { totalCount: number; hasNextPage: boolean; hasPreviousPage: boolean; startCursor?: string; endCursor?: string };
}

describe('MCP tools: files and repositories', function () {
  let world: McpWorld;
  let mcp: McpSession;

  useMcpWorld((made) => ({ world, mcp } = made));

  describe('sg_read_file', function () {
    it('numbers every line "N: text", in content and in the text', async function () {
      const { text, structured } = await mcp.ok<Content>('sg_read_file', { repo: APP, path: 'src/config.ts' });
      const lines = structured.content.split('\n');
      assert.equal(lines.length, 19);
      assert.equal(lines[0], "1: import { readFileSync } from 'node:fs';");
      assert.equal(lines[1], '2: ');
      assert.equal(lines[10], '11: export function parseConfig(text: string): AppConfig {');
      assert.equal(text, structured.content);
    });

    it('reads line ranges, open at either end, and stops at the end of the file', async function () {
      const middle = await mcp.ok<Content>('sg_read_file', { repo: APP, path: 'src/config.ts', startLine: 11, endLine: 13 });
      assert.deepEqual(
        middle.structured.content.split('\n').map((line) => line.split(':')[0]),
        ['11', '12', '13'],
      );
      const tail = await mcp.ok<Content>('sg_read_file', { repo: APP, path: 'src/config.ts', startLine: 18 });
      assert.equal(tail.structured.content, "18:   return parseConfig(readFileSync(file, 'utf8'));\n19: }");
      const head = await mcp.ok<Content>('sg_read_file', { repo: APP, path: 'src/config.ts', endLine: 1 });
      assert.equal(head.structured.content, "1: import { readFileSync } from 'node:fs';");
      const beyond = await mcp.ok<Content>('sg_read_file', { repo: APP, path: 'src/config.ts', startLine: 19, endLine: 500 });
      assert.equal(beyond.structured.content, '19: }');
      assert.match(beyond.texts.join('\n'), /has 19 lines/);
    });

    it('refuses ranges that cannot be read, saying what would work', async function () {
      assert.match(await mcp.fails('sg_read_file', { repo: APP, path: 'src/config.ts', startLine: 40 }), /past the end.*19 lines/);
      assert.match(await mcp.fails('sg_read_file', { repo: APP, path: 'src/config.ts', startLine: 5, endLine: 2 }), /endLine 2 is before startLine 5/);
      assert.match(await mcp.fails('sg_read_file', { repo: APP, path: 'src/config.ts', startLine: 0 }), /startLine must be a whole number of at least 1/);
      assert.match(await mcp.fails('sg_read_file', { repo: APP, path: 'src/config.ts', endLine: -3 }), /endLine/);
    });

    it('reads any revision: a branch, a tag, a commit hash, an expression', async function () {
      const tagged = await mcp.ok<Content>('sg_read_file', { repo: APP, path: 'src/config.ts', startLine: 14, endLine: 14, revision: 'v1.0' });
      assert.match(tagged.structured.content, /raw\.retries \?\? 5/);
      const original = await mcp.ok<Content>('sg_read_file', { repo: APP, path: 'src/config.ts', startLine: 14, endLine: 14, revision: world.commits.initial });
      assert.match(original.structured.content, /raw\.retries \?\? 3/);
      const short = await mcp.ok<Content>('sg_read_file', {
        repo: APP,
        path: 'src/config.ts',
        startLine: 14,
        endLine: 14,
        revision: world.commits.initial?.slice(0, 10),
      });
      assert.equal(short.structured.content, original.structured.content);
      const branch = await mcp.ok<Content>('sg_read_file', { repo: APP, path: 'src/login.ts', revision: 'feature/login' });
      assert.match(branch.structured.content, /^1: export function login/);
      const before = await mcp.ok<Content>('sg_read_file', { repo: APP, path: 'src/util.ts', revision: 'main~4' });
      assert.match(before.structured.content, /slugify/);
      assert.match(
        await mcp.fails('sg_read_file', { repo: APP, path: 'src/login.ts' }),
        /src\/login\.ts does not exist in github\.com\/acme\/app at HEAD.*sg_list_files/,
      );
    });

    it('names the known branches and tags when a revision does not exist', async function () {
      const message = await mcp.fails('sg_read_file', { repo: APP, path: 'README.md', revision: 'no-such-branch' });
      assert.match(message, /"no-such-branch" does not exist in github\.com\/acme\/app/);
      assert.match(message, /main/);
      assert.match(message, /v1\.0/);
    });

    it('says to read a file over 128 KB in ranges, and then reads those ranges', async function () {
      const message = await mcp.fails('sg_read_file', { repo: APP, path: 'data/big.txt' });
      assert.match(message, /data\/big\.txt is 17\d(\.\d)? KB, over the 128 KB limit: read it in ranges with startLine\/endLine/);
      assert.match(message, new RegExp(`it has ${BIG_LINES} lines`));
      const part = await mcp.ok<Content>('sg_read_file', { repo: APP, path: 'data/big.txt', startLine: 2990, endLine: 3000 });
      const lines = part.structured.content.split('\n');
      assert.equal(lines.length, 11);
      assert.match(lines[10] ?? '', /^3000: row 03000 x+$/);
      const tooWide = await mcp.fails('sg_read_file', { repo: APP, path: 'data/big.txt', startLine: 1, endLine: 3000 });
      assert.match(tooWide, /over the 128 KB limit: read a smaller range/);
    });

    it('refuses binary files and shows non-UTF-8 bytes as replacement characters with a note', async function () {
      assert.match(await mcp.fails('sg_read_file', { repo: APP, path: 'assets/logo.png' }), /binary file/);
      const latin1 = await mcp.ok<Content>('sg_read_file', { repo: APP, path: 'notes-latin1.txt' });
      assert.equal(latin1.structured.content, '1: caf\uFFFD na\uFFFDve');
      assert.match(latin1.texts.join('\n'), /not valid UTF-8/);
    });

    it('follows a symbolic link that stays in the repository, also in a folder name', async function () {
      const link = await mcp.ok<Content>('sg_read_file', { repo: APP, path: 'src/readme-link' });
      assert.match(link.structured.content, /^1: # Acme billing/);
      assert.match(link.texts.join('\n'), /symbolic link; this is README\.md/);
      const throughFolder = await mcp.ok<Content>('sg_read_file', { repo: APP, path: 'src/database/connection.ts', endLine: 2 });
      assert.match(throughFolder.structured.content, /ConnectionPool/);
    });

    it('refuses symbolic links that lead out of the repository', async function () {
      assert.match(await mcp.fails('sg_read_file', { repo: APP, path: 'escape' }), /symbolic link that points outside the repository/);
      assert.match(await mcp.fails('sg_read_file', { repo: APP, path: 'outside-dir/passwd' }), /symbolic link that points outside the repository/);
      assert.match(await mcp.fails('sg_list_files', { repo: APP, path: 'outside-dir' }), /outside the repository/);
    });

    it('refuses paths that leave the repository or are not paths at all', async function () {
      const hostile: Array<[string, RegExp]> = [
        ['../lib/ts/price.ts', /contains "\.\."/],
        ['src/../../etc/passwd', /contains "\.\."/],
        ['/etc/passwd', /is absolute/],
        ['C:/Windows/win.ini', /is absolute/],
        ['~/.ssh/id_rsa', /is absolute/],
        ['src\\config.ts', /backslash/],
        ['src/config.ts\u0000', /control characters/],
        ['', /path is empty/],
      ];
      for (const [input, expected] of hostile) assert.match(await mcp.fails('sg_read_file', { repo: APP, path: input }), expected, input);
      assert.match(await mcp.fails('sg_read_file', { repo: APP, path: 'src' }), /is a directory: list it with sg_list_files/);
      const normalised = await mcp.ok<Content>('sg_read_file', { repo: APP, path: './src//config.ts', endLine: 1 });
      assert.match(normalised.structured.content, /^1: import/);
    });

    it('never takes a revision for an option', async function () {
      const target = path.join(tmpdir(), `mcp-injection-${process.pid}`);
      for (const revision of [`--output=${target}`, '-h', '--all', 'main..feature/login', 'HEAD:README.md', 'main README.md']) {
        const message = await mcp.fails('sg_read_file', { repo: APP, path: 'README.md', revision });
        assert.match(message, /revision/, revision);
      }
      assert.equal(existsSync(target), false);
    });

    it('names the served repositories when the repository is unknown, and finds one by its org/name', async function () {
      const message = await mcp.fails('sg_read_file', { repo: 'github.com/acme/nope', path: 'README.md' });
      assert.match(message, /No repository named "github\.com\/acme\/nope".*github\.com\/acme\/app.*sg_list_repos/);
      const short = await mcp.ok<Content>('sg_read_file', { repo: 'acme/lib', path: 'ts/price.ts', endLine: 1 });
      assert.match(short.structured.content, /formatPrice/);
      const bare = await mcp.ok<Content>('sg_read_file', { repo: TOOLS, path: 'deploy.sh' });
      assert.match(bare.structured.content, /deploying billing/);
      assert.match(await mcp.fails('sg_read_file', { repo: EMPTY, path: 'README.md' }), /has no commits yet/);
    });
  });

  describe('sg_list_files', function () {
    it('lists the root, directories first with a trailing slash', async function () {
      const { structured, text } = await mcp.ok<Files>('sg_list_files', { repo: APP });
      assert.deepEqual(
        structured.files.map((file) => file.path),
        ['assets/', 'data/', 'lib/', 'src/', 'README.md', 'escape', 'notes-latin1.txt', 'outside-dir'],
      );
      assert.deepEqual(
        structured.files.slice(0, 4).map((file) => file.isDirectory),
        [true, true, true, true],
      );
      assert.match(text, /8 entries in the root of github\.com\/acme\/app at HEAD/);
    });

    it('lists a directory with paths from the root, at any revision', async function () {
      const now = await mcp.ok<Files>('sg_list_files', { repo: APP, path: 'src' });
      assert.deepEqual(
        now.structured.files.map((file) => file.path),
        ['src/db/', 'src/config.ts', 'src/database', 'src/helpers.ts', 'src/readme-link', 'src/server.ts'],
      );
      const then = await mcp.ok<Files>('sg_list_files', { repo: APP, path: 'src/', revision: 'v1.0' });
      assert.deepEqual(
        then.structured.files.map((file) => file.path),
        ['src/db/', 'src/config.ts', 'src/server.ts', 'src/util.ts'],
      );
      const branch = await mcp.ok<Files>('sg_list_files', { repo: APP, path: 'src', revision: 'feature/login' });
      assert.ok(branch.structured.files.some((file) => file.path === 'src/login.ts'));
      const linked = await mcp.ok<Files>('sg_list_files', { repo: APP, path: 'src/database' });
      assert.deepEqual(
        linked.structured.files.map((file) => file.path),
        ['src/db/connection.ts'],
      );
    });

    it('says what to do with a file, a missing folder, traversal and bad revisions', async function () {
      assert.match(await mcp.fails('sg_list_files', { repo: APP, path: 'README.md' }), /is a file, not a directory: read it with sg_read_file/);
      assert.match(await mcp.fails('sg_list_files', { repo: APP, path: 'nope' }), /nope does not exist/);
      assert.match(await mcp.fails('sg_list_files', { repo: APP, path: '..' }), /contains "\.\."/);
      assert.match(await mcp.fails('sg_list_files', { repo: APP, revision: '--output=/tmp/x' }), /starts with "-"/);
      assert.match(await mcp.fails('sg_list_files', { repo: APP, revision: 'deadbeef' }), /does not exist/);
    });
  });

  describe('sg_list_repos', function () {
    it('finds repositories by part of their name, case-insensitively, with anchors', async function () {
      const acme = await mcp.ok<Repos>('sg_list_repos', { query: 'ACME' });
      assert.deepEqual(
        acme.structured.repositories.map((repo) => repo.name),
        [APP, LIB],
      );
      assert.deepEqual(acme.structured.repositories[0], { name: APP, description: '', private: true, archived: false, fork: false, stars: 0 });
      assert.equal(acme.structured.repositories[1]?.description, 'Shared helpers in five languages');
      assert.match(acme.text, /github\.com\/acme\/lib — Shared helpers in five languages/);
      const all = await mcp.ok<Repos>('sg_list_repos', { query: '' });
      assert.equal(all.structured.pagination.totalCount, 4);
      const anchored = await mcp.ok<Repos>('sg_list_repos', { query: '^github.com/other' });
      assert.deepEqual(
        anchored.structured.repositories.map((repo) => repo.name),
        [TOOLS],
      );
      const suffix = await mcp.ok<Repos>('sg_list_repos', { query: 'lib$' });
      assert.deepEqual(
        suffix.structured.repositories.map((repo) => repo.name),
        [LIB],
      );
      const none = await mcp.ok<Repos>('sg_list_repos', { query: 'kubernetes' });
      assert.deepEqual(none.structured.repositories, []);
      assert.match(none.text, /No served repository name contains "kubernetes"/);
    });

    it('repeats only the start of a long query it found nothing for', async function () {
      const none = await mcp.ok<Repos>('sg_list_repos', { query: 'q'.repeat(50_000) });
      assert.ok(none.text.length < 400, `the reply is ${none.text.length} characters`);
      assert.match(none.text, /No served repository name contains "q{100}"… \(50000 characters\)/);
    });

    it('pages forward with after and back with before', async function () {
      const first = await mcp.ok<Repos>('sg_list_repos', { query: '', limit: 1 });
      assert.deepEqual(
        first.structured.repositories.map((repo) => repo.name),
        [EMPTY],
      );
      assert.deepEqual(
        { total: first.structured.pagination.totalCount, next: first.structured.pagination.hasNextPage, previous: first.structured.pagination.hasPreviousPage },
        { total: 4, next: true, previous: false },
      );
      const names = [EMPTY];
      let cursor = first.structured.pagination.endCursor;
      for (;;) {
        const page = await mcp.ok<Repos>('sg_list_repos', { query: '', limit: 1, after: cursor });
        names.push(...page.structured.repositories.map((repo) => repo.name));
        assert.equal(page.structured.pagination.hasPreviousPage, true);
        if (!page.structured.pagination.hasNextPage) break;
        cursor = page.structured.pagination.endCursor;
      }
      assert.deepEqual(names, [EMPTY, APP, LIB, TOOLS]);
      const last = await mcp.ok<Repos>('sg_list_repos', { query: '', limit: 2, after: first.structured.pagination.endCursor });
      assert.deepEqual(
        last.structured.repositories.map((repo) => repo.name),
        [APP, LIB],
      );
      const back = await mcp.ok<Repos>('sg_list_repos', { query: '', limit: 2, before: last.structured.pagination.startCursor });
      assert.deepEqual(
        back.structured.repositories.map((repo) => repo.name),
        [EMPTY],
      );
      assert.equal(back.structured.pagination.hasPreviousPage, false);
      assert.equal(back.structured.pagination.hasNextPage, true);
    });

    it('defaults to 50 per page, caps at 100 and rejects bad limits and cursors', async function () {
      const page = await mcp.ok<Repos>('sg_list_repos', { query: '', limit: 1000 });
      assert.equal(page.structured.repositories.length, 4);
      assert.match(await mcp.fails('sg_list_repos', { query: '', limit: 0 }), /limit must be a whole number of at least 1/);
      assert.match(await mcp.fails('sg_list_repos', { query: '', after: 'garbage!' }), /is not a cursor of sg_list_repos/);
      assert.match(await mcp.fails('sg_list_repos', { query: '', after: 'eyJvZmZzZXQiOjF9' }), /not from sg_list_repos/);
      assert.match(await mcp.fails('sg_list_repos', { query: '', after: 'x', before: 'y' }), /not both/);
    });
  });
});
