/**
 * How the browser sign-in comes back to VS Code: through VS Code's own link scheme (this extension's
 * URI handler, reached via `vscode.env.asExternalUri`; works in remote windows over SSH too), or
 * through a listener on 127.0.0.1 where VS Code has no scheme the browser can open (VS Code in a
 * browser) or the instance accepts loopback redirects only (setting `deepSearch.oauth.redirect`).
 */
import * as vscode from 'vscode';
import { canceledError } from '../../api/errors';
import { Disposables } from '../disposables';

export const OAUTH_CALLBACK_PATH = '/oauth-callback';

/** The redirect a sign-in uses. */
export type RedirectChoice = { kind: 'uriHandler'; redirectUri: string } | { kind: 'loopback' };

export class OAuthRedirects extends Disposables implements vscode.UriHandler, vscode.Disposable {
  private readonly waiting = new Map<string, (url: URL) => void>();

  /** `loopback`: whether this host can listen on 127.0.0.1 (not VS Code for the Web's web worker). */
  constructor(
    private readonly extensionId: string,
    private readonly loopback = true,
  ) {
    super();
    this.register(vscode.window.registerUriHandler(this));
  }

  /** `vscode://<extension id>/oauth-callback` (the scheme of this VS Code): what an administrator registers. */
  get callbackUri(): vscode.Uri {
    return vscode.Uri.from({ scheme: vscode.env.uriScheme, authority: this.extensionId, path: OAUTH_CALLBACK_PATH });
  }

  /** The URI handler where the browser can open VS Code's scheme, else the loopback listener. */
  async choose(preference: 'auto' | 'uriHandler' | 'loopback'): Promise<RedirectChoice> {
    if (preference === 'loopback' && this.loopback) return { kind: 'loopback' };
    const external = await vscode.env.asExternalUri(this.callbackUri);
    // In a browser, VS Code's scheme becomes an http(s) page address that changes per request: no
    // instance could have it registered. Loopback then, unless the user asked for the handler.
    // The web has no listener: its page address is the one way back (an administrator registers it).
    if (external.scheme === this.callbackUri.scheme || preference === 'uriHandler' || !this.loopback)
      return { kind: 'uriHandler', redirectUri: external.toString(true) };
    return { kind: 'loopback' };
  }

  /** The redirect carrying `state`; rejects when `signal` aborts. Others are ignored. */
  wait(state: string, signal: AbortSignal): Promise<URL> {
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.waiting.delete(state);
        reject(canceledError());
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(state, (url) => {
        signal.removeEventListener('abort', onAbort);
        this.waiting.delete(state);
        resolve(url);
      });
    });
  }

  handleUri(uri: vscode.Uri): void {
    if (uri.path !== OAUTH_CALLBACK_PATH || uri.query.length > 8_192) return;
    // `uri.query` is decoded once already: read it as the query string the instance sent.
    const url = new URL(`${OAUTH_CALLBACK_PATH}?${uri.query}`, 'http://redirect.invalid');
    const state = url.searchParams.get('state');
    if (state !== null) this.waiting.get(state)?.(url);
  }
}
