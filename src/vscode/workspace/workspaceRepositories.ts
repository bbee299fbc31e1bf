/**
 * The workspace's own clones of instance repositories, found by their git remotes: where a source
 * link or a code location opens locally instead of as a remote document.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Disposables } from '../disposables';
import { localRepository, type LocalRepository } from './git';

/** The workspace's git repositories by instance name, looked up once per set of folders. */
export class WorkspaceRepositories extends Disposables implements vscode.Disposable {
  private byName: Promise<Map<string, LocalRepository>> | undefined;

  constructor() {
    super();
    this.register(vscode.workspace.onDidChangeWorkspaceFolders(() => (this.byName = undefined)));
  }

  async find(repoName: string): Promise<LocalRepository | undefined> {
    this.byName ??= this.scan();
    return (await this.byName).get(repoName.toLowerCase());
  }

  /** The instance names of the workspace's repositories (as their remotes name them). */
  async names(): Promise<string[]> {
    this.byName ??= this.scan();
    return [...(await this.byName).values()].map((repo) => repo.name);
  }

  /** The repository (if any) holding a file, for questions about a selection. */
  async holding(uri: vscode.Uri): Promise<LocalRepository | undefined> {
    return uri.scheme === 'file' ? localRepository(path.dirname(uri.fsPath)) : undefined;
  }

  private async scan(): Promise<Map<string, LocalRepository>> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    const repos = await Promise.all(folders.map((folder) => localRepository(folder.uri.fsPath)));
    return new Map(repos.flatMap((repo) => (repo ? [[repo.name.toLowerCase(), repo] as const] : [])));
  }
}
