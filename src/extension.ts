/**
 * activate() for a Node extension host (desktop, remote, code-server): the object graph of
 * src/vscode/activation.ts with undici and the proxy settings, git clones found with git, and the
 * local engine as a process of its own. Nothing else happens here.
 */
import type * as vscode from 'vscode';
import { activateExtension, type DeepSearchExtensionApi } from './vscode/activation';
import { nodeNetwork } from './vscode/auth/nodeNetwork';
import { LocalEngineLauncher } from './vscode/engine/localEngine';
import { gitRepositories } from './vscode/workspace/gitRepositories';

export type { DeepSearchExtensionApi } from './vscode/activation';

export function activate(context: vscode.ExtensionContext): DeepSearchExtensionApi {
  const api = activateExtension(context, {
    network: nodeNetwork,
    repositories: gitRepositories,
    localEngine: (host, log) => new LocalEngineLauncher(host, log),
  });
  stopLocalEngine = () => api.localEngine.stop();
  return api;
}

/** VS Code calls `deactivate()` with nothing in hand: the one thing it needs from activate() is kept here. */
let stopLocalEngine: (() => Promise<void>) | undefined;

/** Waits for the local engine to finish its writes; everything else is in context.subscriptions. */
export async function deactivate(): Promise<void> {
  await stopLocalEngine?.();
}
