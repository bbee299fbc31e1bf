/**
 * Who the extension talks to: a signed-in instance (URL in settings; an access token or an OAuth
 * sign-in in SecretStorage, keyed by that URL) or the local engine (started on demand, its token in
 * SecretStorage too). A token leaves SecretStorage only to build an Authorization header. An OAuth
 * sign-in renews itself: before its access token expires and after a 401, one refresh at a time,
 * with SecretStorage as the one copy every window reads (src/api/oauth/tokenSession.ts).
 * This class decides and holds the connection; it composes the credential vault (credentialVault.ts),
 * OAuth renewal (oauthRenewal.ts), the network bundle (networkBundle.ts) and the memory of tools
 * reported missing (lackingToolsMemento.ts).
 */
import { createHash } from 'node:crypto';
import type { Dispatcher } from 'undici';
import * as vscode from 'vscode';
import type { DeepSearchClient } from '../../api/client';
import type { Credential } from '../../api/credential';
import type { AuthorizationServerClient } from '../../api/oauth/authorizationServer';
import { normalizeInstanceUrl } from '../../api/instance';
import type { InstanceConnection } from '../../api/network';
import type { CodeTools } from '../../api/tools/codeTools';
import { ServerMemory } from '../../api/serverMemory';
import { CredentialVault, type StoredOAuthSignIn } from './credentialVault';
import { Disposables } from '../disposables';
import { LackingToolsMemento } from './lackingToolsMemento';
import { dispatcherOptions, loadNetworkBundle, OAuthTransport, type NetworkBundle } from './networkBundle';
import { OAuthRenewal, RenewalCount } from './oauthRenewal';
import { OAuthRedirects } from './oauthRedirect';
import type { LocalEngineLauncher } from '../engine/localEngine';
import { configuredInstanceUrl, setConfiguredInstanceUrl } from '../settings';
import { errorMessage } from '../../api/errors';

export type ConnectionKind = 'instance' | 'local';

export interface Connection {
  kind: ConnectionKind;
  instanceUrl: string;
  client: DeepSearchClient;
  /** The instance's tool server (found on first use; closed when the connection is replaced). */
  tools: CodeTools;
  /** Closed when the connection is replaced. */
  dispatcher: Dispatcher;
  /**
   * SHA-256 of what identifies the account (an access token; an OAuth sign-in's user and client),
   * to tell a reconnect of the same account from a new one. Never the token; a refresh keeps it.
   */
  accountDigest: string;
  /** How the instance is signed in to (the local engine: `token`). */
  auth: 'token' | 'oauth';
  /** Who is signed in, where the instance said (OAuth `userinfo`). */
  accountLabel?: string;
  /** False when the account or instance differs from the previous connection's. */
  sameAccount: boolean;
}

const MODE_KEY = 'deepSearch.connectionKind';

/** How a connection is authorized: a fixed access token, or an OAuth sign-in. */
type Authorization = { kind: 'token'; token: string } | { kind: 'oauth'; signIn: StoredOAuthSignIn };

/** Set by `npm start` for the VS Code it launches (see README). */
export const LAUNCH_URL_VARIABLE = 'DEEP_SEARCH_LAUNCH_INSTANCE_URL';
export const LAUNCH_TOKEN_VARIABLE = 'DEEP_SEARCH_LAUNCH_TOKEN';

export class Session extends Disposables implements vscode.Disposable {
  private connection: Connection | undefined;
  private restoring: Promise<void> = Promise.resolve();
  private readonly changeEmitter = this.register(new vscode.EventEmitter<Connection | undefined>());
  /** Fires after every sign-in, sign-out, switch or client rebuild. */
  readonly onDidChange = this.changeEmitter.event;
  private readonly renewEmitter = this.register(new vscode.EventEmitter<void>());
  /** Fires when the OAuth access token was renewed (here or in another window): the account is the same. */
  readonly onDidRenewToken = this.renewEmitter.event;
  private renewal: OAuthRenewal | undefined;
  /** Renewals of the current connection's token, each announced once (for the MCP definition's version). */
  private readonly renewals = new RenewalCount(() => this.renewEmitter.fire());
  /** Where browser sign-ins come back (this extension's URI handler). */
  readonly redirects: OAuthRedirects;
  private readonly vault: CredentialVault;
  private readonly lackingTools: LackingToolsMemento;
  private readonly oauthTransport: OAuthTransport;
  /** What the current connection was built from (connectionKey), to tell a change that changes nothing. */
  private connectedWith: string | undefined;
  /** What this window learned about the servers (API generations, MCP revisions), for every connection it makes. */
  private readonly serverMemory = new ServerMemory();

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly localEngine: LocalEngineLauncher,
  ) {
    super();
    this.vault = new CredentialVault(context.secrets);
    this.lackingTools = new LackingToolsMemento(context.globalState);
    this.redirects = this.register(new OAuthRedirects(context.extension.id));
    // The engine died and was started again: connect to it (the same URL keeps every conversation,
    // and what failed meanwhile is refreshed at once).
    this.register(localEngine.onDidRestart((url) => void this.reconnectLocal(url)));
    // Another window refreshed the shared sign-in: this one's token changed too.
    this.register(
      this.vault.onDidChangeOAuthSignIn(async (instanceUrl) => {
        const current = this.connection;
        if (current?.auth !== 'oauth' || instanceUrl !== current.instanceUrl) return;
        const stored = await this.vault.oauthSignIn(instanceUrl);
        if (stored && this.connection === current) this.renewals.noticed(stored.tokens.accessToken);
      }),
    );
    this.register({ dispose: () => this.stopRenewal() });
    this.oauthTransport = this.register(new OAuthTransport());
  }

  /** How many times the current connection's token was renewed (changes when VS Code must re-read it). */
  get tokenGeneration(): number {
    return this.renewals.count;
  }

  get current(): Connection | undefined {
    return this.connection;
  }

  /** On activation: reconnects to whatever the user last chose, without asking anything. */
  restore(): Promise<void> {
    // The welcome view's "Sign In" would flash while a signed-in user is being reconnected.
    void vscode.commands.executeCommand('setContext', 'deepSearch.restoring', true);
    this.restoring = this.reconnectLastChoice().finally(() => void vscode.commands.executeCommand('setContext', 'deepSearch.restoring', false));
    return this.restoring;
  }

  /** Settles once `restore()` has, so a command run at activation sees the restored connection. */
  whenRestored(): Promise<void> {
    return this.restoring;
  }

  private async reconnectLastChoice(): Promise<void> {
    const kind = this.context.globalState.get<ConnectionKind>(MODE_KEY);
    try {
      if (await this.adoptLaunchToken()) return;
      if (kind === 'local') {
        // Once: a workspace without a git repository should not warn at every start.
        await this.useLocalEngine().catch(async (error: unknown) => {
          await this.context.globalState.update(MODE_KEY, undefined);
          throw error;
        });
        return;
      }
      const instanceUrl = configuredInstanceUrl();
      if (!instanceUrl) return;
      const normalized = normalizeInstanceUrl(instanceUrl);
      const authorization = await this.storedAuthorization(normalized);
      if (authorization) await this.connect('instance', normalized, authorization);
    } catch (error) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Deep Search could not reconnect: {0}', errorMessage(error)));
    }
  }

  /**
   * `npm start` launches VS Code already pointed at its engine: the URL and token come in the
   * environment of that VS Code only, and go straight to SecretStorage like a sign-in.
   */
  private async adoptLaunchToken(): Promise<boolean> {
    const instanceUrl = process.env[LAUNCH_URL_VARIABLE];
    const token = process.env[LAUNCH_TOKEN_VARIABLE];
    // Not passed on to git, terminals or anything else this extension host starts.
    delete process.env[LAUNCH_URL_VARIABLE];
    delete process.env[LAUNCH_TOKEN_VARIABLE];
    if (!instanceUrl || !token) return false;
    const normalized = normalizeInstanceUrl(instanceUrl);
    if ((await this.vault.instanceToken(normalized)) !== token) await this.signIn(normalized, token);
    else await this.connect('instance', normalized, { kind: 'token', token });
    return true;
  }

  /** Builds a client for a URL and token without storing anything (sign-in checks it first). */
  async createClient(instanceUrl: string, auth: string | Credential): Promise<InstanceConnection> {
    const { connectToInstance } = await this.network();
    return connectToInstance(instanceUrl, auth, await dispatcherOptions(), this.serverMemory);
  }

  /** The network bundle (dist/network.js): loaded on the first connection, not at activation. */
  network(): Promise<NetworkBundle> {
    return loadNetworkBundle();
  }

  /** The instance's OAuth authorization server (undefined when it has none), through the proxy settings. */
  authorizationServer(instanceUrl: string, signal?: AbortSignal): Promise<AuthorizationServerClient | undefined> {
    return this.oauthTransport.authorizationServer(instanceUrl, signal);
  }

  /** The tools an instance was last said to lack (comma-separated; '' for none), so it is said once. */
  lackingToolsSaid(instanceUrl: string): string | undefined {
    return this.lackingTools.said(instanceUrl);
  }

  rememberLackingToolsSaid(instanceUrl: string, tools: readonly string[]): Promise<void> {
    return this.lackingTools.remember(instanceUrl, tools);
  }

  /** Stores a token that was already checked and makes that instance current. */
  async signIn(instanceUrl: string, token: string): Promise<void> {
    const normalized = normalizeInstanceUrl(instanceUrl);
    await this.vault.storeInstanceToken(normalized, token);
    await this.vault.deleteOAuthSignIn(normalized);
    await this.useInstance(normalized, { kind: 'token', token });
  }

  /** Stores an OAuth sign-in whose tokens were already checked and makes that instance current. */
  async signInWithOAuth(instanceUrl: string, signIn: StoredOAuthSignIn): Promise<void> {
    const normalized = normalizeInstanceUrl(instanceUrl);
    await this.vault.storeOAuthSignIn(normalized, signIn);
    await this.vault.deleteInstanceToken(normalized);
    await this.useInstance(normalized, { kind: 'oauth', signIn });
  }

  private async useInstance(normalized: string, authorization: Authorization): Promise<void> {
    await this.context.globalState.update(MODE_KEY, 'instance');
    await this.localEngine.stop();
    await this.connect('instance', normalized, authorization);
    // After connecting, so the settings change this causes finds the same account and keeps it.
    await setConfiguredInstanceUrl(normalized);
  }

  /**
   * Forgets the sign-in here; an OAuth sign-in is also revoked on the instance (its refresh token,
   * which ends the access tokens issued from it). Resolves to what could not be done, if anything.
   */
  async signOut(): Promise<string | undefined> {
    const current = this.connection;
    let problem: string | undefined;
    if (current?.kind === 'instance') {
      problem = current.auth === 'oauth' ? await this.revokeOAuth(current.instanceUrl) : undefined;
      await this.vault.deleteInstanceToken(current.instanceUrl);
      await this.vault.deleteOAuthSignIn(current.instanceUrl);
    }
    await this.context.globalState.update(MODE_KEY, undefined);
    await this.localEngine.stop();
    this.setConnection(undefined);
    return problem;
  }

  private async revokeOAuth(instanceUrl: string): Promise<string | undefined> {
    const stored = await this.vault.oauthSignIn(instanceUrl);
    if (!stored) return undefined;
    const renewal = this.renewal;
    try {
      const server = renewal ? await renewal.server() : await this.authorizationServer(instanceUrl, AbortSignal.timeout(15_000));
      if (!server) return vscode.l10n.t('The instance no longer publishes its OAuth server, so the sign-in could not be revoked there.');
      const signal = AbortSignal.timeout(15_000);
      // The refresh token first: revoking it ends what was issued from it.
      if (stored.tokens.refreshToken) await server.revoke(stored.tokens.refreshToken, stored.clientId, signal);
      await server.revoke(stored.tokens.accessToken, stored.clientId, signal);
      return undefined;
    } catch (error) {
      return vscode.l10n.t(
        'The instance could not be told to revoke the sign-in ({0}); it ends when its tokens expire, or revoke it in your user settings on the instance.',
        errorMessage(error),
      );
    }
  }

  /** Starts the engine on the workspace's git repositories and connects to it. */
  async useLocalEngine(): Promise<void> {
    const token = await this.vault.ensureLocalEngineToken();
    const url = await this.localEngine.start(token);
    await this.context.globalState.update(MODE_KEY, 'local');
    await this.connect('local', url, { kind: 'token', token });
  }

  /** Proxy, CA or instance settings changed: rebuild the client (for another instance if the URL changed). */
  async reconnect(): Promise<void> {
    const current = this.connection;
    if (current?.kind === 'local') {
      const token = await this.currentToken();
      if (token) await this.connect('local', current.instanceUrl, { kind: 'token', token });
      return;
    }
    const configured = configuredInstanceUrl();
    const instanceUrl = configured ? normalizeInstanceUrl(configured) : undefined;
    const authorization = instanceUrl && (await this.storedAuthorization(instanceUrl));
    if (!instanceUrl || !authorization) {
      if (current) this.setConnection(undefined);
      return;
    }
    // A change that leaves everything the client is built from as it was (a sign-in writing the
    // URL it just connected to) keeps the connection: requests under way are not cut off.
    if (current && this.connectedWith === connectionKey('instance', instanceUrl, authorization, await dispatcherOptions())) return;
    await this.connect('instance', instanceUrl, authorization);
  }

  /**
   * The current connection's token, for the Accounts menu's session; read from SecretStorage (an
   * OAuth access token is renewed first when it is about to expire).
   */
  async currentToken(): Promise<string | undefined> {
    const current = this.connection;
    if (!current) return undefined;
    if (current.kind === 'local') return this.vault.localEngineToken();
    if (current.auth === 'oauth') return this.renewal?.tokens.accessToken().catch(() => undefined);
    return this.vault.instanceToken(current.instanceUrl);
  }

  /** The Authorization header value for the current connection (VS Code's agent sends it to the tool server). */
  async currentAuthorization(): Promise<string | undefined> {
    const token = await this.currentToken();
    if (!token) return undefined;
    return this.connection?.auth === 'oauth' ? `Bearer ${token}` : `token ${token}`;
  }

  private async storedAuthorization(instanceUrl: string): Promise<Authorization | undefined> {
    const signIn = await this.vault.oauthSignIn(instanceUrl);
    if (signIn) return { kind: 'oauth', signIn };
    const token = await this.vault.instanceToken(instanceUrl);
    return token ? { kind: 'token', token } : undefined;
  }

  private async reconnectLocal(url: string): Promise<void> {
    const token = await this.vault.localEngineToken();
    if (this.connection?.kind === 'local' && token) await this.connect('local', url, { kind: 'token', token });
  }

  /** Whatever path leads here (restore, sign-in, settings), the same account keeps its state. */
  private async connect(kind: ConnectionKind, instanceUrl: string, authorization: Authorization): Promise<void> {
    const renewal = authorization.kind === 'oauth' ? await this.oauthRenewal(normalizeInstanceUrl(instanceUrl), authorization.signIn) : undefined;
    const network = await dispatcherOptions();
    const { connectToInstance } = await this.network();
    const { client, tools, dispatcher } = connectToInstance(
      instanceUrl,
      renewal ? renewal.credential : (authorization as { token: string }).token,
      network,
      this.serverMemory,
    );
    const accountDigest = accountDigestOf(authorization);
    this.connectedWith = connectionKey(kind, client.instanceUrl, authorization, network);
    const previous = this.connection;
    const sameAccount = previous?.kind === kind && previous.instanceUrl === client.instanceUrl && previous.accountDigest === accountDigest;
    this.stopRenewal();
    this.renewal = renewal;
    this.renewals.restart(authorization.kind === 'oauth' ? authorization.signIn.tokens.accessToken : undefined);
    this.setConnection({
      kind,
      instanceUrl: client.instanceUrl,
      client,
      tools,
      dispatcher,
      accountDigest,
      auth: authorization.kind,
      ...(authorization.kind === 'oauth' && authorization.signIn.account ? { accountLabel: authorization.signIn.account.label } : {}),
      sameAccount,
    });
    renewal?.start();
  }

  /** The renewing side of an OAuth sign-in: SecretStorage is its vault; the instance's server refreshes. */
  private async oauthRenewal(instanceUrl: string, signIn: StoredOAuthSignIn): Promise<OAuthRenewal> {
    return new OAuthRenewal({
      network: await this.network(),
      signIn,
      stored: {
        read: () => this.vault.oauthSignIn(instanceUrl),
        write: async (next) => {
          await this.vault.storeOAuthSignIn(instanceUrl, next);
        },
      },
      findServer: async () => {
        const client = await this.authorizationServer(instanceUrl);
        if (!client) throw new Error(vscode.l10n.t('{0} no longer publishes its OAuth server: sign in again.', instanceUrl));
        return client;
      },
      onStored: (accessToken) => this.renewals.noticed(accessToken),
    });
  }

  private stopRenewal(): void {
    this.renewal?.stop();
    this.renewal = undefined;
  }

  private setConnection(connection: Connection | undefined): void {
    if (!connection) {
      this.connectedWith = undefined;
      this.stopRenewal();
    }
    // Requests under way finish first; then its sockets close.
    const previous = this.connection;
    void previous?.tools.client.close().finally(() => void previous.dispatcher.close().catch(() => undefined));
    this.connection = connection;
    void vscode.commands.executeCommand('setContext', 'deepSearch.signedIn', connection !== undefined);
    this.changeEmitter.fire(connection);
  }
}

/** What identifies the account (never the token itself: a digest), whatever renews. */
function accountDigestOf(authorization: Authorization): string {
  const identity =
    authorization.kind === 'oauth'
      ? `oauth\n${authorization.signIn.clientId}\n${authorization.signIn.account?.id ?? authorization.signIn.id}`
      : authorization.token;
  return createHash('sha256').update(identity).digest('hex');
}

/** Everything a connection is built from, as one string (digests only: no token). */
function connectionKey(kind: ConnectionKind, instanceUrl: string, authorization: Authorization, network: object): string {
  return JSON.stringify([kind, normalizeInstanceUrl(instanceUrl), accountDigestOf(authorization), network]);
}
