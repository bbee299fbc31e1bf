/**
 * "Use Local Engine": runs the project's engine as a child process of the extension host, on
 * 127.0.0.1, over the workspace's git repositories. Its log lines go to the Deep Search output
 * channel; if it dies, the user is told and it is started once more (on the same port, so the
 * connection stays); it stops, its writes finished, with the window.
 */
import * as vscode from 'vscode';
import type { HostedEngineOptions } from '../../contract/engineProcess';
import { EngineProcess, EngineProcessError } from './engineProcess';
import { ripgrepInVSCode } from './ripgrepPath';
import { gitTopLevel } from '../workspace/git';
import { errorMessage } from '../../api/errors';
import { Disposables } from '../disposables';
import { EngineModels, investigationLimitSettings } from './engineModels';

export class LocalEngineLauncher extends Disposables implements vscode.Disposable {
  private running: Promise<EngineProcess> | undefined;
  private readonly restartEmitter = this.register(new vscode.EventEmitter<string>());
  /** The engine died and was started again, listening at this URL. */
  readonly onDidRestart = this.restartEmitter.event;
  /** VS Code's model the engine investigates with, if the user chose one. */
  readonly models: EngineModels;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this.models = this.register(new EngineModels(log));
    // Another model, other limits, or models came or went: the running engine learns it at once.
    this.register(this.models.onDidChange(() => void this.tellModel()));
    // Its writes finished, as VS Code closes (deactivate() awaits the same stop).
    this.register({ dispose: () => void this.stop() });
  }

  private async tellModel(): Promise<void> {
    const engine = await this.running?.catch(() => undefined);
    if (!engine) return;
    const model = await this.models.describe();
    engine.chooseModel(model, investigationLimitSettings());
    this.log.info(model ? `The local engine investigates with ${model.label}.` : 'The local engine answers on its own (no model).');
  }

  /** Starts the engine (once) and resolves to its URL. */
  async start(token: string): Promise<string> {
    this.running ??= this.launch(token).catch((error: unknown) => {
      this.running = undefined;
      throw error;
    });
    return (await this.running).url;
  }

  /** The engine's process id while it runs (for tests and diagnostics). */
  async pid(): Promise<number | undefined> {
    return (await this.running?.catch(() => undefined))?.pid;
  }

  async stop(): Promise<void> {
    const running = this.running;
    this.running = undefined;
    await (await running?.catch(() => undefined))?.stop();
  }

  private async launch(token: string): Promise<EngineProcess> {
    const repos = await workspaceRepositories();
    if (repos.length === 0) {
      throw new Error(vscode.l10n.t('The local engine answers from git repositories: open a folder that is (or contains) a git repository, then try again.'));
    }
    // Per workspace: its conversations are about its repositories (the engine locks the folder).
    const storage = this.context.storageUri ?? this.context.globalStorageUri;
    const dataDir = vscode.Uri.joinPath(storage, 'local-engine').fsPath;
    // VS Code's own ripgrep answers the first searches while the engine's index builds (if it is there).
    const ripgrepPath = ripgrepInVSCode(vscode.env.appRoot);
    const model = await this.models.describe();
    const options: HostedEngineOptions = {
      repos,
      token,
      dataDir,
      ...(ripgrepPath ? { ripgrepPath } : {}),
      ...(model ? { model } : {}),
      investigationLimits: investigationLimitSettings(),
    };
    const engine = await this.startProcess(options);
    this.log.info(
      `Local engine started (process ${engine.pid ?? '?'}) at ${engine.url}, serving ${engine.repoNames.join(', ')}; ${model ? `investigating with ${model.label}` : 'answering on its own (no model)'}`,
    );
    this.watch(engine, options, 1);
    return engine;
  }

  private startProcess(options: HostedEngineOptions): Promise<EngineProcess> {
    return EngineProcess.start({
      script: this.context.asAbsolutePath('dist/engineHosted.js'),
      engine: options,
      models: this.models,
      log: (line, level) => (level === 'warn' ? this.log.warn(`[engine] ${line}`) : this.log.info(`[engine] ${line}`)),
    }).catch((error: unknown) => {
      throw error instanceof EngineProcessError ? new Error(error.message) : error;
    });
  }

  /** On an unexpected end: say so, and start it again while `restarts` remain. */
  private watch(engine: EngineProcess, options: HostedEngineOptions, restarts: number): void {
    engine.onUnexpectedExit((reason) => {
      this.log.error(`The local engine ${reason}.`);
      if (restarts === 0) {
        this.running = undefined;
        void vscode.window.showErrorMessage(
          vscode.l10n.t('The local engine stopped again ({0}). Run "Use Local Engine" to start it once more; the Deep Search output has its log.', reason),
        );
        return;
      }
      const restarted = this.startProcess(options);
      this.running = restarted;
      void vscode.window.showWarningMessage(vscode.l10n.t('The local engine stopped unexpectedly ({0}). It is being started again.', reason));
      restarted.then(
        (next) => {
          // Stopped (signed out) while it restarted: leave it stopped.
          if (this.running !== restarted) {
            void next.stop();
            return;
          }
          this.log.info(`Local engine started again (process ${next.pid ?? '?'}) at ${next.url}`);
          this.watch(next, options, restarts - 1);
          // The model may have changed while it was down.
          void this.tellModel();
          this.restartEmitter.fire(next.url);
        },
        (error: unknown) => {
          if (this.running === restarted) this.running = undefined;
          const message = errorMessage(error);
          this.log.error(`The local engine could not be started again: ${message}`);
          void vscode.window.showErrorMessage(vscode.l10n.t('The local engine could not be started again: {0}', message));
        },
      );
    });
  }
}

/** The git repositories of the open workspace folders (each counted once). */
async function workspaceRepositories(): Promise<string[]> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  const roots = await Promise.all(folders.map((folder) => gitTopLevel(folder.uri.fsPath)));
  return [...new Set(roots.filter((root): root is string => root !== undefined))];
}
