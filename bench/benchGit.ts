/**
 * git for the repositories the bench builds: a fixed author and date, no system configuration, no
 * signing or line-ending conversion, so that a repository built twice is the same commit.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Runs git in `dir` the bench's way; resolves with its output. */
export function benchGit(dir: string): (...args: string[]) => Promise<{ stdout: string; stderr: string }> {
  const env = {
    ...process.env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'Bench',
    GIT_AUTHOR_EMAIL: 'bench@example.com',
    GIT_AUTHOR_DATE: '2024-01-01T00:00:00Z',
    GIT_COMMITTER_NAME: 'Bench',
    GIT_COMMITTER_EMAIL: 'bench@example.com',
    GIT_COMMITTER_DATE: '2024-01-01T00:00:00Z',
  };
  return (...args) =>
    run('git', ['-c', 'gc.auto=0', '-c', 'commit.gpgsign=false', '-c', 'core.autocrlf=false', ...args], { cwd: dir, env, maxBuffer: 64 * 2 ** 20 });
}
