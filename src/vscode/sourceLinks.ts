/**
 * Opens what a link in an answer or a source points at: the workspace's own copy of a repository
 * file (matched by git remote) with the lines selected, otherwise the browser; other schemes never.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { linkTarget } from '../api/linkTarget';
import { localRepository, type LocalRepository } from './git';

/** The workspace's git repositories by instance name, looked up once per set of folders. */
export class WorkspaceRepositories implements vscode.Disposable {
  private byName: Promise<Map<string, LocalRepository>> | undefined;
  private readonly subscription = vscode.workspace.onDidChangeWorkspaceFolders(() => (this.byName = undefined));

  async find(repoName: string): Promise<LocalRepository | undefined> {
    this.byName ??= this.scan();
    return (await this.byName).get(repoName.toLowerCase());
  }

  /** The repository (if any) holding a file, for questions about a selection. */
  async holding(uri: vscode.Uri): Promise<LocalRepository | undefined> {
    return uri.scheme === 'file' ? localRepository(path.dirname(uri.fsPath)) : undefined;
  }

  dispose(): void {
    this.subscription.dispose();
  }

  private async scan(): Promise<Map<string, LocalRepository>> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    const repos = await Promise.all(folders.map((folder) => localRepository(folder.uri.fsPath)));
    return new Map(repos.flatMap((repo) => (repo ? [[repo.name.toLowerCase(), repo] as const] : [])));
  }
}

export class SourceLinkOpener {
  constructor(
    private readonly repositories: WorkspaceRepositories,
    private readonly instanceUrl: () => string | undefined,
  ) {}

  async open(href: string): Promise<void> {
    const instanceUrl = this.instanceUrl();
    if (!instanceUrl) throw new Error(vscode.l10n.t('Sign in to open links of this conversation.'));
    const target = linkTarget(href, instanceUrl);
    switch (target.kind) {
      case 'refused':
        void vscode.window.showWarningMessage(target.reason);
        return;
      case 'browser': {
        const local = target.repoName ? await this.repositories.find(target.repoName) : undefined;
        if (local) await vscode.commands.executeCommand('revealInExplorer', vscode.Uri.file(local.root));
        else await vscode.env.openExternal(vscode.Uri.parse(target.url, true));
        return;
      }
      case 'file': {
        const local = await this.repositories.find(target.repoName);
        const file = local && resolveInside(local.root, target.path);
        if (file && (await exists(file))) {
          await openAtLines(vscode.Uri.file(file), target.startLine, target.endLine);
        } else {
          await vscode.env.openExternal(vscode.Uri.parse(target.url, true));
        }
      }
    }
  }
}

/** The file's path inside the repository, or undefined if the link tries to leave it. */
function resolveInside(root: string, relativePath: string): string | undefined {
  const file = path.resolve(root, relativePath);
  return file.startsWith(root + path.sep) ? file : undefined;
}

async function exists(file: string): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(vscode.Uri.file(file));
    return true;
  } catch {
    return false;
  }
}

export async function openAtLines(uri: vscode.Uri, startLine?: number, endLine?: number): Promise<vscode.TextEditor> {
  const document = await vscode.workspace.openTextDocument(uri);
  const last = document.lineCount - 1;
  const start = Math.min(Math.max((startLine ?? 1) - 1, 0), last);
  const end = Math.min(Math.max((endLine ?? startLine ?? 1) - 1, start), last);
  const selection = startLine
    ? new vscode.Selection(start, 0, end, document.lineAt(end).range.end.character)
    : new vscode.Selection(0, 0, 0, 0);
  const editor = await vscode.window.showTextDocument(document, { selection, preview: true });
  editor.revealRange(selection, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  return editor;
}
