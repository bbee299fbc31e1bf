/**
 * The workspace's repositories in VS Code for the Web, which has no git and no disk: a virtual
 * workspace that shows a repository (github.dev's `vscode-vfs://github/<owner>/<repo>`) is that
 * repository, and its files are read through VS Code's file system. Other folders have none.
 */
import type * as vscode from 'vscode';
import type { RepositoryFinder, WorkspaceRepository } from './workspaceRepositories';

/** Hosts of the virtual file systems' authorities (Remote Repositories' GitHub, as github.dev opens it). */
const HOSTS: Readonly<Record<string, string>> = { github: 'github.com' };

export const virtualRepositories: RepositoryFinder = {
  ofFolder: async (folder) => repositoryOf(folder),
  holding: async (file) => repositoryOf(file),
};

/** The repository a `vscode-vfs` URI is in: its first two path segments under the host's name. */
function repositoryOf(uri: vscode.Uri): WorkspaceRepository | undefined {
  const host = uri.scheme === 'vscode-vfs' ? HOSTS[uri.authority.split('+')[0]] : undefined;
  const [owner, name] = uri.path.split('/').filter(Boolean);
  if (!host || !owner || !name) return undefined;
  return { root: uri.with({ path: `/${owner}/${name}`, query: '', fragment: '' }), name: `${host}/${owner}/${name}` };
}
