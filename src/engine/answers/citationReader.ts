/**
 * The reads a citation check makes (`citations.ts`), over the served repositories at the revision
 * the question was answered at (or the one a link names): a file's lines (`git cat-file`, bounded)
 * with the repository's canonical name and the normalised path, and where a line of code is (a
 * literal search with the tools' search stack, the first hit). Names and paths come from the
 * model's links: a repository that is not served, a path that is not in the commit, or one that
 * tries to leave it reads as nothing.
 */
import { ToolError } from '../messages/toolError';
import { readBlobText, splitLines } from '../repo/blocks';
import type { ToolContext } from '../repo/context';
import { grepTarget } from '../repo/grep';
import { findRepository, normalizeRepoPath, resolveEntry, resolveRevision } from '../repo/paths';
import type { CitationReader, CitedFile } from './citations';

/** A cited file is read up to this size (the answer's links point into the first part of larger ones). */
const MAX_FILE_BYTES = 1024 * 1024;
/** A quoted line searched for at most this long. */
const MAX_FIND_CHARS = 400;

export function citationReader(context: ToolContext): CitationReader {
  const commits = new Map<string, Promise<string | undefined>>();
  const files = new Map<string, Promise<CitedFile | undefined>>();
  const commitOf = (name: string, revision: string | undefined): Promise<string | undefined> => {
    const key = `${name}\0${revision ?? ''}`;
    let commit = commits.get(key);
    if (!commit) {
      // A repository that is not served, a revision it does not have, or no commits: nothing to cite.
      commit = Promise.resolve()
        .then(() => resolveRevision(context, findRepository(context, name), revision))
        .then(
          (resolved) => resolved.commit,
          (error: unknown) => {
            if (error instanceof ToolError) return undefined;
            throw error;
          },
        );
      commits.set(key, commit);
    }
    return commit;
  };
  const read = async (name: string, path: string, revision: string | undefined): Promise<CitedFile | undefined> => {
    const commit = await commitOf(name, revision);
    if (!commit) return undefined;
    const repo = findRepository(context, name);
    const normalised = normalizeRepoPath(path);
    const entry = await resolveEntry(context, repo, commit, normalised, commit);
    if (entry.type !== 'blob') return undefined;
    const blob = await readBlobText(context, repo, entry.oid, entry.size, MAX_FILE_BYTES);
    // The repository's own name and the path as written once normalised (a symbolic link keeps its own path).
    return blob.binary ? undefined : { repo: repo.name, path: normalised, lines: splitLines(blob.text) };
  };
  return {
    file: (name, path, revision) => {
      const key = `${name}\0${revision ?? ''}\0${path}`;
      let file = files.get(key);
      if (!file) {
        file = read(name, path, revision).catch((error: unknown) => {
          if (error instanceof ToolError) return undefined;
          throw error;
        });
        files.set(key, file);
      }
      return file;
    },
    find: async (name, text, revision) => {
      const commit = await commitOf(name, revision);
      if (!commit || text.length > MAX_FIND_CHARS || text.includes('\n')) return undefined;
      // The search stack the tools use (the index, its trigram filter, ripgrep, git grep), as a literal.
      const target = { repo: findRepository(context, name), commit, revision: commit };
      const found = await grepTarget(context, target, { patterns: [text], syntax: 'fixed', caseSensitive: true, linesPerFile: 20, what: 'the quoted line' });
      // In path order, the first line that holds the quote whole.
      for (const path of [...found.files.keys()].sort()) {
        const hit = found.files.get(path)?.find((line) => line.text.trim() === text.trim());
        if (hit) return { path, line: hit.line };
      }
      return undefined;
    },
  };
}
