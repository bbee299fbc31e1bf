/**
 * Sign In: asks for the instance URL and an access token, checks the token against both
 * interfaces (conversations and the tool server) before storing anything, says exactly what went
 * wrong when it fails, and what works and what does not when it succeeds (scoped tokens).
 */
import * as vscode from 'vscode';
import { checkAccess, signInVerdict, toolServerAbsent, type AccessReport } from '../api/accessCheck';
import { normalizeInstanceUrl } from '../api/instance';
import { TOOL_FEATURES } from '../api/tools/toolServer';
import type { Session } from './session';
import { configuredInstanceUrl } from './settings';
import { errorMessage } from '../api/errors';

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
    const checked = await checkToken(session, instanceUrl, token);
    if (checked.ok) {
      // The report below says which tools the instance lacks: not again when the connection finds them.
      if (checked.report.tools.ok) await session.rememberLackingToolsSaid(instanceUrl, checked.report.tools.value.missing);
      await session.signIn(instanceUrl, token);
      const { message, complete } = accessSummary(normalizeInstanceUrl(instanceUrl), checked.report);
      void (complete ? vscode.window.showInformationMessage(message) : vscode.window.showWarningMessage(message));
      return true;
    }
    const { problem } = checked;
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
        return errorMessage(error);
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

type Checked = { ok: true; report: AccessReport } | { ok: false; problem: SignInProblem };

/**
 * Both interfaces at once (one list call of a single item, and the tool server's discovery): proves
 * the URL, the token, its scopes and the server generation, and reports what works.
 */
async function checkToken(session: Session, instanceUrl: string, token: string): Promise<Checked> {
  let checker: Awaited<ReturnType<Session['createClient']>> | undefined;
  try {
    checker = await session.createClient(instanceUrl, token);
    const connection = checker;
    const report = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Checking the access token…') },
      () => checkAccess(connection),
    );
    const verdict = signInVerdict(report);
    if (verdict.kind === 'usable') return { ok: true, report };
    if (verdict.kind === 'badToken') return { ok: false, problem: { field: 'token', message: badTokenMessage(report, verdict.message) } };
    const notFound = !report.conversations.ok && report.conversations.error.kind === 'notFound';
    const message = notFound
      ? vscode.l10n.t('{0} has no Deep Search conversation API: it needs a code-search instance of version 6.7 or later. Check the URL, or ask your admin to upgrade.', instanceUrl)
      : verdict.message;
    return { ok: false, problem: { field: 'url', message } };
  } catch (error) {
    return { ok: false, problem: { field: 'url', message: errorMessage(error) } };
  } finally {
    void checker?.dispatcher.close().catch(() => undefined);
  }
}

/** A token refused outright (401) says to check it; one refused by both interfaces (403) says why each did. */
function badTokenMessage(report: AccessReport, said: string): string {
  const unauthorized = [report.conversations, report.tools].some((access) => !access.ok && access.error.kind === 'unauthorized');
  return unauthorized
    ? vscode.l10n.t('The instance rejected the access token: check that you pasted all of it and that it has not expired or been revoked.')
    : said;
}

/** After signing in: what works with this token, and what does not and why. */
function accessSummary(instanceUrl: string, report: AccessReport): { message: string; complete: boolean } {
  const { conversations, tools } = report;
  const parts: string[] = [];
  if (!conversations.ok) parts.push(vscode.l10n.t('Conversations are refused: {0}', conversations.error.message));
  if (!tools.ok) {
    parts.push(
      toolServerAbsent(report)
        ? vscode.l10n.t('The instance has no tool server: remote files, code search and navigation across repositories are not available.')
        : tools.error.kind === 'forbidden'
          ? vscode.l10n.t('Code tools are refused: {0}', tools.error.message)
          : vscode.l10n.t('The tool server could not be checked ({0}); it is tried again when a feature needs it.', tools.error.message),
    );
  } else if (tools.value.missing.length > 0) {
    const lacking = tools.value.missing.map((tool) => TOOL_FEATURES[tool]).join(', ');
    parts.push(vscode.l10n.t('Its tool server does not offer {0} (an older server, or an administrator turned them off).', lacking));
  }
  if (parts.length === 0) return { message: vscode.l10n.t('Signed in to {0}: conversations and every code tool work.', instanceUrl), complete: true };
  const works = conversations.ok ? vscode.l10n.t('Conversations work.') : tools.ok ? vscode.l10n.t('Code tools work.') : '';
  return { message: [vscode.l10n.t('Signed in to {0}.', instanceUrl), works, ...parts].filter(Boolean).join(' '), complete: false };
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
