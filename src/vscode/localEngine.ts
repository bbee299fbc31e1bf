/**
 * "Use Local Engine": runs the project's engine inside the extension host, on 127.0.0.1, over the
 * workspace's git repositories. It lives and dies with the extension host, so it stops when VS
 * Code closes. The engine bundle is loaded only when a user chooses it.
 */
import * as vscode from 'vscode';
import type { RunningEngine } from '../engine/options';
import { gitTopLevel } from './git';

type EngineModule = typeof import('../engine/server');

export class LocalEngineLauncher implements vscode.Disposable {
  private running: Promise<RunningEngine> | undefined;

  constructor(private readonly context: vscode.ExtensionContext) {}

  /** Starts the engine (once) and resolves to its URL. */
  async start(token: string): Promise<string> {
    this.running ??= this.launch(token).catch((error: unknown) => {
      this.running = undefined;
      throw error;
    });
    return (await this.running).url;
  }

  async stop(): Promise<void> {
    const running = this.running;
    this.running = undefined;
    await (await running?.catch(() => undefined))?.close();
  }

  dispose(): void {
    void this.stop();
  }

  private async launch(token: string): Promise<RunningEngine> {
    const repos = await workspaceRepositories();
    if (repos.length === 0) {
      throw new Error(
        vscode.l10n.t('The local engine answers from git repositories: open a folder that is (or contains) a git repository, then try again.'),
      );
    }
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on demand, outside the activation bundle
    const { startEngine } = require(this.context.asAbsolutePath('dist/engineServer.js')) as EngineModule;
    // Per workspace: its conversations are about its repositories (the engine locks the folder).
    const storage = this.context.storageUri ?? this.context.globalStorageUri;
    const dataDir = vscode.Uri.joinPath(storage, 'local-engine').fsPath;
    return startEngine({ repos, users: [{ token }], dataDir });
  }
}

/** The git repositories of the open workspace folders (each counted once). */
async function workspaceRepositories(): Promise<string[]> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  const roots = await Promise.all(folders.map((folder) => gitTopLevel(folder.uri.fsPath)));
  return [...new Set(roots.filter((root): root is string => root !== undefined))];
}
