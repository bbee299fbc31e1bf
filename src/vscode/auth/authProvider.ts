/**
 * Shows the signed-in instance in VS Code's Accounts menu, where the user can also sign out.
 * The session token is read from SecretStorage when VS Code asks for it and is never written elsewhere.
 */
import * as vscode from 'vscode';
import type { Session } from './session';
import { Disposables } from '../disposables';
import { signIn, signOut, type SignInParts } from './signIn';

export const AUTH_PROVIDER_ID = 'deepsearch';

export class DeepSearchAuthProvider extends Disposables implements vscode.AuthenticationProvider, vscode.Disposable {
  private readonly changeEmitter = this.register(new vscode.EventEmitter<vscode.AuthenticationProviderAuthenticationSessionsChangeEvent>());
  readonly onDidChangeSessions = this.changeEmitter.event;
  private shown: vscode.AuthenticationSession | undefined;

  constructor(
    private readonly session: Session,
    private readonly signInParts: SignInParts,
  ) {
    super();
    this.register(
      vscode.authentication.registerAuthenticationProvider(AUTH_PROVIDER_ID, vscode.l10n.t('Deep Search'), this, {
        supportsMultipleAccounts: false,
      }),
    );
    this.register(session.onDidChange(() => void this.announce()));
    // Same account, new access token: whoever holds the session reads it again.
    this.register(
      session.onDidRenewToken(() => {
        if (this.shown) this.changeEmitter.fire({ added: [], removed: [], changed: [this.shown] });
      }),
    );
  }

  async getSessions(): Promise<vscode.AuthenticationSession[]> {
    const current = await this.currentSession();
    return current ? [current] : [];
  }

  async createSession(): Promise<vscode.AuthenticationSession> {
    if (!(await signIn(this.signInParts))) throw new Error(vscode.l10n.t('Sign-in was cancelled.'));
    const current = await this.currentSession();
    if (!current) throw new Error(vscode.l10n.t('Sign-in did not complete.'));
    return current;
  }

  async removeSession(): Promise<void> {
    await signOut(this.signInParts);
  }

  private async currentSession(): Promise<vscode.AuthenticationSession | undefined> {
    const connection = this.session.current;
    const accessToken = await this.session.currentToken();
    if (!connection || !accessToken) return undefined;
    const host = new URL(connection.instanceUrl).host;
    const label =
      connection.kind === 'local' ? vscode.l10n.t('Local engine') : connection.accountLabel ? vscode.l10n.t('{0} on {1}', connection.accountLabel, host) : host;
    return {
      id: `${connection.instanceUrl}#${connection.accountDigest.slice(0, 16)}`,
      accessToken,
      account: { id: connection.instanceUrl, label },
      scopes: [],
    };
  }

  private async announce(): Promise<void> {
    const before = this.shown;
    const after = await this.currentSession();
    this.shown = after;
    if (before?.id === after?.id) return;
    this.changeEmitter.fire({
      added: after ? [after] : [],
      removed: before ? [before] : [],
      changed: [],
    });
  }
}
