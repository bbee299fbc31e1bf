/**
 * Who the extension talks to: a signed-in instance (URL in settings; an access token or an OAuth
 * sign-in in SecretStorage, keyed by that URL) or the local engine (started on demand, its token in
 * SecretStorage too). A token leaves SecretStorage only to build an Authorization header. An OAuth
 * sign-in renews itself: before its access token expires and after a 401, one refresh at a time,
 * with SecretStorage as the one copy every window reads (src/api/oauth/tokenSession.ts).
 * This class decides and holds the connection, made one way whatever asks for it (connectTo). It
 * is handed the credential vault, the global state and the network its entry point gives
 * (networkBundle.ts: undici on Node, fetch on the web) by activation.ts, as the sign-in is
 * (signIn.ts stores what it checked, then asks for the instance with useInstance).
 */
import * as vscode from 'vscode';
import type { DeepSearchClient } from '../../api/client';
import { parseInstanceUrl, type InstanceUrl } from '../../api/instance';
import type { CodeTools } from '../../api/tools/codeTools';
import { ServerMemory } from '../../api/serverMemory';
import type { Transport } from '../../api/transport';
import type { CredentialVault, StoredOAuthSignIn } from './credentialVault';
import { Disposables } from '../disposables';
import type { NetworkAccess, OAuthServers } from './networkBundle';
import { sha256Hex } from '../digest';
import { OAuthRenewal, RenewalCount } from './oauthRenewal';
import type { LocalEngineLauncher } from '../engine/localEngine';
import { configuredInstance, setConfiguredInstanceUrl } from '../settings';
import { errorMessage } from '../../api/errors';

export type ConnectionKind = 'instance' | 'local';

export interface Connection {
  kind: ConnectionKind;
  instanceUrl: InstanceUrl;
  client: DeepSearchClient;
  /** The instance's tool server (found on first use; closed when the connection is replaced). */
  tools: CodeTools;
  /** What carries its requests (undici on Node, fetch on the web); closed when the connection is replaced. */
  transport: Transport;
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

/** What the session is connected to, or connecting to. */
type Target = { kind: ConnectionKind; instanceUrl: InstanceUrl };

/** Which settings changed (VS Code's proxy and certificates; the instance URL). */
export interface SettingsChange {
  network: boolean;
  instanceUrl: boolean;
}

/** What the session is built from: activation.ts hands the same vault and network to the sign-in. */
export interface SessionParts {
  /** SecretStorage: tokens and OAuth sign-ins per instance, the local engine's token. */
  vault: CredentialVault;
  /** The global state: which kind of connection the user chose last. */
  state: Pick<vscode.Memento, 'get' | 'update'>;
  /** The client code and what carries its requests, as the entry point gives them (undici or fetch). */
  network: NetworkAccess;
  /** The instances' OAuth servers (renewal, revocation). */
  oauthServers: OAuthServers;
  localEngine: LocalEngine;
}

const MODE_KEY = 'deepSearch.connectionKind';

/** How a connection is authorized: a fixed access token, or an OAuth sign-in. */
type Authorization = { kind: 'token'; token: string } | { kind: 'oauth'; signIn: StoredOAuthSignIn };

/** Set by `npm start` for the VS Code it launches (see README). */
export const LAUNCH_URL_VARIABLE = 'DEEP_SEARCH_LAUNCH_INSTANCE_URL';
export const LAUNCH_TOKEN_VARIABLE = 'DEEP_SEARCH_LAUNCH_TOKEN';

/** What the session needs of the local engine (on the web, a stand-in that says it cannot run there). */
export type LocalEngine = Pick<LocalEngineLauncher, 'start' | 'stop' | 'onDidRestart'>;

export class Session extends Disposables implements vscode.Disposable {
  private connection: Connection | undefined;
  /**
   * What the user chose last (set before anything is awaited): a connection made for an older
   * choice is dropped, and the settings change a sign-in causes by writing the URL it chose is
   * recognised as that choice, whichever of the two comes first.
   */
  private target: Target | undefined;
  /** Connections are made one after the other, in the order they were asked for. */
  private connecting: Promise<void> = Promise.resolve();
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
  /** What this window learned about the servers (API generations, MCP revisions), for every connection it makes. */
  private readonly serverMemory = new ServerMemory();

  constructor(private readonly parts: SessionParts) {
    super();
    const { vault, localEngine } = parts;
    // The engine died and was started again: connect to it (the same URL keeps every conversation,
    // and what failed meanwhile is refreshed at once).
    this.register(
      localEngine.onDidRestart((url) => {
        if (this.target?.kind === 'local') void this.connectTo({ kind: 'local', instanceUrl: parseInstanceUrl(url) });
      }),
    );
    // Another window refreshed the shared sign-in: this one's token changed too.
    this.register(
      vault.onDidChangeOAuthSignIn(async (instanceUrl) => {
        const current = this.connection;
        if (current?.auth !== 'oauth' || instanceUrl !== current.instanceUrl) return;
        const stored = await vault.oauthSignIn(current.instanceUrl);
        if (stored && this.connection === current) this.renewals.noticed(stored.tokens.accessToken);
      }),
    );
    this.register({ dispose: () => this.stopRenewal() });
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
    const kind = this.parts.state.get<ConnectionKind>(MODE_KEY);
    try {
      if (await this.adoptLaunchToken()) return;
      if (kind === 'local') {
        // Once: a workspace without a git repository should not warn at every start.
        await this.useLocalEngine().catch(async (error: unknown) => {
          await this.parts.state.update(MODE_KEY, undefined);
          throw error;
        });
        return;
      }
      const instanceUrl = configuredInstance();
      if (instanceUrl) await this.connectTo({ kind: 'instance', instanceUrl });
    } catch (error) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Deep Search could not reconnect: {0}', errorMessage(error)));
    }
  }

  /**
   * `npm start` launches VS Code already pointed at its engine: the URL and token come in the
   * environment of that VS Code only, and go straight to SecretStorage like a sign-in.
   */
  private async adoptLaunchToken(): Promise<boolean> {
    // A web worker has no environment.
    const env = typeof process === 'undefined' ? undefined : process.env;
    if (!env) return false;
    const given = env[LAUNCH_URL_VARIABLE];
    const token = env[LAUNCH_TOKEN_VARIABLE];
    // Not passed on to git, terminals or anything else this extension host starts.
    delete env[LAUNCH_URL_VARIABLE];
    delete env[LAUNCH_TOKEN_VARIABLE];
    if (!given || !token) return false;
    const instanceUrl = parseInstanceUrl(given);
    const { vault } = this.parts;
    if ((await vault.instanceToken(instanceUrl)) === token) {
      await this.connectTo({ kind: 'instance', instanceUrl });
      return true;
    }
    await vault.storeInstanceToken(instanceUrl, token);
    await vault.deleteOAuthSignIn(instanceUrl);
    await this.useInstance(instanceUrl);
    return true;
  }

  /**
   * Makes the instance current with what the vault holds for it (a sign-in stored it just before),
   * and writes its URL to the settings.
   */
  async useInstance(instanceUrl: InstanceUrl): Promise<void> {
    const target: Target = { kind: 'instance', instanceUrl };
    this.target = target;
    await this.parts.state.update(MODE_KEY, 'instance');
    await this.parts.localEngine.stop();
    // The settings change this write causes names the target: it changes nothing (settingsChanged).
    await setConfiguredInstanceUrl(instanceUrl);
    await this.connectTo(target);
  }

  /**
   * Forgets the sign-in here; an OAuth sign-in is also revoked on the instance (its refresh token,
   * which ends the access tokens issued from it). Resolves to what could not be done, if anything.
   */
  async signOut(): Promise<string | undefined> {
    const current = this.connection;
    this.target = undefined;
    let problem: string | undefined;
    if (current?.kind === 'instance') {
      problem = current.auth === 'oauth' ? await this.revokeOAuth(current.instanceUrl) : undefined;
      await this.parts.vault.deleteInstanceToken(current.instanceUrl);
      await this.parts.vault.deleteOAuthSignIn(current.instanceUrl);
    }
    await this.parts.state.update(MODE_KEY, undefined);
    await this.parts.localEngine.stop();
    this.setConnection(undefined);
    return problem;
  }

  private async revokeOAuth(instanceUrl: InstanceUrl): Promise<string | undefined> {
    const stored = await this.parts.vault.oauthSignIn(instanceUrl);
    if (!stored) return undefined;
    const renewal = this.renewal;
    try {
      const server = renewal ? await renewal.server() : await this.parts.oauthServers.authorizationServer(instanceUrl, AbortSignal.timeout(15_000));
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
    const token = await this.parts.vault.ensureLocalEngineToken();
    const url = parseInstanceUrl(await this.parts.localEngine.start(token));
    await this.parts.state.update(MODE_KEY, 'local');
    await this.connectTo({ kind: 'local', instanceUrl: url });
  }

  /**
   * Settings changed. The proxy or certificates: the current connection is rebuilt. The instance
   * URL: another instance is connected to (its stored sign-in), or none; a URL that names what the
   * session is already connected or connecting to (a sign-in writing the URL it chose) changes nothing.
   */
  async settingsChanged(change: SettingsChange): Promise<void> {
    const target = this.target;
    if (target?.kind === 'local') {
      if (change.network) await this.connectTo(target);
      return;
    }
    let configured: InstanceUrl | undefined;
    try {
      configured = configuredInstance();
    } catch (error) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Deep Search could not reconnect: {0}', errorMessage(error)));
    }
    if (configured === target?.instanceUrl && !change.network) return;
    if (!configured) {
      this.target = undefined;
      if (this.connection) this.setConnection(undefined);
      return;
    }
    await this.connectTo({ kind: 'instance', instanceUrl: configured });
  }

  /**
   * The current connection's token, for the Accounts menu's session; read from SecretStorage (an
   * OAuth access token is renewed first when it is about to expire).
   */
  async currentToken(): Promise<string | undefined> {
    const current = this.connection;
    if (!current) return undefined;
    if (current.kind === 'local') return this.parts.vault.localEngineToken();
    if (current.auth === 'oauth') return this.renewal?.tokens.accessToken().catch(() => undefined);
    return this.parts.vault.instanceToken(current.instanceUrl);
  }

  /** The Authorization header value for the current connection (VS Code's agent sends it to the tool server). */
  async currentAuthorization(): Promise<string | undefined> {
    const token = await this.currentToken();
    if (!token) return undefined;
    return this.connection?.auth === 'oauth' ? `Bearer ${token}` : `token ${token}`;
  }

  private async storedAuthorization(target: Target): Promise<Authorization | undefined> {
    const { vault } = this.parts;
    if (target.kind === 'local') {
      const token = await vault.localEngineToken();
      return token ? { kind: 'token', token } : undefined;
    }
    const signIn = await vault.oauthSignIn(target.instanceUrl);
    if (signIn) return { kind: 'oauth', signIn };
    const token = await vault.instanceToken(target.instanceUrl);
    return token ? { kind: 'token', token } : undefined;
  }

  /**
   * The one way a connection is made, whatever leads here (restore, sign-in, settings, the engine
   * restarting): the target becomes the user's choice at once, and connections are made in the
   * order asked, each with what the vault holds for its instance; one a later choice replaced
   * before it was made is dropped. The same account keeps its state.
   */
  private connectTo(target: Target): Promise<void> {
    this.target = target;
    const made = this.connecting.then(() => this.connectNow(target));
    this.connecting = made.catch(() => undefined);
    return made;
  }

  private async connectNow(target: Target): Promise<void> {
    if (this.target !== target) return;
    const authorization = await this.storedAuthorization(target);
    if (this.target !== target) return;
    if (!authorization) {
      if (this.connection) this.setConnection(undefined);
      return;
    }
    const { kind, instanceUrl } = target;
    const renewal = authorization.kind === 'oauth' ? await this.oauthRenewal(instanceUrl, authorization.signIn) : undefined;
    const { connectToInstance } = await this.parts.network.load();
    const transport = await this.parts.network.createTransport();
    if (this.target !== target) {
      void transport.close().catch(() => undefined);
      return;
    }
    const { client, tools } = connectToInstance(
      instanceUrl,
      renewal ? renewal.credential : (authorization as { token: string }).token,
      transport,
      this.serverMemory,
    );
    const accountDigest = accountDigestOf(authorization);
    const previous = this.connection;
    const sameAccount = previous?.kind === kind && previous.instanceUrl === instanceUrl && previous.accountDigest === accountDigest;
    this.stopRenewal();
    this.renewal = renewal;
    this.renewals.restart(authorization.kind === 'oauth' ? authorization.signIn.tokens.accessToken : undefined);
    this.setConnection({
      kind,
      instanceUrl,
      client,
      tools,
      transport,
      accountDigest,
      auth: authorization.kind,
      ...(authorization.kind === 'oauth' && authorization.signIn.account ? { accountLabel: authorization.signIn.account.label } : {}),
      sameAccount,
    });
    renewal?.start();
  }

  /** The renewing side of an OAuth sign-in: SecretStorage is its vault; the instance's server refreshes. */
  private async oauthRenewal(instanceUrl: InstanceUrl, signIn: StoredOAuthSignIn): Promise<OAuthRenewal> {
    const { vault, oauthServers } = this.parts;
    return new OAuthRenewal({
      network: await this.parts.network.load(),
      signIn,
      stored: {
        read: () => vault.oauthSignIn(instanceUrl),
        write: async (next) => {
          await vault.storeOAuthSignIn(instanceUrl, next);
        },
      },
      findServer: async () => {
        const client = await oauthServers.authorizationServer(instanceUrl);
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
    if (!connection) this.stopRenewal();
    // Requests under way finish first; then its sockets close.
    const previous = this.connection;
    void previous?.tools.client.close().finally(() => void previous.transport.close().catch(() => undefined));
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
  return sha256Hex(identity);
}
