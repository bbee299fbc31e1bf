/**
 * The search benches' corpus: about 20,000 real source files (JavaScript, TypeScript, JSON, Markdown
 * and CSS of a dozen pinned npm packages, committed and packed), built once into `.bench/corpus/`
 * (git-ignored; the first build downloads the packages with npm and takes a minute or two), and
 * copies of it for the benches that measure growth. Also the ripgrep they compare with.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { runGit } from '../../src/engine/git/git';
import { benchGit } from '../benchGit';
import { ripgrepInVSCode } from '../../src/vscode/engine/ripgrepPath';
import type { BenchContext } from '../report';

const run = promisify(execFile);

/** Pinned packages whose files make the corpus (their own dependencies come along). */
const PACKAGES = [
  'date-fns@2.30.0',
  'rxjs@7.8.1',
  'lodash@4.17.21',
  'core-js@3.39.0',
  'typescript@5.9.3',
  'echarts@5.5.0',
  'ramda@0.29.1',
  'three@0.160.0',
  'moment@2.29.4',
  '@babel/core@7.23.9',
  '@babel/preset-env@7.23.9',
  'aws-sdk@2.1550.0',
];
export const MAX_FILES = 20_000;
const MAX_FILE_BYTES = 1024 * 1024;
const SOURCE_FILE = /\.(js|ts|mjs|cjs|json|md|css)$/;
export interface Corpus {
  dir: string;
  files: number;
  bytes: number;
  packages: string[];
}

/** The ripgrep of the VS Code that `npm run setup:vscode` installs (code-server's), which the engine is given too. */
export function benchRipgrep(root: string): string {
  const found = ripgrepInVSCode(path.join(root, '.vscode-test', 'node_modules', 'code-server', 'lib', 'vscode'));
  if (!found) throw new Error('no ripgrep in .vscode-test/: run npm run setup:vscode (npm run bench does) first');
  return found;
}

/** The corpus repository, built on first use and reused while its package list is unchanged. */
export async function ensureCorpus(context: BenchContext): Promise<Corpus> {
  const base = path.join(context.root, '.bench', 'corpus');
  const dir = path.join(base, 'repo');
  const manifest = path.join(base, 'corpus.json');
  const cached = await readFile(manifest, 'utf8').then(
    (text) => JSON.parse(text) as Corpus,
    () => undefined,
  );
  if (cached && cached.packages.join(' ') === PACKAGES.join(' ') && existsSync(path.join(dir, '.git'))) return { ...cached, dir };

  context.log(
    `building the search corpus once (npm install of ${PACKAGES.length} pinned packages, a git repository of up to ${MAX_FILES} files): a minute or two; later runs reuse .bench/corpus/`,
  );
  const source = path.join(context.root, '.bench', 'corpus-src');
  await run('npm', ['install', '--prefix', source, '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', ...PACKAGES], {
    cwd: context.root,
    maxBuffer: 16 * 2 ** 20,
  });
  const modules = path.join(source, 'node_modules');
  const files = (await sourceFiles(modules, '')).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).slice(0, MAX_FILES);

  await rm(base, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  let bytes = 0;
  for (const file of files) {
    const target = path.join(dir, file);
    await mkdir(path.dirname(target), { recursive: true });
    await copyFile(path.join(modules, file), target);
    bytes += (await stat(target)).size;
  }
  const git = benchGit(dir);
  await git('init', '--quiet', '--initial-branch', 'main');
  await git('add', '--all');
  await git('commit', '--quiet', '-m', `Source files of ${PACKAGES.join(', ')}`);
  // Packed, as a real repository is; git grep reads the pack.
  await git('gc', '--quiet');
  const corpus: Corpus = { dir, files: files.length, bytes, packages: PACKAGES };
  await writeFile(manifest, `${JSON.stringify({ files: corpus.files, bytes, packages: PACKAGES }, null, 2)}\n`);
  return corpus;
}

/** Relative paths of the text source files under `root` (regular files only, under 1 MB). */
async function sourceFiles(root: string, relative: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(path.join(root, relative), { withFileTypes: true })) {
    const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
    if (entry.isDirectory()) found.push(...(await sourceFiles(root, child)));
    else if (entry.isFile() && SOURCE_FILE.test(entry.name) && (await stat(path.join(root, child))).size < MAX_FILE_BYTES) found.push(child);
  }
  return found;
}

/**
 * `count` repositories of the corpus: the corpus itself and clones of it (sharing its objects, each
 * with its own checkout), made once into `.bench/corpus/copies/` and reused while they are at its commit.
 */
export async function corpusCopies(context: BenchContext, corpus: Corpus, count: number): Promise<string[]> {
  const head = (await runGit(['rev-parse', 'HEAD'], { cwd: corpus.dir })).stdout.trim();
  const dirs = [corpus.dir];
  for (let copy = 2; copy <= count; copy++) {
    const dir = path.join(path.dirname(corpus.dir), 'copies', `repo-${copy}`);
    const at = existsSync(path.join(dir, '.git')) ? (await runGit(['rev-parse', 'HEAD'], { cwd: dir }).catch(() => undefined))?.stdout.trim() : undefined;
    if (at !== head) {
      context.log(`copying the search corpus (${copy} of ${count}) into ${path.relative(context.root, dir)}`);
      await rm(dir, { recursive: true, force: true });
      await mkdir(path.dirname(dir), { recursive: true });
      await run('git', ['clone', '--quiet', '--shared', corpus.dir, dir], { maxBuffer: 16 * 2 ** 20 });
      // Served under its folder's name (repo-2, …), as the corpus is (repo), not under its origin's.
      await run('git', ['remote', 'remove', 'origin'], { cwd: dir });
      // A fresh checkout leaves the index racily clean (files as new as the index), which makes every
      // `git diff-index` re-read them until something refreshes it, as any git status soon does.
      await run('git', ['update-index', '-q', '--refresh'], { cwd: dir });
    }
    dirs.push(dir);
  }
  return dirs;
}
