/**
 * Sign-in with OAuth 2.0: in the browser (authorization code + PKCE, back to VS Code by itself) or
 * with a device code (RFC 8628: for remote windows, Codespaces and SSH, where a redirect cannot come
 * back). The client id is the setting an administrator's client gives, else one the extension
 * registers itself where the instance allows it (tools only). Nothing is stored until the new
 * tokens have been checked against both interfaces.
 */
import * as vscode from 'vscode';
import { canceledError, DeepSearchError, errorMessage, isDeepSearchError } from '../../api/errors';
import type { AuthorizationServerClient, OAuthTokens } from '../../api/oauth/authorizationServer';
import { scopesToAsk } from '../../api/oauth/scopes';
import { LOOPBACK_REDIRECT_URI } from '../../api/oauth/loopbackAddress';
import type { OAuthRedirects, RedirectChoice } from './oauthRedirect';
import { untilDeadline } from '../../api/oauth/deadline';
import { sleep } from '../../api/sleep';
import type { StoredOAuthSignIn } from './credentialVault';
import type { NetworkAccess } from './networkBundle';
import type { LoopbackRedirect } from '../../api/oauth/loopbackRedirect';
import { oauthSettings } from '../settings';

export type OAuthMethod = 'browser' | 'device';

/** What a browser sign-in waits for before it gives up. */
export const BROWSER_SIGN_IN_TIMEOUT_MS = 5 * 60_000;

/** The client the sign-in uses, and what it may ask for. */
interface OAuthClientChoice {
  clientId: string;
  scopes: string[];
  /** Registered by the extension itself: such clients reach the tool server only. */
  registered: boolean;
}

/** The outcome of the OAuth part: tokens to check, or why there are none (undefined: cancelled). */
export interface OAuthResult {
  signIn: StoredOAuthSignIn;
  /** A sentence to add to the sign-in report (a registered client's limits). */
  note?: string;
}

/** Runs one OAuth sign-in; undefined when the user cancelled. Throws with a message saying what to do. */
export async function runOAuthSignIn(
  method: OAuthMethod,
  server: AuthorizationServerClient,
  redirects: OAuthRedirects,
  network: NetworkAccess,
): Promise<OAuthResult | undefined> {
  const settings = oauthSettings();
  const redirect = method === 'browser' ? await redirects.choose(settings.redirect) : undefined;
  const client = await chooseClient(server, settings.clientId, [
    redirects.callbackUri.toString(true),
    ...(redirect?.kind === 'uriHandler' ? [redirect.redirectUri] : []),
    LOOPBACK_REDIRECT_URI,
  ]);
  const tokens =
    method === 'browser' ? await browserSignIn(server, client, redirects, redirect ?? { kind: 'loopback' }, network) : await deviceSignIn(server, client);
  if (!tokens) return undefined;
  const info = await server.userInfo(tokens.accessToken, AbortSignal.timeout(15_000)).catch(() => undefined);
  const label = info?.preferred_username ?? info?.name ?? info?.email;
  const signIn: StoredOAuthSignIn = {
    id: crypto.randomUUID(),
    clientId: client.clientId,
    tokens,
    ...(info ? { account: { id: info.sub.slice(0, 200), label: (label ?? info.sub).slice(0, 100) } } : {}),
  };
  const note = client.registered
    ? vscode.l10n.t(
        'No OAuth client id is set (deepSearch.oauth.clientId), so Deep Search registered itself with the instance: such a client ' +
          'reaches the tool server only (scope mcp), not conversations. For conversations, ask an administrator for a client id, or ' +
          'paste an access token.',
      )
    : undefined;
  return { signIn, ...(note ? { note } : {}) };
}

async function chooseClient(server: AuthorizationServerClient, configuredId: string, redirectUris: string[]): Promise<OAuthClientChoice> {
  const supported = server.metadata.scopes_supported;
  if (configuredId) return { clientId: configuredId, scopes: scopesToAsk(supported), registered: false };
  if (!server.offersRegistration) {
    throw new DeepSearchError(
      'unauthorized',
      vscode.l10n.t(
        'This instance needs an OAuth client id for Deep Search: ask an administrator to create one (see the README) and set it in deepSearch.oauth.clientId, or paste an access token.',
      ),
    );
  }
  const registered = await server.register(
    { clientName: vscode.l10n.t('Deep Search for VS Code'), redirectUris: [...new Set(redirectUris)] },
    AbortSignal.timeout(30_000),
  );
  return { clientId: registered.clientId, scopes: scopesToAsk(registered.scopes ?? supported), registered: true };
}

async function browserSignIn(
  server: AuthorizationServerClient,
  client: OAuthClientChoice,
  redirects: OAuthRedirects,
  redirect: RedirectChoice,
  network: NetworkAccess,
): Promise<OAuthTokens | undefined> {
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Finish signing in in your browser…'), cancellable: true },
    async (_progress, cancellation) => {
      const loopback = redirect.kind === 'loopback' ? await listenOnLoopback(network) : undefined;
      try {
        const redirectUri = loopback?.redirectUri ?? (redirect as { redirectUri: string }).redirectUri;
        const started = server.startBrowserSignIn({ clientId: client.clientId, redirectUri, scopes: client.scopes });
        const arrived = await untilDeadline(
          async (signal) => {
            const arrival = loopback
              ? loopback.wait(started.state, signal)
              : redirects.wait(started.state, signal).then((url) => ({ url, finish: () => undefined }));
            if (!(await vscode.env.openExternal(vscode.Uri.parse(started.url.toString(), true)))) throw canceledError();
            return arrival;
          },
          {
            cancel: abortedBy(cancellation),
            timeoutMs: BROWSER_SIGN_IN_TIMEOUT_MS,
            timeoutMessage: vscode.l10n.t(
              'The sign-in in the browser did not finish within {0} minutes: start it again, or sign in with a device code.',
              BROWSER_SIGN_IN_TIMEOUT_MS / 60_000,
            ),
          },
        );
        if (!arrived) return undefined;
        try {
          const tokens = await server.completeBrowserSignIn(started, arrived.url, AbortSignal.timeout(30_000));
          arrived.finish({ ok: true, message: vscode.l10n.t('You are signed in to Deep Search. You can close this tab and return to VS Code.') });
          return tokens;
        } catch (error) {
          arrived.finish({ ok: false, message: errorMessage(error) });
          throw error;
        }
      } finally {
        loopback?.close();
      }
    },
  );
}

/** A listener on 127.0.0.1 for a browser sign-in's redirect (Node only: the web has none). */
function listenOnLoopback(network: NetworkAccess): Promise<LoopbackRedirect> {
  if (!network.listenOnLoopback)
    throw new Error(vscode.l10n.t('VS Code for the Web cannot listen on 127.0.0.1: a browser sign-in comes back through VS Code itself.'));
  return network.listenOnLoopback();
}

async function deviceSignIn(server: AuthorizationServerClient, client: OAuthClientChoice): Promise<OAuthTokens | undefined> {
  const device = await server.startDeviceSignIn({ clientId: client.clientId, scopes: client.scopes }, AbortSignal.timeout(30_000));
  const page = safePage(device.verification_uri_complete) ?? safePage(device.verification_uri);
  if (!page)
    throw new DeepSearchError(
      'invalidResponse',
      vscode.l10n.t('The instance named no web page to enter the sign-in code on: sign in with your browser, or paste an access token.'),
    );
  const userCode = device.user_code.slice(0, 32);
  const copyAndOpen = vscode.l10n.t('Copy Code and Open Page');
  const choice = await vscode.window.showInformationMessage(
    vscode.l10n.t('Your Deep Search sign-in code: {0}', userCode),
    {
      modal: true,
      detail: vscode.l10n.t(
        'Enter it at {0} (on this or any other device) and approve. VS Code finishes signing in by itself.',
        safePage(device.verification_uri) ?? page,
      ),
    },
    copyAndOpen,
  );
  if (choice !== copyAndOpen) return undefined;
  await vscode.env.clipboard.writeText(userCode);
  void vscode.env.openExternal(vscode.Uri.parse(page, true));
  return vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: vscode.l10n.t('Waiting for you to enter {0} at {1}…', userCode, new URL(page).host),
      cancellable: true,
    },
    (_progress, cancellation) =>
      // The code's own lifetime bounds the wait, even if the instance never says it expired.
      untilDeadline((signal) => server.finishDeviceSignIn(device, client.clientId, sleep, signal), {
        cancel: abortedBy(cancellation),
        timeoutMs: Math.min(Math.max(device.expires_in, 30), 3_600) * 1000 + 5_000,
        timeoutMessage: vscode.l10n.t('The sign-in code expired before it was approved: sign in again.'),
      }),
  );
}

/** An AbortSignal that aborts when VS Code's cancellation token does. */
function abortedBy(cancellation: vscode.CancellationToken): AbortSignal {
  const controller = new AbortController();
  if (cancellation.isCancellationRequested) controller.abort();
  cancellation.onCancellationRequested(() => controller.abort());
  return controller.signal;
}

/** Only web pages are opened (never another scheme a server might name). */
function safePage(uri: string | undefined): string | undefined {
  if (!uri || uri.length > 2_000) return undefined;
  try {
    const url = new URL(uri);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}

/** Whether an error only says the user cancelled. */
export function isCancellation(error: unknown): boolean {
  return isDeepSearchError(error) && error.kind === 'canceled';
}
