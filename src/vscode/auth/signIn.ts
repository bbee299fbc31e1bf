/**
 * Sign In: asks for the instance URL, then how to sign in where the instance has OAuth (in the
 * browser, with a device code, or by pasting an access token; only the last where it has none).
 * Whatever the way, the token is checked against both interfaces (conversations and the tool
 * server) before anything is stored; a failure says exactly what went wrong, a success what works
 * and what does not (scoped tokens). Sign Out revokes an OAuth sign-in on the instance.
 */
import * as vscode from 'vscode';
import { checkAccess, signInVerdict, toolServerAbsent, type AccessReport } from '../../api/accessCheck';
import { parseInstanceUrl, type InstanceUrl } from '../../api/instance';
import type { InstanceConnection } from '../../api/connections';
import { TOOL_FEATURES } from '../../api/tools/toolServer';
import type { Session } from './session';
import type { CredentialVault, StoredOAuthSignIn } from './credentialVault';
import type { LackingToolsMemento } from './lackingToolsMemento';
import type { NetworkAccess, OAuthServers } from './networkBundle';
import type { OAuthRedirects } from './oauthRedirect';
import { configuredInstanceUrl } from '../settings';
import { errorMessage } from '../../api/errors';
import { accessTokenCredential, type Credential } from '../../api/credential';
import type { AuthorizationServerClient } from '../../api/oauth/authorizationServer';
import { isCancellation, runOAuthSignIn, type OAuthMethod } from './oauthSignIn';

export interface SignInArguments {
  instanceUrl: string;
  token: string;
}

/** What signing in uses, handed over by activation.ts: the same vault and network the session has. */
export interface SignInParts {
  /** Makes the instance current once its sign-in is stored; forgets it at sign-out. */
  session: Pick<Session, 'useInstance' | 'signOut'>;
  /** SecretStorage, where a checked token or OAuth sign-in is stored. */
  vault: CredentialVault;
  /** What the report at sign-in said an instance lacks, so the connection does not say it again. */
  lackingTools: LackingToolsMemento;
  /** The client code and what carries its requests (undici or fetch), as the session has them. */
  network: NetworkAccess;
  oauthServers: OAuthServers;
  /** Where browser sign-ins come back (this extension's URI handler). */
  redirects: OAuthRedirects;
}

/** Stores a checked access token and makes its instance current. */
async function useToken(parts: SignInParts, instanceUrl: InstanceUrl, token: string): Promise<void> {
  await parts.vault.storeInstanceToken(instanceUrl, token);
  await parts.vault.deleteOAuthSignIn(instanceUrl);
  await parts.session.useInstance(instanceUrl);
}

/** Stores an OAuth sign-in whose tokens were checked and makes its instance current. */
export async function useOAuthSignIn(parts: SignInParts, instanceUrl: InstanceUrl, signIn: StoredOAuthSignIn): Promise<void> {
  await parts.vault.storeOAuthSignIn(instanceUrl, signIn);
  await parts.vault.deleteInstanceToken(instanceUrl);
  await parts.session.useInstance(instanceUrl);
}

/** Interactive unless both values are given (automation and tests); resolves true when signed in. */
export async function signIn(parts: SignInParts, given?: Partial<SignInArguments>): Promise<boolean> {
  let instanceUrl = given?.instanceUrl === undefined ? undefined : parseInstanceUrl(given.instanceUrl);
  let token = given?.token;
  for (;;) {
    instanceUrl ??= await askInstanceUrl(configuredInstanceUrl());
    if (!instanceUrl) return false;
    if (!given?.token && !(await confirmPlainHttp(instanceUrl))) {
      instanceUrl = undefined;
      continue;
    }
    if (token === undefined) {
      const way = await askWay(parts, instanceUrl);
      if (way === undefined) return false;
      if (way === 'retry') {
        instanceUrl = undefined;
        continue;
      }
      if (way.method !== 'paste') {
        const done = await signInWithOAuth(parts, instanceUrl, way.server, way.method);
        if (done !== 'retry') return done;
        continue;
      }
    }
    token ??= await askToken(instanceUrl);
    if (!token) return false;
    const checked = await checkToken(parts, instanceUrl, token);
    if (checked.ok) {
      // The report below says which tools the instance lacks: not again when the connection finds them.
      if (checked.report.tools.ok) await parts.lackingTools.remember(instanceUrl, checked.report.tools.value.missing);
      await useToken(parts, instanceUrl, token);
      const { message, complete } = accessSummary(instanceUrl, checked.report);
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

async function askInstanceUrl(current: string): Promise<InstanceUrl | undefined> {
  const value = await vscode.window.showInputBox({
    title: vscode.l10n.t('Deep Search: Sign In (1/2)'),
    prompt: vscode.l10n.t('URL of your code-search instance'),
    placeHolder: 'https://sourcegraph.example.com',
    value: current,
    ignoreFocusOut: true,
    validateInput: (input) => {
      if (!input.trim()) return vscode.l10n.t('Enter the instance URL, such as https://sourcegraph.example.com.');
      try {
        parseInstanceUrl(input);
        return undefined;
      } catch (error) {
        return errorMessage(error);
      }
    },
  });
  return value === undefined ? undefined : parseInstanceUrl(value);
}

type Way = { method: OAuthMethod; server: AuthorizationServerClient } | { method: 'paste' };

/**
 * How to sign in: the instance's OAuth server is looked up first; without one, pasting a token is
 * the only way and nothing is asked. 'retry': the URL could not be reached, ask for it again.
 */
async function askWay(parts: SignInParts, instanceUrl: InstanceUrl): Promise<Way | 'retry' | undefined> {
  let server: AuthorizationServerClient | undefined;
  try {
    server = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Connecting to {0}…', instanceUrl) }, () =>
      parts.oauthServers.authorizationServer(instanceUrl, AbortSignal.timeout(30_000)),
    );
  } catch (error) {
    const retry = vscode.l10n.t('Try Again');
    const paste = vscode.l10n.t('Paste an Access Token');
    const choice = await vscode.window.showErrorMessage(
      vscode.l10n.t('Could not look up how {0} signs in: {1}', instanceUrl, errorMessage(error)),
      retry,
      paste,
    );
    return choice === retry ? 'retry' : choice === paste ? { method: 'paste' } : undefined;
  }
  if (!server) return { method: 'paste' };
  interface WayItem extends vscode.QuickPickItem {
    way: Way;
  }
  const items: WayItem[] = [
    {
      label: vscode.l10n.t('$(globe) Sign in with your browser'),
      detail: vscode.l10n.t('Approve in the browser; VS Code is signed in when you come back.'),
      way: { method: 'browser', server },
    },
    ...(server.offersDeviceGrant
      ? [
          {
            label: vscode.l10n.t('$(device-mobile) Sign in with a device code'),
            detail: vscode.l10n.t('Enter a short code on the instance’s page, on any device: for remote windows, Codespaces and SSH.'),
            way: { method: 'device', server } as const,
          },
        ]
      : []),
    {
      label: vscode.l10n.t('$(key) Paste an access token'),
      detail: vscode.l10n.t('Create one under your user settings on the instance → Access tokens.'),
      way: { method: 'paste' },
    },
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('Deep Search: Sign In (2/2)'),
    placeHolder: vscode.l10n.t('How do you want to sign in to {0}?', new URL(instanceUrl).host),
    ignoreFocusOut: true,
  });
  return picked?.way;
}

/** The browser or device sign-in, then the same check and report as a pasted token. */
async function signInWithOAuth(
  parts: SignInParts,
  instanceUrl: InstanceUrl,
  server: AuthorizationServerClient,
  method: OAuthMethod,
): Promise<boolean | 'retry'> {
  try {
    const result = await runOAuthSignIn(method, server, parts.redirects, parts.network);
    if (!result) return false;
    const checked = await checkToken(parts, instanceUrl, accessTokenCredential(result.signIn.tokens.accessToken, 'bearer'), 'oauth');
    if (!checked.ok) {
      // Tokens that will not be kept are given back, as far as the instance lets us.
      const { refreshToken, accessToken } = result.signIn.tokens;
      await server.revoke(refreshToken ?? accessToken, result.signIn.clientId, AbortSignal.timeout(10_000)).catch(() => undefined);
      throw new Error(checked.problem.message);
    }
    await useOAuthSignIn(parts, instanceUrl, result.signIn);
    const account = result.signIn.account;
    const where = account ? vscode.l10n.t('{0} as {1}', instanceUrl, account.label) : instanceUrl;
    const { message, complete } = accessSummary(where, checked.report);
    const granted = vscode.l10n.t('Granted: {0}.', result.signIn.tokens.scopes.join(', ') || vscode.l10n.t('what the instance decides'));
    const text = [message, granted, result.note ?? ''].filter(Boolean).join(' ');
    void (complete && !result.note ? vscode.window.showInformationMessage(text) : vscode.window.showWarningMessage(text));
    return true;
  } catch (error) {
    if (isCancellation(error)) return false;
    const retry = vscode.l10n.t('Try Again');
    const choice = await vscode.window.showErrorMessage(errorMessage(error), retry);
    return choice === retry ? 'retry' : false;
  }
}

/** Signs out here, and says when the instance could not be told to revoke the sign-in. */
export async function signOut(parts: Pick<SignInParts, 'session'>): Promise<void> {
  const problem = await parts.session.signOut();
  if (problem) void vscode.window.showWarningMessage(problem);
}

async function askToken(instanceUrl: InstanceUrl): Promise<string | undefined> {
  const value = await vscode.window.showInputBox({
    title: vscode.l10n.t('Deep Search: Access Token'),
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
async function checkToken(parts: SignInParts, instanceUrl: InstanceUrl, token: string | Credential, how: 'pasted' | 'oauth' = 'pasted'): Promise<Checked> {
  let checker: InstanceConnection | undefined;
  try {
    // A client for the URL and token, nothing stored (the session's memory of servers is not needed for one check).
    checker = (await parts.network.load()).connectToInstance(instanceUrl, token, await parts.network.createTransport());
    const connection = checker;
    const report = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: how === 'oauth' ? vscode.l10n.t('Checking the sign-in…') : vscode.l10n.t('Checking the access token…'),
      },
      () => checkAccess(connection),
    );
    const verdict = signInVerdict(report);
    if (verdict.kind === 'usable') return { ok: true, report };
    if (verdict.kind === 'badToken') return { ok: false, problem: { field: 'token', message: badTokenMessage(report, verdict.message, how) } };
    const notFound = !report.conversations.ok && report.conversations.error.kind === 'notFound';
    const message = notFound
      ? vscode.l10n.t(
          '{0} has no Deep Search conversation API: it needs a code-search instance of version 6.7 or later. Check the URL, or ask your admin to upgrade.',
          instanceUrl,
        )
      : verdict.message;
    return { ok: false, problem: { field: 'url', message } };
  } catch (error) {
    return { ok: false, problem: { field: 'url', message: errorMessage(error) } };
  } finally {
    void checker?.transport.close().catch(() => undefined);
  }
}

/**
 * A token refused outright (401) says to check it (a pasted one) or to sign in again (one the
 * instance just issued through OAuth); one refused by both interfaces (403) says why each did.
 */
function badTokenMessage(report: AccessReport, said: string, how: 'pasted' | 'oauth'): string {
  const unauthorized = [report.conversations, report.tools].some((access) => !access.ok && access.error.kind === 'unauthorized');
  if (!unauthorized) return said;
  return how === 'oauth'
    ? vscode.l10n.t(
        'The instance rejected the token it issued at sign-in: sign in again, and if it happens again, ask its administrator to check the OAuth application.',
      )
    : vscode.l10n.t('The instance rejected the access token: check that you pasted all of it and that it has not expired or been revoked.');
}

/** After signing in to `where` (the instance, and the account where known): what works with this token, and what does not and why. */
function accessSummary(where: string, report: AccessReport): { message: string; complete: boolean } {
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
  if (parts.length === 0) return { message: vscode.l10n.t('Signed in to {0}: conversations and every code tool work.', where), complete: true };
  const works = conversations.ok ? vscode.l10n.t('Conversations work.') : tools.ok ? vscode.l10n.t('Code tools work.') : '';
  return { message: [vscode.l10n.t('Signed in to {0}.', where), works, ...parts].filter(Boolean).join(' '), complete: false };
}

/** A token sent over plain http to another machine can be read on the way: ask first. */
async function confirmPlainHttp(instanceUrl: InstanceUrl): Promise<boolean> {
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
