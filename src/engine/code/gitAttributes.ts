/**
 * The `linguist-generated`, `linguist-vendored` and `linguist-documentation` attributes of a commit's
 * files, as git itself reads them: from the commit's `.gitattributes` files by all of git's rules
 * (character classes, quoted patterns, macros, deeper files over shallower ones) and from the
 * repository's own `info/attributes`, as `git check-attr` does. git 2.40 reads a commit's with
 * `check-attr --source`; for the older git of many machines (Debian 12 has 2.39), the commit's tree
 * is read into an index of our own in a temporary folder, which `check-attr --cached` reads, and
 * the folder is removed at once. The paths go to git in batches, each run bounded in time and output.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkAttrValues } from '../git/checkAttr';
import { runGitBytes } from '../git/git';
import type { ProcessLauncher } from '../git/processLauncher';
import type { LinguistAttributes } from './fileKinds';

const ATTRIBUTES: ReadonlyArray<[string, keyof LinguistAttributes]> = [
  ['linguist-generated', 'generated'],
  ['linguist-vendored', 'vendored'],
  ['linguist-documentation', 'documentation'],
];

/** Paths asked of one `check-attr` run. */
const PATHS_PER_RUN = 5_000;
/** Output allowed per path and attribute beyond the path itself: its name and a value of reasonable length. */
const OUTPUT_PER_ANSWER = 1_024;
/** Each git run of a commit's attributes: reading a tree of some hundred thousand files takes a second. */
const GIT_TIMEOUT_MS = 60_000;

/** Whether a path of a tree is a `.gitattributes` file: a tree without one has no attributes of its own. */
export function isAttributesFile(path: string): boolean {
  return path === '.gitattributes' || path.endsWith('/.gitattributes');
}

/**
 * What git says of `paths` in `commit`: the paths with at least one linguist attribute set, unset or
 * given a value (`-linguist-generated` is `false`, as `linguist-generated=false` is; any other value
 * is `true`, as for GitHub's linguist). Rejects when git fails or `signal` aborts.
 */
export async function linguistAttributes(
  dir: string,
  commit: string,
  paths: readonly string[],
  signal: AbortSignal,
  launcher?: ProcessLauncher,
): Promise<Map<string, LinguistAttributes>> {
  const found = new Map<string, LinguistAttributes>();
  if (paths.length === 0) return found;
  const scratch = await mkdtemp(join(tmpdir(), 'deep-search-attributes-'));
  try {
    const indexFile = join(scratch, 'index');
    // The split index would write its shared part into the repository: this index stays whole.
    await runGitBytes(['-c', 'core.splitIndex=false', 'read-tree', commit], {
      cwd: dir,
      signal,
      indexFile,
      timeoutMs: GIT_TIMEOUT_MS,
      maxOutputBytes: 64 * 1024,
      ...(launcher ? { launcher } : {}),
    });
    for (let start = 0; start < paths.length; start += PATHS_PER_RUN) {
      const batch = paths.slice(start, start + PATHS_PER_RUN).map((path) => Buffer.from(path, 'utf8'));
      const input = Buffer.concat(batch.flatMap((path) => [path, Buffer.from([0])]));
      const maxOutputBytes = ATTRIBUTES.length * (input.length + batch.length * OUTPUT_PER_ANSWER);
      const { stdout } = await runGitBytes(['check-attr', '--cached', '--stdin', '-z', ...ATTRIBUTES.map(([name]) => name)], {
        cwd: dir,
        signal,
        indexFile,
        input,
        timeoutMs: GIT_TIMEOUT_MS,
        maxOutputBytes,
        ...(launcher ? { launcher } : {}),
      });
      readAnswers(stdout, batch, found);
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return found;
}

/** `check-attr -z` output for `batch` into `found`: the attributes each path sets or unsets. */
function readAnswers(output: Buffer, batch: readonly Buffer[], found: Map<string, LinguistAttributes>): void {
  const values = checkAttrValues(
    output,
    batch,
    ATTRIBUTES.map(([name]) => name),
  );
  batch.forEach((path, index) => {
    const attributes: LinguistAttributes = {};
    ATTRIBUTES.forEach(([, key], which) => {
      const value = values[index]?.[which] ?? 'unspecified';
      if (value !== 'unspecified') attributes[key] = value !== 'unset' && value !== 'false';
    });
    if (Object.keys(attributes).length > 0) found.set(path.toString('utf8'), attributes);
  });
}
