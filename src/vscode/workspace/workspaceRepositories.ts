/**
 * The workspace's own copies of instance repositories: where a source link or a code location
 * opens locally instead of as a remote document. How a folder's repository is found depends on the
 * host, and is given: on Node, git clones by their `origin` remote (gitRepositories.ts); in VS Code
 * for the Web, the repository a virtual workspace shows (github.dev's, virtualRepositories.ts),
 * whose files VS Code's file system reads.
 */
import * as vscode from 'vscode';
import { Disposables } from '../disposables';

export interface WorkspaceRepository {
  /** Where the repository's files are, through `vscode.workspace.fs`. */
  root: vscode.Uri;
  /** e.g. `github.com/org/repo`, or the folder name when there is no usable remote. */
  name: string;
}

/** How this host finds the repository holding a folder or file (a URI of the workspace). */
export interface RepositoryFinder {
  /** The repository a workspace folder is, or holds at its top. */
  ofFolder(folder: vscode.Uri): Promise<WorkspaceRepository | undefined>;
  /** The repository holding a file. */
  holding(file: vscode.Uri): Promise<WorkspaceRepository | undefined>;
}

/** The workspace's repositories by instance name, looked up once per set of folders. */
export class WorkspaceRepositories extends Disposables implements vscode.Disposable {
  private byName: Promise<Map<string, WorkspaceRepository>> | undefined;

  constructor(private readonly finder: RepositoryFinder) {
    super();
    this.register(vscode.workspace.onDidChangeWorkspaceFolders(() => (this.byName = undefined)));
  }

  async find(repoName: string): Promise<WorkspaceRepository | undefined> {
    this.byName ??= this.scan();
    return (await this.byName).get(repoName.toLowerCase());
  }

  /** The instance names of the workspace's repositories (as their remotes name them). */
  async names(): Promise<string[]> {
    this.byName ??= this.scan();
    return [...(await this.byName).values()].map((repo) => repo.name);
  }

  /** The repository (if any) holding a file, for questions about a selection. */
  holding(uri: vscode.Uri): Promise<WorkspaceRepository | undefined> {
    return this.finder.holding(uri);
  }

  private async scan(): Promise<Map<string, WorkspaceRepository>> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    const repos = await Promise.all(folders.map((folder) => this.finder.ofFolder(folder.uri)));
    return new Map(repos.flatMap((repo) => (repo ? [[repo.name.toLowerCase(), repo] as const] : [])));
  }
}

/** `file` below `root` as a repository path (`src/a.ts`), or undefined when it is not below it. */
export function pathInRepository(root: vscode.Uri, file: vscode.Uri): string | undefined {
  if (file.scheme !== root.scheme || file.authority !== root.authority) return undefined;
  const base = root.path.endsWith('/') ? root.path : `${root.path}/`;
  return file.path.startsWith(base) && file.path.length > base.length ? file.path.slice(base.length) : undefined;
}
