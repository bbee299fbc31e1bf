/**
 * Files an answer generated (CSV, JSON, SVG), offered by the panel beside their links: Open reads
 * the file from the instance (with the sign-in, only when clicked) into the extension's storage and
 * opens it with the editor VS Code has for its kind (a table for CSV where a CSV editor is
 * installed, an image preview for SVG, else text); Save As writes it where the user picks.
 */
import * as vscode from 'vscode';
import type { DeepSearchClient } from '../../api/client';
import { generatedFileName } from '../../conversations/generatedFiles';

export class GeneratedFiles {
  constructor(
    private readonly client: () => DeepSearchClient | undefined,
    private readonly storage: vscode.Uri,
  ) {}

  async open(href: string): Promise<void> {
    const { name, bytes } = await this.read(href);
    // A folder of its own per read: two answers' files of one name never overwrite each other.
    const folder = vscode.Uri.joinPath(this.storage, 'generated', `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`);
    const file = vscode.Uri.joinPath(folder, name);
    await vscode.workspace.fs.writeFile(file, bytes);
    await vscode.commands.executeCommand('vscode.open', file, { preview: false });
  }

  async saveAs(href: string): Promise<void> {
    const name = generatedFileName(href);
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const target = await vscode.window.showSaveDialog({
      title: vscode.l10n.t('Save {0} As', name),
      ...(folder ? { defaultUri: vscode.Uri.joinPath(folder, name) } : {}),
    });
    if (!target) return;
    const { bytes } = await this.read(href);
    await vscode.workspace.fs.writeFile(target, bytes);
    void vscode.window.showInformationMessage(vscode.l10n.t('Saved {0}.', vscode.workspace.asRelativePath(target)));
  }

  private async read(href: string): Promise<{ name: string; bytes: Uint8Array }> {
    const client = this.client();
    if (!client) throw new Error(vscode.l10n.t('Sign in to read the files of this answer.'));
    const name = generatedFileName(href);
    const { text } = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Reading {0} from the instance…', name), cancellable: true },
      (_progress, cancellation) => {
        const abort = new AbortController();
        cancellation.onCancellationRequested(() => abort.abort());
        return client.fetchGeneratedFile(href, abort.signal);
      },
    );
    return { name, bytes: new TextEncoder().encode(text) };
  }
}
