/**
 * The workspace's repositories on a Node host: git clones on disk, named by their `origin` remote.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { localRepository, type LocalRepository } from './git';
import type { RepositoryFinder, WorkspaceRepository } from './workspaceRepositories';

export const gitRepositories: RepositoryFinder = {
  ofFolder: async (folder) => (folder.scheme === 'file' ? inWorkspace(await localRepository(folder.fsPath)) : undefined),
  holding: async (file) => (file.scheme === 'file' ? inWorkspace(await localRepository(path.dirname(file.fsPath))) : undefined),
};

function inWorkspace(repo: LocalRepository | undefined): WorkspaceRepository | undefined {
  return repo && { root: vscode.Uri.file(repo.root), name: repo.name };
}
