/**
 * The little git the extension needs about the workspace: where a folder's repository starts and
 * what the instance calls it (from its `origin` remote), so links and questions name the same repo.
 */
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { repoNameFromRemote } from '../../contract/repoNames';

/** stdout of a quick git question, or undefined when git says no (not a repository, no remote…). */
function git(cwd: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    // Read-only questions: no prompt, no optional locks, no fsmonitor program from the repository's config.
    const env = { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0' };
    execFile('git', ['-c', 'core.fsmonitor=false', ...args], { cwd, env, timeout: 5000, maxBuffer: 64 * 1024, windowsHide: true }, (error, stdout) =>
      resolve(error ? undefined : stdout.trim()),
    );
  });
}

/** The top folder of the git repository holding `dir`, or undefined when there is none. */
export async function gitTopLevel(dir: string): Promise<string | undefined> {
  return (await git(dir, ['rev-parse', '--show-toplevel'])) || undefined;
}

export interface LocalRepository {
  root: string;
  /** e.g. `github.com/org/repo`, or the folder name when there is no usable remote. */
  name: string;
}

/** The repository holding `dir` and its instance name. */
export async function localRepository(dir: string): Promise<LocalRepository | undefined> {
  const root = await gitTopLevel(dir);
  if (!root) return undefined;
  const remote = await git(root, ['remote', 'get-url', 'origin']);
  return { root, name: (remote && repoNameFromRemote(remote)) || path.basename(root) };
}
