/**
 * The local engine where VS Code cannot start it: VS Code for the Web's extension host is a web
 * worker, with no processes and no disk. Asked to start, it says so; its commands leave the palette
 * there (package.json: `!isWeb || remoteName`).
 */
import * as vscode from 'vscode';
import { Disposables } from '../disposables';
import { EngineModels } from './engineModels';

export class NoLocalEngine extends Disposables implements vscode.Disposable {
  private readonly restartEmitter = this.register(new vscode.EventEmitter<string>());
  /** Never fires: nothing runs. */
  readonly onDidRestart = this.restartEmitter.event;
  readonly models: EngineModels;

  constructor(log: vscode.LogOutputChannel) {
    super();
    this.models = this.register(new EngineModels(log));
  }

  start(): Promise<string> {
    return Promise.reject(
      new Error(
        vscode.l10n.t('The local engine needs VS Code on a desktop or a remote machine: VS Code for the Web cannot run it. Sign in to an instance instead.'),
      ),
    );
  }

  async stop(): Promise<void> {}

  async pid(): Promise<number | undefined> {
    return undefined;
  }
}
