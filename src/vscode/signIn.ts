/**
 * Sign In: asks for the instance URL and an access token, checks the token with one cheap call
 * before storing anything, and says exactly what went wrong when it fails.
 */
import * as vscode from 'vscode';
import { isDeepSearchError } from '../api/errors';
import { normalizeInstanceUrl } from '../api/instance';
import type { Session } from './session';
import { configuredInstanceUrl } from './settings';

export interface SignInArguments {
  instanceUrl: string;
  token: string;
}

/** Interactive unless both values are given (automation and tests); resolves true when signed in. */
export async function signIn(session: Session, given?: Partial<SignInArguments>): Promise<boolean> {
  let instanceUrl = given?.instanceUrl;
  let token = given?.token;
  for (;;) {
    instanceUrl ??= await askInstanceUrl(configuredInstanceUrl());
    if (!instanceUrl) return false;
    if (!given?.token && !(await confirmPlainHttp(instanceUrl))) {
      instanceUrl = undefined;
      continue;
    }
    token ??= await askToken(instanceUrl);
    if (!token) return false;
    const problem = await checkToken(session, instanceUrl, token);
    if (!problem) {
      await session.signIn(instanceUrl, token);
      void vscode.window.showInformationMessage(vscode.l10n.t('Signed in to {0}.', normalizeInstanceUrl(instanceUrl)));
      return true;
    }
    if (given?.token) throw new Error(problem.message);
    const retry = vscode.l10n.t('Try Again');
    const choice = await vscode.window.showErrorMessage(problem.message, retry);
    if (choice !== retry) return false;
    // Ask again only for what was wrong.
    if (problem.field === 'url') instanceUrl = undefined;
    token = undefined;
  }
}

async function askInstanceUrl(current: string): Promise<string | undefined> {
  const value = await vscode.window.showInputBox({
    title: vscode.l10n.t('Deep Search: Sign In (1/2)'),
    prompt: vscode.l10n.t('URL of your code-search instance'),
    placeHolder: 'https://sourcegraph.example.com',
    value: current,
    ignoreFocusOut: true,
    validateInput: (input) => {
      if (!input.trim()) return vscode.l10n.t('Enter the instance URL, such as https://sourcegraph.example.com.');
      try {
        normalizeInstanceUrl(input);
        return undefined;
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
    },
  });
  return value === undefined ? undefined : normalizeInstanceUrl(value);
}

async function askToken(instanceUrl: string): Promise<string | undefined> {
  const value = await vscode.window.showInputBox({
    title: vscode.l10n.t('Deep Search: Sign In (2/2)'),
    prompt: vscode.l10n.t('Access token for {0} (create one under your user settings → Access tokens)', instanceUrl),
    password: true,
    ignoreFocusOut: true,
    validateInput: (input) => (input.trim() ? undefined : vscode.l10n.t('Paste an access token.')),
  });
  return value?.trim() || undefined;
}

interface SignInProblem {
  field: 'url' | 'token';
  message: string;
}

/** One list call of a single item: proves the URL, the token and the server version at once. */
async function checkToken(session: Session, instanceUrl: string, token: string): Promise<SignInProblem | undefined> {
  let checker: Awaited<ReturnType<Session['createClient']>> | undefined;
  try {
    checker = await session.createClient(instanceUrl, token);
    const { client } = checker;
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Checking the access token…') },
      () => client.listConversations({ pageFirst: 1 }),
    );
    return undefined;
  } catch (error) {
    if (!isDeepSearchError(error)) return { field: 'url', message: error instanceof Error ? error.message : String(error) };
    switch (error.kind) {
      case 'unauthorized':
      case 'forbidden':
        return { field: 'token', message: vscode.l10n.t('The instance rejected the access token: check that you pasted all of it and that it has not expired or been revoked.') };
      case 'notFound':
        return { field: 'url', message: vscode.l10n.t('{0} has no Deep Search conversation API: it needs a code-search instance of version 6.7 or later. Check the URL, or ask your admin to upgrade.', instanceUrl) };
      default:
        return { field: 'url', message: error.message };
    }
  } finally {
    void checker?.dispatcher.close().catch(() => undefined);
  }
}

/** A token sent over plain http to another machine can be read on the way: ask first. */
async function confirmPlainHttp(instanceUrl: string): Promise<boolean> {
  const { protocol, hostname } = new URL(instanceUrl);
  if (protocol !== 'http:' || ['127.0.0.1', 'localhost', '[::1]'].includes(hostname)) return true;
  const proceed = vscode.l10n.t('Send It Anyway');
  const choice = await vscode.window.showWarningMessage(
    vscode.l10n.t('{0} does not use https: your access token would travel unencrypted.', instanceUrl),
    { modal: true, detail: vscode.l10n.t('Use the https:// address of the instance if it has one.') },
    proceed,
  );
  return choice === proceed;
}
