/**
 * activate() for VS Code for the Web's extension host (a web worker: no Node, no processes, no
 * disk): the object graph of src/vscode/activation.ts with fetch for HTTP, the repository a
 * virtual workspace shows (github.dev's), read through VS Code's file system, and no local engine.
 * Built as dist/web/extension.js (package.json `browser`).
 */
import type * as vscode from 'vscode';
import { activateExtension, type DeepSearchExtensionApi } from './vscode/activation';
import { webNetwork } from './vscode/auth/webNetwork';
import { NoLocalEngine } from './vscode/engine/noLocalEngine';
import { virtualRepositories } from './vscode/workspace/virtualRepositories';

export type { DeepSearchExtensionApi } from './vscode/activation';

export function activate(context: vscode.ExtensionContext): DeepSearchExtensionApi {
  return activateExtension(context, {
    network: webNetwork,
    repositories: virtualRepositories,
    localEngine: (_host, log) => new NoLocalEngine(log),
  });
}

export function deactivate(): void {}
