/**
 * Opens what a link in an answer or a source points at: the workspace's own copy of a repository
 * file (matched by git remote) with the lines selected, else the file as a remote document from the
 * tool server, else the browser; other schemes never.
 */
import * as vscode from 'vscode';
import { linkTarget, type LinkTarget } from '../model/linkTarget';
import type { CodeLocations } from './tools/codeLocations';
import { remoteUri } from './tools/remoteFiles';
import type { ToolAccess } from './tools/toolAccess';
import type { WorkspaceRepositories } from './workspaceRepositories';
import { errorMessage } from '../api/errors';
import { MAX_PREVIEW_LINE_LENGTH, MAX_PREVIEW_LINES, type CitationPreview } from '../protocol';

/** A workspace file larger than this is not read for a preview. */
const MAX_PREVIEW_FILE_BYTES = 8 * 1024 * 1024;
const PREVIEW_TIMEOUT_MS = 20_000;

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

  /**
   * The lines a citation cites, for its preview: from the workspace's checkout when it has the
   * file (as opening the link would show it), else from the tool server (`read_file` with the
   * range). Bounded in lines and characters; never throws.
   */
  async preview(href: string, signal?: AbortSignal): Promise<CitationPreview> {
    const instanceUrl = this.instanceUrl();
    const target = instanceUrl ? linkTarget(href, instanceUrl) : undefined;
    if (target?.kind !== 'file' || target.startLine === undefined) return { ok: false, message: vscode.l10n.t('This link cites no lines of a file.') };
    const startLine = target.startLine;
    const endLine = Math.max(startLine, target.endLine ?? startLine);
    const shownEnd = Math.min(endLine, startLine + MAX_PREVIEW_LINES - 1);
    let local: vscode.Uri | undefined;
    const bounded = (lines: string[]): CitationPreview => ({
      ok: true,
      from: local ? 'workspace' : 'instance',
      startLine,
      lines: lines.slice(0, MAX_PREVIEW_LINES).map((line) => (line.length > MAX_PREVIEW_LINE_LENGTH ? `${line.slice(0, MAX_PREVIEW_LINE_LENGTH)}…` : line)),
      more: endLine - shownEnd,
    });
    try {
      local = await this.locations.localFile(target.repoName, target.path);
      if (local) {
        if ((await vscode.workspace.fs.stat(local)).size > MAX_PREVIEW_FILE_BYTES) return { ok: false, message: vscode.l10n.t('{0} is too large to preview: open the link to see the lines.', target.path) };
        const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(local));
        const lines = text.split(/\r?\n/);
        if (startLine > lines.length) return { ok: false, message: vscode.l10n.t('{0} in the workspace has {1} lines: the cited lines are not in it.', target.path, lines.length) };
        return bounded(lines.slice(startLine - 1, shownEnd));
      }
      if (!(await this.access.has('read_file'))) return { ok: false, message: vscode.l10n.t('The instance cannot read files for a preview here: open the link to see the lines.') };
      const tools = await this.access.ready();
      // A preview that takes longer than this is not worth waiting for: the link still opens.
      const read = await tools.readLines({ repo: target.repoName, revision: target.revision, path: target.path }, startLine, shownEnd, signal ?? AbortSignal.timeout(PREVIEW_TIMEOUT_MS));
      const lines = read.filter((line) => line.line >= startLine && line.line <= shownEnd).map((line) => line.text);
      if (lines.length === 0) return { ok: false, message: vscode.l10n.t('The instance returned none of the cited lines of {0}.', target.path) };
      return bounded(lines);
    } catch (error) {
      return { ok: false, message: vscode.l10n.t('Could not read the cited lines of {0}: {1}', target.path, errorMessage(error)) };
    }
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
