/**
 * "Open Remote File…": picks a repository of the instance (searched as you type), then walks its
 * directories to a file, which opens as a read-only remote document.
 */
import * as vscode from 'vscode';
import { baseName, parentPath, type RemoteFile } from '../../api/tools/remotePath';
import type { DirectoryEntry } from '../../api/tools/toolResults';
import { livePick } from './livePick';
import { remoteUri } from './remoteFiles';
import type { ToolAccess } from './toolAccess';

interface RepositoryItem extends vscode.QuickPickItem {
  repo: string;
}

/** A repository of the instance, chosen from a list filtered on the server as the user types. */
export function pickRepository(access: ToolAccess, title: string): Promise<string | undefined> {
  const tools = access.tools;
  return livePick<RepositoryItem>(
    {
      title,
      placeholder: vscode.l10n.t('Type part of a repository name'),
      loadEmpty: true,
      load: async (query, signal) => {
        const page = await tools.listRepositories(query, { limit: 50 }, signal);
        return page.repositories.map((repository) => ({
          label: `$(repo) ${repository.name}`,
          description: [
            repository.private ? vscode.l10n.t('private') : '',
            repository.archived ? vscode.l10n.t('archived') : '',
            repository.fork ? vscode.l10n.t('fork') : '',
          ]
            .filter(Boolean)
            .join(' · '),
          detail: repository.description || undefined,
          repo: repository.name,
        }));
      },
      emptyMessage: (query) => vscode.l10n.t('No repository matches {0}.', query),
    },
    (error) => void access.report(error),
  ).then((item) => item?.repo);
}

interface EntryItem extends vscode.QuickPickItem {
  entry?: DirectoryEntry;
  up?: boolean;
}

export async function openRemoteFile(access: ToolAccess, given?: Partial<RemoteFile>): Promise<vscode.TextEditor | undefined> {
  const repo = given?.repo ?? (await pickRepository(access, vscode.l10n.t('Open Remote File: Repository')));
  if (!repo) return undefined;
  const revision = given?.revision;
  if (given?.path) return vscode.window.showTextDocument(remoteUri({ repo, revision, path: given.path }), { preview: true });
  let directory = '';
  for (;;) {
    const entries = await access.run(vscode.l10n.t('Listing {0}…', `${repo}/${directory}`), (tools, signal) =>
      tools.listFiles({ repo, revision, path: directory }, signal),
    );
    if (!entries) return undefined;
    const items: EntryItem[] = [
      ...(directory ? [{ label: '$(arrow-up) ..', up: true }] : []),
      ...[...entries]
        .sort((a, b) => Number(b.isDirectory) - Number(a.isDirectory) || a.path.localeCompare(b.path))
        .map((entry) => ({ label: `${entry.isDirectory ? '$(folder)' : '$(file)'} ${baseName(entry.path)}`, entry })),
    ];
    const chosen = await vscode.window.showQuickPick(items, {
      title: vscode.l10n.t('Open Remote File: {0}', `${repo}${revision ? `@${revision}` : ''}/${directory}`),
      placeHolder: vscode.l10n.t('Pick a file, or a folder to open'),
      matchOnDescription: true,
    });
    if (!chosen) return undefined;
    if (chosen.up) directory = parentPath(directory);
    else if (chosen.entry?.isDirectory) directory = chosen.entry.path;
    else if (chosen.entry) return vscode.window.showTextDocument(remoteUri({ repo, revision, path: chosen.entry.path }), { preview: true });
  }
}
