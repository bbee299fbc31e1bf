/**
 * Reads several text files of one commit with a single git process: `git grep` with an empty fixed
 * string prints every line of the files it is given, numbered and prefixed with the file's name.
 * One process instead of one `git cat-file` per file matters because starting a process blocks the
 * engine's event loop (see `spawnTurns.ts`).
 */
import { runGit } from '../git';
import type { GitCallOptions } from './codeSearch';
import type { ServedRepository } from '../repos';

/** Characters kept per file, like the 1 MiB cut of a single blob read. */
export const MAX_FILE_CHARS = 1024 * 1024;
/** Output allowed per file read: its text plus the name and number git puts before every line. */
const OUTPUT_BYTES_PER_FILE = 4 * 1024 * 1024;

/**
 * The lines of each of `paths` at `commit` (a file longer than `MAX_FILE_CHARS` is cut there).
 * A path is absent from the result when it is not a text file at that commit, or when the output
 * limit stopped git before the file ended: read those one by one.
 */
export async function readTextFiles(
  repo: ServedRepository,
  commit: string,
  paths: readonly string[],
  options: GitCallOptions,
): Promise<Map<string, string[]>> {
  const files = new Map<string, string[]>();
  if (paths.length === 0) return files;
  const pathspecs = paths.map((path) => `:(literal)${path}`);
  const result = await runGit(['grep', '-I', '-n', '--null', '-F', '-e', '', commit, '--', ...pathspecs], {
    cwd: repo.dir,
    signal: options.signal,
    timeoutMs: options.timeoutMs,
    maxOutputBytes: OUTPUT_BYTES_PER_FILE * paths.length,
    onOutputLimit: 'truncate',
    okExitCodes: [0, 1],
  });
  const wanted = new Set(paths);
  const prefix = `${commit}:`;
  const sizes = new Map<string, number>();
  let last: string | undefined;
  for (const record of result.stdout.split('\n')) {
    const nameEnd = record.indexOf('\0');
    const numberEnd = record.indexOf('\0', nameEnd + 1);
    if (nameEnd < 0 || numberEnd < 0) continue; // the end of the output, or a line cut by the limit
    const name = record.slice(0, nameEnd);
    const path = name.startsWith(prefix) ? name.slice(prefix.length) : name;
    const lineNumber = Number(record.slice(nameEnd + 1, numberEnd));
    if (!wanted.has(path) || !Number.isInteger(lineNumber)) continue;
    last = path;
    let lines = files.get(path);
    if (!lines) {
      lines = [];
      files.set(path, lines);
    }
    const size = sizes.get(path) ?? 0;
    if (size >= MAX_FILE_CHARS || lineNumber !== lines.length + 1) continue;
    const text = record.slice(numberEnd + 1).replace(/\r$/, '');
    const kept = text.slice(0, MAX_FILE_CHARS - size);
    lines.push(kept);
    sizes.set(path, size + kept.length + 1);
  }
  // Output cut by the limit: the file it was printing may be incomplete, and later ones are missing.
  if (result.truncated && last !== undefined && (sizes.get(last) ?? 0) < MAX_FILE_CHARS) files.delete(last);
  return files;
}
