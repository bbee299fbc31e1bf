/**
 * Opens what a link in an answer or a source points at: the workspace's own copy of a repository
 * file (matched by git remote) with the lines selected, else the file as a remote document from the
 * tool server, else the browser; other schemes never.
 */
import * as vscode from 'vscode';
import { linkTarget, type LinkTarget } from '../api/linkTarget';
import type { CodeLocations } from './tools/codeLocations';
import { remoteUri } from './tools/remoteFiles';
import type { ToolAccess } from './tools/toolAccess';
import type { WorkspaceRepositories } from './workspaceRepositories';
import { errorMessage } from '../api/errors';

export class SourceLinkOpener {
  constructor(
    private readonly repositories: WorkspaceRepositories,
    private readonly locations: CodeLocations,
    private readonly access: ToolAccess,
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
        const local = await this.locations.localFile(target.repoName, target.path);
        if (local) {
          await openAtLines(local, target.startLine, target.endLine);
        } else if (await this.access.has('read_file')) {
          await this.openRemote(target);
        } else {
          await vscode.env.openExternal(vscode.Uri.parse(target.url, true));
        }
      }
    }
  }

  /**
   * Where a link points in the editor, without opening it: for a file, the local checkout's file
   * (else the remote document, where the tool server can read files) at the link's lines; for a
   * repository page, its local checkout's folder; otherwise undefined.
   */
  async locate(href: string): Promise<vscode.Location | vscode.Uri | undefined> {
    const instanceUrl = this.instanceUrl();
    const target = instanceUrl ? linkTarget(href, instanceUrl) : undefined;
    if (target?.kind === 'browser') {
      const local = target.repoName ? await this.repositories.find(target.repoName) : undefined;
      return local && vscode.Uri.file(local.root);
    }
    if (target?.kind !== 'file') return undefined;
    const local = await this.locations.localFile(target.repoName, target.path);
    const uri = local ?? ((await this.access.has('read_file')) ? remoteUri({ repo: target.repoName, revision: target.revision, path: target.path }) : undefined);
    if (!uri || !target.startLine) return uri;
    return new vscode.Location(uri, new vscode.Range(target.startLine - 1, 0, (target.endLine ?? target.startLine) - 1, 0));
  }

  /** The file from the tool server at its lines; if it cannot be read, the browser is offered. */
  private async openRemote(target: Extract<LinkTarget, { kind: 'file' }>): Promise<void> {
    try {
      await openAtLines(remoteUri({ repo: target.repoName, revision: target.revision, path: target.path }), target.startLine, target.endLine);
    } catch (error) {
      const inBrowser = vscode.l10n.t('Open in Browser');
      const message = vscode.l10n.t('Could not open {0} from {1}: {2}', target.path, target.repoName, errorMessage(error));
      if ((await vscode.window.showWarningMessage(message, inBrowser)) === inBrowser) await vscode.env.openExternal(vscode.Uri.parse(target.url, true));
    }
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
