/**
 * Helpers for host tests: the activated extension's API, what the runner prepared (workspace
 * repository, engines), and signing in through the real command.
 */
import { readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import type { DeepSearchExtensionApi } from '../../src/extension';
import type { HostTestOptions } from './fixtures';

export const EXTENSION_ID = 'deepsearch-team.deep-search-vscode';

let options: HostTestOptions | undefined;

/** Written by scripts/test-host.mjs; its path comes in DEEP_SEARCH_TEST_OPTIONS. */
export function hostTestOptions(): HostTestOptions {
  const file = process.env.DEEP_SEARCH_TEST_OPTIONS;
  if (!file) throw new Error('DEEP_SEARCH_TEST_OPTIONS is not set: run the host tests with scripts/test-host.mjs');
  options ??= JSON.parse(readFileSync(file, 'utf8')) as HostTestOptions;
  return options;
}

export async function extensionApi(): Promise<DeepSearchExtensionApi> {
  const extension = vscode.extensions.getExtension<DeepSearchExtensionApi>(EXTENSION_ID);
  if (!extension) throw new Error(`extension ${EXTENSION_ID} is not installed in this VS Code`);
  return extension.activate();
}

/** Signs in through the real command (which checks the token first) unless already there. */
export async function signInTo(instanceUrl = hostTestOptions().engineUrl): Promise<DeepSearchExtensionApi> {
  const api = await extensionApi();
  // As commands do: the connection restored at activation counts.
  await api.session.whenRestored();
  if (api.session.current?.instanceUrl !== instanceUrl) {
    const ok = await vscode.commands.executeCommand<boolean>('deepSearch.signIn', { instanceUrl, token: hostTestOptions().token });
    if (!ok) throw new Error(`sign-in to ${instanceUrl} failed`);
  }
  return api;
}

/** Polls `probe` until it returns a value other than undefined (or fails after `timeoutMs`). */
export async function eventually<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
