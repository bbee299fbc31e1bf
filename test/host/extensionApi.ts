/**
 * Helpers for host tests: the activated extension's API, the workspace's git repository, and the
 * local engine the tests sign in to.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DeepSearchExtensionApi } from '../../src/extension';
import { startEngine } from '../../src/engine/server';
import type { RunningEngine } from '../../src/engine/options';
import { createTempDir, git, SAMPLE_APP_FILES, SAMPLE_APP_NAME, SAMPLE_APP_ORIGIN } from '../support/gitRepos';

export const EXTENSION_ID = 'deepsearch-team.deep-search-vscode';
export const HOST_TEST_TOKEN = 'dse_host_test_token_0123456789abcdef';

export async function extensionApi(): Promise<DeepSearchExtensionApi> {
  const extension = vscode.extensions.getExtension<DeepSearchExtensionApi>(EXTENSION_ID);
  if (!extension) throw new Error(`extension ${EXTENSION_ID} is not installed in this VS Code`);
  return extension.activate();
}

export function workspaceDir(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('host tests need a workspace folder');
  return folder.uri.fsPath;
}

/** Makes the workspace folder a git repository of the sample app (once), named like on an instance. */
export async function ensureWorkspaceRepo(): Promise<{ dir: string; name: string }> {
  const dir = workspaceDir();
  if (!existsSync(path.join(dir, '.git'))) {
    const { mkdir, writeFile } = await import('node:fs/promises');
    await git(dir, ['init', '--quiet', '--initial-branch', 'main']);
    for (const [file, content] of Object.entries(SAMPLE_APP_FILES)) {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await writeFile(path.join(dir, file), content, 'utf8');
    }
    await git(dir, ['add', '--all']);
    await git(dir, ['commit', '--quiet', '-m', 'Sample app'], {
      GIT_AUTHOR_NAME: 'Test Author',
      GIT_AUTHOR_EMAIL: 'author@example.com',
      GIT_COMMITTER_NAME: 'Test Author',
      GIT_COMMITTER_EMAIL: 'author@example.com',
    });
    await git(dir, ['remote', 'add', 'origin', SAMPLE_APP_ORIGIN]);
  }
  return { dir, name: SAMPLE_APP_NAME };
}

let engine: Promise<RunningEngine> | undefined;

/** One engine for the whole run, serving the workspace repository with the test token. */
export async function testEngine(): Promise<RunningEngine> {
  engine ??= (async () => {
    const { dir } = await ensureWorkspaceRepo();
    return startEngine({ repos: [dir], users: [{ token: HOST_TEST_TOKEN }], dataDir: await createTempDir('dse-host-data-'), paceMs: 100 });
  })();
  return engine;
}

/** Signs in to the test engine through the real command (which checks the token first). */
export async function signInToTestEngine(): Promise<DeepSearchExtensionApi> {
  const api = await extensionApi();
  const running = await testEngine();
  if (api.session.current?.instanceUrl !== running.url) {
    const ok = await vscode.commands.executeCommand<boolean>('deepSearch.signIn', { instanceUrl: running.url, token: HOST_TEST_TOKEN });
    if (!ok) throw new Error('sign-in to the test engine failed');
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
