/**
 * Finds the git repositories the engine serves and gives each the name a code-search instance would
 * (`github.com/org/repo`), taken from its `origin` remote when it has one.
 */
import { realpath, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { GitError, runGit } from './git';
import type { ProcessLauncher } from './processLauncher';
import { repoNameFromRemote } from '../../contract/repoNames';

export interface ServedRepository {
  /** Unique name under which the repository is served, e.g. `github.com/acme/app`. */
  name: string;
  /** Absolute directory git runs in: the work tree's top level, or the bare repository. */
  dir: string;
  bare: boolean;
}

export class RepositoryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RepositoryError';
  }
}

/** Checks every directory is a git repository and names them; throws `RepositoryError` otherwise. */
export async function discoverRepositories(dirs: readonly string[], launcher?: ProcessLauncher): Promise<ServedRepository[]> {
  if (dirs.length === 0) throw new RepositoryError('No repository given: pass at least one git repository directory.');
  const found: Array<{ dir: string; bare: boolean; preferredName: string }> = [];
  const seenDirs = new Set<string>();
  for (const dir of dirs) {
    const repository = await inspectRepository(dir, launcher);
    if (seenDirs.has(repository.dir)) continue;
    seenDirs.add(repository.dir);
    found.push(repository);
  }
  const taken = new Set<string>();
  return found.map(({ dir, bare, preferredName }) => {
    const name = uniqueName(preferredName, taken);
    taken.add(name);
    return { name, dir, bare };
  });
}

async function inspectRepository(given: string, launcher: ProcessLauncher | undefined): Promise<{ dir: string; bare: boolean; preferredName: string }> {
  const through = launcher ? { launcher } : {};
  const absolute = path.resolve(given);
  const info = await stat(absolute).catch(() => undefined);
  if (!info?.isDirectory()) throw new RepositoryError(`Repository directory ${absolute} does not exist or is not a directory.`);
  const cwd = await realpath(absolute);
  let bare: boolean;
  try {
    const result = await runGit(['rev-parse', '--is-bare-repository'], { cwd, timeoutMs: 10_000, ...through });
    bare = result.stdout.trim() === 'true';
  } catch (error) {
    const reason = error instanceof GitError ? error.message : String(error);
    throw new RepositoryError(`${absolute} is not a git repository (${reason}).`);
  }
  const dir = bare ? cwd : (await runGit(['rev-parse', '--show-toplevel'], { cwd, timeoutMs: 10_000, ...through })).stdout.trim();
  const remote = await runGit(['remote', 'get-url', 'origin'], { cwd: dir, timeoutMs: 10_000, okExitCodes: [0, 2], ...through })
    .then((result) => (result.exitCode === 0 ? result.stdout.trim() : ''))
    .catch(() => '');
  const preferredName = repoNameFromRemote(remote) ?? folderName(dir);
  return { dir: path.resolve(dir), bare, preferredName };
}

function folderName(dir: string): string {
  const base = path.basename(dir).replace(/\.git$/, '');
  return base === '' ? 'repository' : base;
}

function uniqueName(preferred: string, taken: ReadonlySet<string>): string {
  if (!taken.has(preferred)) return preferred;
  for (let n = 2; ; n++) {
    const candidate = `${preferred}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}
