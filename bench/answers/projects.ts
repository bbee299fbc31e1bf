/**
 * The projects of the answer-quality figure as git repositories, one per project, installed at their
 * pinned versions from the registries this machine reaches (bench/answers/questions.ts says which)
 * and cached in `.bench/answers/repos/<id>/` (git-ignored), rebuilt when a project's pin changes:
 *  - npm: `npm pack <name>@<version>`, the package's own files (no dependencies), or one folder of them;
 *  - Debian: `apt-get download <name>=<version>` into a temporary folder and `dpkg-deb -x` there
 *    (nothing is installed on the system), then the package's source tree. When apt does not know
 *    the version, `apt-get update` runs once first (as root only; a log line says so).
 * Every file of the tree is committed (one commit, fixed author and dates), with the project's
 * `origin` remote so that the engine names the repository as the project is known.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, copyFile, lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { benchGit } from '../benchGit';
import type { BenchContext } from '../report';
import type { Project, ProjectSource } from './questions';

const run = promisify(execFile);

export interface ProjectRepo {
  project: Project;
  /** The repository's working tree. */
  dir: string;
  files: number;
  bytes: number;
}

interface ManifestEntry {
  /** What the repository was built from (the project's source and origin, as JSON). */
  key: string;
  files: number;
  bytes: number;
}

/** The repositories of `projects`, built on first use and whenever a project's pin changes. */
export async function ensureProjectRepos(context: BenchContext, projects: readonly Project[]): Promise<ProjectRepo[]> {
  const base = path.join(context.root, '.bench', 'answers');
  const manifestPath = path.join(base, 'manifest.json');
  const manifest: Record<string, ManifestEntry> = await readFile(manifestPath, 'utf8').then(
    (text) => JSON.parse(text) as Record<string, ManifestEntry>,
    () => ({}),
  );
  const repos: ProjectRepo[] = [];
  let aptUpdated = false;
  for (const project of projects) {
    const dir = path.join(base, 'repos', project.id);
    const key = JSON.stringify({ source: project.source, origin: project.origin });
    const cached = manifest[project.id];
    if (cached?.key === key && existsSync(path.join(dir, '.git'))) {
      repos.push({ project, dir, files: cached.files, bytes: cached.bytes });
      continue;
    }
    context.log(`installing ${describeSource(project.source)} into ${path.relative(context.root, dir)} (once; later runs reuse it)`);
    await mkdir(base, { recursive: true });
    const scratch = await mkdtemp(path.join(base, `download-${project.id}-`));
    try {
      const tree = await fetchTree(context, project.source, scratch, () => {
        const first = !aptUpdated;
        aptUpdated = true;
        return first;
      });
      const into = project.source.registry === 'debian' ? project.source.into : '';
      await rm(dir, { recursive: true, force: true });
      await mkdir(path.join(dir, into), { recursive: true });
      const { files, bytes } = await copyTree(tree, path.join(dir, into));
      await commitRepository(dir, project, files);
      manifest[project.id] = { key, files, bytes };
      await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
      repos.push({ project, dir, files, bytes });
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }
  return repos;
}

function describeSource(source: ProjectSource): string {
  return source.registry === 'npm'
    ? `npm ${source.name}@${source.version}${source.tree ? ` (${source.tree})` : ''}`
    : `Debian ${source.name} ${source.version} (${source.tree})`;
}

/** Downloads and unpacks the source; returns the folder of the tree to commit. */
async function fetchTree(context: BenchContext, source: ProjectSource, scratch: string, mayUpdateApt: () => boolean): Promise<string> {
  const unpacked = path.join(scratch, 'unpacked');
  await mkdir(unpacked, { recursive: true });
  if (source.registry === 'npm') {
    const packed = await run('npm', ['pack', `${source.name}@${source.version}`, '--pack-destination', scratch, '--silent', '--no-audit', '--no-fund'], {
      cwd: scratch,
      maxBuffer: 16 * 2 ** 20,
    });
    const tarball = packed.stdout.trim().split('\n').pop() ?? '';
    if (!tarball.endsWith('.tgz')) throw new Error(`npm pack ${source.name}@${source.version} named no tarball: ${packed.stdout.slice(0, 200)}`);
    await run('tar', ['-xzf', path.join(scratch, tarball), '-C', unpacked]);
    const tree = path.join(unpacked, 'package', source.tree ?? '');
    if (!existsSync(tree)) throw new Error(`${source.name}@${source.version} has no ${source.tree ?? 'package folder'}`);
    return tree;
  }
  const spec = `${source.name}=${source.version}`;
  // apt downloads as its sandbox user (_apt), which must be able to write the folder.
  await chmod(scratch, 0o777);
  const download = () => run('apt-get', ['download', '-q', spec], { cwd: scratch, maxBuffer: 16 * 2 ** 20 });
  try {
    await download();
  } catch (error) {
    const isRoot = process.getuid?.() === 0;
    if (!isRoot || !mayUpdateApt()) throw new Error(`apt-get download ${spec} failed${isRoot ? '' : ' (and apt-get update needs root)'}: ${errorText(error)}`);
    context.log(`apt-get download ${spec} failed (${errorText(error).split('\n')[0]}): running apt-get update first (as root), then again`);
    await run('apt-get', ['update', '-q'], { maxBuffer: 64 * 2 ** 20 });
    await download();
  }
  const debs = (await readdir(scratch)).filter((name) => name.endsWith('.deb'));
  if (debs.length !== 1) throw new Error(`apt-get download ${spec} left ${debs.length} .deb files`);
  await run('dpkg-deb', ['-x', path.join(scratch, debs[0] ?? ''), unpacked]);
  const tree = path.join(unpacked, source.tree);
  if (!existsSync(tree)) throw new Error(`${source.name} ${source.version} has no ${source.tree}`);
  return tree;
}

function errorText(error: unknown): string {
  const stderr = (error as { stderr?: unknown }).stderr;
  if (typeof stderr === 'string' && stderr.trim() !== '') return stderr.trim();
  return error instanceof Error ? error.message : String(error);
}

/** Copies the regular files under `from` to `to` (symbolic links are left out); counts them. */
async function copyTree(from: string, to: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) {
      await mkdir(target, { recursive: true });
      const inner = await copyTree(source, target);
      files += inner.files;
      bytes += inner.bytes;
    } else if (entry.isFile()) {
      await copyFile(source, target);
      files += 1;
      bytes += (await lstat(target)).size;
    }
  }
  return { files, bytes };
}

async function commitRepository(dir: string, project: Project, files: number): Promise<void> {
  const git = benchGit(dir);
  await git('init', '--quiet', '--initial-branch', 'main');
  await git('remote', 'add', 'origin', project.origin);
  await git('add', '--all', '--force');
  await git('commit', '--quiet', '-m', `${project.title}: ${files} files of ${describeSource(project.source)}`);
  await git('gc', '--quiet');
  // A fresh commit leaves the index racily clean; refreshed, as any git status soon would.
  await git('update-index', '-q', '--refresh');
}
