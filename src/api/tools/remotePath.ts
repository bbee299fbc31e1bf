/**
 * Where a file of a repository on the instance lives in the editor: `/<repo>@<rev>/<path>` (the path
 * of a `deepsearch-remote:` URI). Repository names hold slashes but never `@`; a revision may hold
 * slashes (`feature/x`), so in the path a revision's `/` and `%` are percent-encoded.
 */

export interface RemoteFile {
  repo: string;
  /** Branch, tag or commit; undefined means the default branch (`HEAD` in the path). */
  revision?: string;
  /** From the repository root, without a leading slash; '' for the root directory. */
  path: string;
}

export const DEFAULT_REVISION = 'HEAD';

export function formatRemotePath(file: RemoteFile): string {
  const revision = (file.revision || DEFAULT_REVISION).replace(/%/g, '%25').replace(/\//g, '%2F');
  const path = file.path.replace(/^\/+/, '');
  return `/${file.repo}@${revision}${path ? `/${path}` : ''}`;
}

/** The file a remote path names, or undefined when it is not one (no repository or revision). */
export function parseRemotePath(remotePath: string): RemoteFile | undefined {
  const match = /^\/+([^@]+)@([^/]+)(?:\/(.*))?$/.exec(remotePath);
  if (!match) return undefined;
  const repo = match[1].replace(/\/+$/, '');
  let revision: string;
  try {
    revision = decodeURIComponent(match[2]);
  } catch {
    return undefined;
  }
  const path = (match[3] ?? '').replace(/\/+$/, '');
  if (!repo || !revision || path.split('/').some((segment) => segment === '..')) return undefined;
  return { repo, revision: revision === DEFAULT_REVISION ? undefined : revision, path };
}

/** `a/b/c.ts` → `a/b`; `c.ts` → ''. */
export function parentPath(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

/** `a/b/c.ts` → `c.ts`. */
export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}
