/**
 * Real git repositories for tests, built with the `git` binary in the OS temp folder: files, commits
 * with chosen authors and dates, and an `origin` remote URL. Nothing here is mocked.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

export interface CommitAuthor {
  name: string;
  email: string;
}

export interface CommitSpec {
  /** Path (relative, `/`-separated) → new content, or `null` to delete the file. */
  files: Record<string, string | null>;
  message: string;
  /** Default `Test Author <author@example.com>`; also used as committer. */
  author?: CommitAuthor;
  /** ISO 8601 date for author and committer. Default 2024-01-01T12:00:00Z plus one hour per commit. */
  date?: string;
}

export interface TestRepoOptions {
  commits: CommitSpec[];
  /** URL of the `origin` remote (never contacted), e.g. `https://github.com/acme/app.git`. */
  origin?: string;
  /** Folder name of the repository inside its own temp folder. Default `repo`. */
  name?: string;
  /** Default `main`. */
  branch?: string;
  /** Make a bare clone instead (its `dir` is the bare repository). */
  bare?: boolean;
}

export interface TestRepo {
  /** Absolute path of the work tree (or of the bare repository). */
  dir: string;
  /** Runs git in the repository and resolves with its stdout. */
  git(...args: string[]): Promise<string>;
  /** Adds one more commit. */
  commit(spec: CommitSpec): Promise<void>;
  /** Deletes the repository's temp folder. */
  remove(): Promise<void>;
}

export const DEFAULT_AUTHOR: CommitAuthor = { name: 'Test Author', email: 'author@example.com' };

/** A fresh empty folder under the OS temp folder. */
export function createTempDir(prefix = 'dse-test-'): Promise<string> {
  return mkdtemp(path.join(tmpdir(), prefix));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true, maxRetries: 3 });
}

/** Runs git without the user's global or system configuration getting in the way. */
export function git(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      ['-c', 'commit.gpgsign=false', '-c', 'core.autocrlf=false', ...args],
      { cwd, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', ...env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`git ${args.join(' ')} failed in ${cwd}: ${stderr || error.message}`));
        else resolve(stdout);
      },
    );
  });
}

/**
 * One commit of `count` generated files in a new repository in `dir` (branch `main`), written with
 * `git fast-import`: a hundred thousand files take seconds. The working tree is checked out only
 * when asked (`checkout`). Resolves with the bytes of text written.
 */
export async function generateRepository(
  dir: string,
  count: number,
  fileAt: (index: number) => { path: string; content: string },
  options: { checkout: boolean },
): Promise<number> {
  await mkdir(dir, { recursive: true });
  await git(dir, ['init', '--quiet', '--initial-branch', 'main']);
  const bytes = await importCommit(dir, 'Generated', undefined, count, fileAt);
  if (options.checkout) await git(dir, ['reset', '--quiet', '--hard', 'main']);
  return bytes;
}

/**
 * A clone of the repository `from` in `dir` (sharing its objects by hard links, as a local clone
 * does), not checked out, with one more commit on `main` that adds `files`: a generated tree and a
 * few more files, without generating it all again.
 */
export async function extendRepository(from: string, dir: string, files: readonly { path: string; content: string }[]): Promise<void> {
  await git(path.dirname(dir), ['clone', '--quiet', '--no-checkout', from, dir]);
  await importCommit(dir, 'More', 'refs/heads/main^0', files.length, (index) => files[index]);
}

/** One commit on `main` through `git fast-import`, of `count` files on top of `parent`; resolves with the bytes of text written. */
async function importCommit(
  dir: string,
  message: string,
  parent: string | undefined,
  count: number,
  fileAt: (index: number) => { path: string; content: string },
): Promise<number> {
  const importer = spawn('git', ['fast-import', '--quiet'], { cwd: dir, stdio: ['pipe', 'ignore', 'inherit'] });
  const done = new Promise<void>((resolve, reject) => {
    importer.once('error', reject);
    importer.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`git fast-import exited with ${code}`))));
  });
  const write = (chunk: string | Buffer): Promise<void> =>
    importer.stdin.write(chunk) ? Promise.resolve() : new Promise((resolve) => importer.stdin.once('drain', resolve));
  let bytes = 0;
  await write(`commit refs/heads/main\ncommitter Generator <generator@example.com> 1700000000 +0000\ndata ${Buffer.byteLength(message)}\n${message}\n`);
  if (parent) await write(`from ${parent}\n`);
  for (let index = 0; index < count; index++) {
    const file = fileAt(index);
    const content = Buffer.from(file.content);
    bytes += content.length;
    await write(`M 100644 inline ${file.path}\ndata ${content.length}\n`);
    await write(content);
    await write('\n');
  }
  importer.stdin.end();
  await done;
  return bytes;
}

/** Creates a repository with the given commits (and optional origin) in a new temp folder. */
export async function createTestRepo(options: TestRepoOptions): Promise<TestRepo> {
  const root = await createTempDir('dse-repo-');
  const workTree = path.join(root, options.name ?? 'repo');
  await mkdir(workTree, { recursive: true });
  await git(workTree, ['init', '--quiet', '--initial-branch', options.branch ?? 'main']);
  let commitIndex = 0;
  const commit = async (spec: CommitSpec): Promise<void> => {
    await commitFiles(workTree, spec, commitIndex++);
  };
  for (const spec of options.commits) await commit(spec);
  if (options.origin) await git(workTree, ['remote', 'add', 'origin', options.origin]);

  let dir = workTree;
  if (options.bare) {
    dir = path.join(root, `${options.name ?? 'repo'}.git`);
    await git(root, ['clone', '--quiet', '--bare', workTree, dir]);
    await git(dir, ['remote', 'remove', 'origin']);
    if (options.origin) await git(dir, ['remote', 'add', 'origin', options.origin]);
  }
  return {
    dir,
    git: (...args) => git(dir, args),
    commit,
    remove: () => removeDir(root),
  };
}

async function commitFiles(workTree: string, spec: CommitSpec, index: number): Promise<void> {
  for (const [file, content] of Object.entries(spec.files)) {
    const target = path.join(workTree, ...file.split('/'));
    if (content === null) {
      await unlink(target);
      continue;
    }
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content, 'utf8');
  }
  await git(workTree, ['add', '--all']);
  const author = spec.author ?? DEFAULT_AUTHOR;
  const date = spec.date ?? new Date(Date.UTC(2024, 0, 1, 12 + index)).toISOString();
  await git(workTree, ['commit', '--quiet', '--allow-empty', '-m', spec.message], {
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_NAME: author.name,
    GIT_COMMITTER_EMAIL: author.email,
    GIT_COMMITTER_DATE: date,
  });
}

/** The files of the sample application most engine tests ask about. */
export const SAMPLE_APP_FILES: Readonly<Record<string, string>> = {
  'README.md': '# Acme app\n\nStart the server with `npm start`. Settings are read by parseConfig from app.json.\n',
  'src/config.ts': [
    "import { readFileSync } from 'node:fs';",
    '',
    'export interface AppConfig {',
    '  port: number;',
    '  retries: number;',
    '}',
    '',
    'export class ConfigError extends Error {}',
    '',
    '/** Reads the JSON settings file and checks its fields. */',
    'export function parseConfig(text: string): AppConfig {',
    '  const raw = JSON.parse(text) as Partial<AppConfig>;',
    "  if (typeof raw.port !== 'number') throw new ConfigError('port must be a number');",
    '  return { port: raw.port, retries: raw.retries ?? 3 };',
    '}',
    '',
    'export function loadConfig(file: string): AppConfig {',
    "  return parseConfig(readFileSync(file, 'utf8'));",
    '}',
    '',
  ].join('\n'),
  'src/server.ts': [
    "import { loadConfig } from './config';",
    '',
    'export function startServer(): void {',
    "  const config = loadConfig('app.json');",
    '  console.log(`listening on ${config.port}`);',
    '}',
    '',
  ].join('\n'),
  'lib/retry_policy.py': [
    'import time',
    '',
    '',
    'def retry_with_backoff(action, retries=3):',
    '    for attempt in range(retries):',
    '        try:',
    '            return action()',
    '        except OSError:',
    '            time.sleep(2 ** attempt)',
    '    raise RuntimeError("gave up")',
    '',
  ].join('\n'),
};

export const SAMPLE_APP_ORIGIN = 'https://github.com/acme/app.git';
export const SAMPLE_APP_NAME = 'github.com/acme/app';

/** The sample application as a repository named `github.com/acme/app`, in two commits. */
export function createSampleAppRepo(): Promise<TestRepo> {
  const { 'lib/retry_policy.py': retry, ...first } = SAMPLE_APP_FILES;
  return createTestRepo({
    name: 'app',
    origin: SAMPLE_APP_ORIGIN,
    commits: [
      { files: first, message: 'Add config and server', author: { name: 'Ada Lovelace', email: 'ada@example.com' } },
      { files: { 'lib/retry_policy.py': retry }, message: 'Add retry policy', author: { name: 'Alan Turing', email: 'alan@example.com' } },
    ],
  });
}
