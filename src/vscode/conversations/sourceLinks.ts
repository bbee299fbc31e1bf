/**
 * Opens what a link in an answer or a source points at: the workspace's own copy of a repository
 * file (matched by git remote) with the lines selected, else the file as a remote document from the
 * tool server, else the browser; other schemes never.
 */
import * as vscode from 'vscode';
import { linkTarget, type LinkTarget } from '../../model/linkTarget';
import type { CodeLocations } from '../tools/codeLocations';
import { remoteUri } from '../tools/remoteFiles';
import type { ToolAccess } from '../tools/toolAccess';
import type { WorkspaceRepositories } from '../workspace/workspaceRepositories';
import { markWalkthroughDone, WALKTHROUGH_DONE } from '../walkthrough';
import { errorMessage } from '../../api/errors';
import { MAX_PREVIEW_LINE_LENGTH, MAX_PREVIEW_LINES, type CitationPreview } from '../../protocol';

/** A workspace file larger than this is not read for a preview. */
const MAX_PREVIEW_FILE_BYTES = 8 * 1024 * 1024;
const PREVIEW_TIMEOUT_MS = 20_000;

type FileTarget = Extract<LinkTarget, { kind: 'file' }>;

/** Where a link goes. */
type Place =
  | { kind: 'local' | 'remote'; uri: vscode.Uri; target: FileTarget }
  | { kind: 'folder'; uri: vscode.Uri }
  | { kind: 'browser'; url: string }
  | { kind: 'refused'; reason: string };

export class SourceLinkOpener {
  constructor(
    private readonly repositories: WorkspaceRepositories,
    private readonly locations: CodeLocations,
    private readonly access: ToolAccess,
    private readonly instanceUrl: () => string | undefined,
  ) {}

  async open(href: string): Promise<void> {
    if (!this.instanceUrl()) throw new Error(vscode.l10n.t('Sign in to open links of this conversation.'));
    const place = await this.placeOf(href);
    switch (place.kind) {
      case 'refused':
        void vscode.window.showWarningMessage(place.reason);
        return;
      case 'folder':
        await vscode.commands.executeCommand('revealInExplorer', place.uri);
        return;
      case 'browser':
        await vscode.env.openExternal(vscode.Uri.parse(place.url, true));
        return;
      case 'local':
        await openAtLines(place.uri, place.target.startLine, place.target.endLine);
        markWalkthroughDone(WALKTHROUGH_DONE.openedCitation);
        return;
      case 'remote':
        await this.openRemote(place.target, place.uri);
        markWalkthroughDone(WALKTHROUGH_DONE.openedCitation);
    }
  }

  /**
   * Where a link points in the editor, without opening it: for a file, the local checkout's file
   * (else the remote document, where the tool server can read files) at the link's lines; for a
   * repository page, its local checkout's folder; otherwise undefined.
   */
  async locate(href: string): Promise<vscode.Location | vscode.Uri | undefined> {
    const place = await this.placeOf(href);
    switch (place.kind) {
      case 'folder':
        return place.uri;
      case 'local':
      case 'remote': {
        const { startLine, endLine } = place.target;
        return startLine ? new vscode.Location(place.uri, new vscode.Range(startLine - 1, 0, (endLine ?? startLine) - 1, 0)) : place.uri;
      }
      default:
        return undefined;
    }
  }

  /**
   * The one choice of where a link goes, which opening and locating share: a file of a repository
   * to the workspace's checkout, else to the tool server's remote document, else to the browser; a
   * repository page to its checkout's folder, else the browser; anything else is refused.
   */
  private async placeOf(href: string): Promise<Place> {
    const instanceUrl = this.instanceUrl();
    if (!instanceUrl) return { kind: 'refused', reason: vscode.l10n.t('Sign in to open links of this conversation.') };
    const target = linkTarget(href, instanceUrl);
    switch (target.kind) {
      case 'refused':
        return target;
      case 'browser': {
        const local = target.repoName ? await this.repositories.find(target.repoName) : undefined;
        return local ? { kind: 'folder', uri: local.root } : { kind: 'browser', url: target.url };
      }
      case 'file': {
        const local = await this.locations.localFile(target.repoName, target.path);
        if (local) return { kind: 'local', uri: local, target };
        if (await this.access.has('read_file'))
          return { kind: 'remote', uri: remoteUri({ repo: target.repoName, revision: target.revision, path: target.path }), target };
        return { kind: 'browser', url: target.url };
      }
    }
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
    const bounded = (from: 'workspace' | 'instance', lines: string[]): CitationPreview => ({
      ok: true,
      from,
      startLine,
      lines: lines.slice(0, MAX_PREVIEW_LINES).map((line) => (line.length > MAX_PREVIEW_LINE_LENGTH ? `${line.slice(0, MAX_PREVIEW_LINE_LENGTH)}…` : line)),
      more: endLine - shownEnd,
    });
    try {
      const place = await this.placeOf(href);
      if (place.kind === 'local') {
        if ((await vscode.workspace.fs.stat(place.uri)).size > MAX_PREVIEW_FILE_BYTES)
          return { ok: false, message: vscode.l10n.t('{0} is too large to preview: open the link to see the lines.', target.path) };
        const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(place.uri));
        const lines = text.split(/\r?\n/);
        if (startLine > lines.length)
          return { ok: false, message: vscode.l10n.t('{0} in the workspace has {1} lines: the cited lines are not in it.', target.path, lines.length) };
        return bounded('workspace', lines.slice(startLine - 1, shownEnd));
      }
      if (place.kind !== 'remote')
        return { ok: false, message: vscode.l10n.t('The instance cannot read files for a preview here: open the link to see the lines.') };
      const tools = await this.access.ready();
      // A preview that takes longer than this is not worth waiting for: the link still opens.
      const read = await tools.readLines(
        { repo: target.repoName, revision: target.revision, path: target.path },
        startLine,
        shownEnd,
        signal ?? AbortSignal.timeout(PREVIEW_TIMEOUT_MS),
      );
      const lines = read.filter((line) => line.line >= startLine && line.line <= shownEnd).map((line) => line.text);
      if (lines.length === 0) return { ok: false, message: vscode.l10n.t('The instance returned none of the cited lines of {0}.', target.path) };
      return bounded('instance', lines);
    } catch (error) {
      return { ok: false, message: vscode.l10n.t('Could not read the cited lines of {0}: {1}', target.path, errorMessage(error)) };
    }
  }

  /** The file from the tool server at its lines; if it cannot be read, the browser is offered. */
  private async openRemote(target: FileTarget, uri: vscode.Uri): Promise<void> {
    try {
      await openAtLines(uri, target.startLine, target.endLine);
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
  const selection = startLine ? new vscode.Selection(start, 0, end, document.lineAt(end).range.end.character) : new vscode.Selection(0, 0, 0, 0);
  const editor = await vscode.window.showTextDocument(document, { selection, preview: true });
  editor.revealRange(selection, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  return editor;
}
