/**
 * Who the extension talks to: a signed-in instance (URL in settings; an access token or an OAuth
 * sign-in in SecretStorage, keyed by that URL) or the local engine (started on demand, its token in
 * SecretStorage too). A token leaves SecretStorage only to build an Authorization header. An OAuth
 * sign-in renews itself: before its access token expires and after a 401, one refresh at a time,
 * with SecretStorage as the one copy every window reads (src/api/oauth/tokenSession.ts).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Dispatcher } from 'undici';
import * as vscode from 'vscode';
import type { DeepSearchClient } from '../api/client';
import type { Credential } from '../api/credential';
import type { HttpTransport } from '../api/http';
import type { AuthorizationServerClient, OAuthTokens } from '../api/oauth/authorizationServer';
import type { TokenSession } from '../api/oauth/tokenSession';
import { normalizeInstanceUrl } from '../api/instance';
import type { InstanceConnection } from '../api/network';
import type { CodeTools } from '../api/tools/codeTools';
import { Disposables } from './disposables';
import { OAuthRedirects } from './oauthRedirect';
import type { LocalEngineLauncher } from './localEngine';
import { configuredInstanceUrl, networkSettings, setConfiguredInstanceUrl } from './settings';
import { errorMessage } from '../api/errors';

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
const LOCAL_TOKEN_KEY = 'deepSearch.localEngine.token';
const tokenKey = (instanceUrl: string) => `deepSearch.token:${instanceUrl}`;
const oauthKey = (instanceUrl: string) => `deepSearch.oauth:${instanceUrl}`;
const lackingToolsKey = (instanceUrl: string) => `deepSearch.lackingToolsSaid:${normalizeInstanceUrl(instanceUrl)}`;

/** An OAuth sign-in as SecretStorage keeps it (JSON under `deepSearch.oauth:<instance URL>`). */
export interface StoredOAuthSignIn {
  /** Random, per sign-in: tells this sign-in from another where the instance names no account. */
  id: string;
  clientId: string;
  tokens: OAuthTokens;
  /** From `userinfo` at sign-in, where the instance has it. */
  account?: { id: string; label: string };
}

/** How a connection is authorized: a fixed access token, or an OAuth sign-in. */
type Authorization = { kind: 'token'; token: string } | { kind: 'oauth'; signIn: StoredOAuthSignIn };

/** The renewing side of an OAuth connection. */
interface OAuthRenewal {
  tokens: TokenSession;
  credential: Credential;
  /** The instance's authorization server, found on first need (refresh, sign out). */
  server: () => Promise<AuthorizationServerClient>;
  timer?: ReturnType<typeof setTimeout>;
  closed: boolean;
}
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
  /** Where browser sign-ins come back (this extension's URI handler). */
  readonly redirects: OAuthRedirects;
  private oauthHttp: { key: string; transport: HttpTransport; dispatcher: Dispatcher } | undefined;
  /** What the current connection was built from (connectionKey), to tell a change that changes nothing. */
  private connectedWith: string | undefined;
  /** Counts renewals of the current connection's token (for the MCP definition's version). */
  private renewals = 0;
  /** SHA-256 of the OAuth access token last announced (a renewal is announced once, whoever noticed it first). */
  private seenTokenDigest: string | undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly localEngine: LocalEngineLauncher,
  ) {
    super();
    this.redirects = this.register(new OAuthRedirects(context.extension.id));
    // The engine died and was started again: connect to it (the same URL keeps every conversation,
    // and what failed meanwhile is refreshed at once).
    this.register(localEngine.onDidRestart((url) => void this.reconnectLocal(url)));
    // Another window refreshed the shared sign-in: this one's token changed too.
    this.register(
      context.secrets.onDidChange(async ({ key }) => {
        const current = this.connection;
        if (current?.auth !== 'oauth' || key !== oauthKey(current.instanceUrl)) return;
        const stored = parseStoredOAuth(await context.secrets.get(key));
        if (stored && this.connection === current) this.tokenSeen(stored.tokens.accessToken);
      }),
    );
    this.register({ dispose: () => this.stopRenewal() });
    this.register({ dispose: () => void this.oauthHttp?.dispatcher.close().catch(() => undefined) });
  }

  /** How many times the current connection's token was renewed (changes when VS Code must re-read it). */
  get tokenGeneration(): number {
    return this.renewals;
  }

  get current(): Connection | undefined {
    return this.connection;
  }

  /** On activation: reconnects to whatever the user last chose, without asking anything. */
  restore(): Promise<void> {
    // The welcome view's "Sign In" would flash while a signed-in user is being reconnected.
    void vscode.commands.executeCommand('setContext', 'deepSearch.restoring', true);
    this.restoring = this.reconnectLastChoice().finally(
      () => void vscode.commands.executeCommand('setContext', 'deepSearch.restoring', false),
    );
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
      void vscode.window.showWarningMessage(
        vscode.l10n.t('Deep Search could not reconnect: {0}', errorMessage(error)),
      );
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
    if ((await this.context.secrets.get(tokenKey(normalized))) !== token) await this.signIn(normalized, token);
    else await this.connect('instance', normalized, { kind: 'token', token });
    return true;
  }

  /** Builds a client for a URL and token without storing anything (sign-in checks it first). */
  async createClient(instanceUrl: string, auth: string | Credential): Promise<InstanceConnection> {
    const { connectToInstance } = await this.network();
    return connectToInstance(instanceUrl, auth, await dispatcherOptions());
  }

  /** The network bundle (dist/network.js): loaded on the first connection, not at activation. */
  network(): Promise<typeof import('../api/network')> {
    return import('../api/network');
  }

  /** The instance's OAuth authorization server (undefined when it has none), through the proxy settings. */
  async authorizationServer(instanceUrl: string, signal?: AbortSignal): Promise<AuthorizationServerClient | undefined> {
    const network = await this.network();
    return network.AuthorizationServerClient.discover(await this.oauthTransport(), instanceUrl, signal);
  }

  /** One transport for OAuth endpoints, rebuilt when the proxy or certificate settings change (the old one closed). */
  private async oauthTransport(): Promise<HttpTransport> {
    const options = await dispatcherOptions();
    const key = JSON.stringify(options);
    if (this.oauthHttp?.key !== key) {
      const previous = this.oauthHttp;
      const { transport, dispatcher } = (await this.network()).oauthTransport(options);
      this.oauthHttp = { key, transport, dispatcher };
      void previous?.dispatcher.close().catch(() => undefined);
    }
    return this.oauthHttp.transport;
  }

  /** The tools an instance was last said to lack (comma-separated; '' for none), so it is said once. */
  lackingToolsSaid(instanceUrl: string): string | undefined {
    return this.context.globalState.get<string>(lackingToolsKey(instanceUrl));
  }

  async rememberLackingToolsSaid(instanceUrl: string, tools: readonly string[]): Promise<void> {
    await this.context.globalState.update(lackingToolsKey(instanceUrl), tools.join(','));
  }

  /** Stores a token that was already checked and makes that instance current. */
  async signIn(instanceUrl: string, token: string): Promise<void> {
    const normalized = normalizeInstanceUrl(instanceUrl);
    await this.context.secrets.store(tokenKey(normalized), token);
    await this.context.secrets.delete(oauthKey(normalized));
    await this.useInstance(normalized, { kind: 'token', token });
  }

  /** Stores an OAuth sign-in whose tokens were already checked and makes that instance current. */
  async signInWithOAuth(instanceUrl: string, signIn: StoredOAuthSignIn): Promise<void> {
    const normalized = normalizeInstanceUrl(instanceUrl);
    await this.context.secrets.store(oauthKey(normalized), JSON.stringify(signIn));
    await this.context.secrets.delete(tokenKey(normalized));
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
      await this.context.secrets.delete(tokenKey(current.instanceUrl));
      await this.context.secrets.delete(oauthKey(current.instanceUrl));
    }
    await this.context.globalState.update(MODE_KEY, undefined);
    await this.localEngine.stop();
    this.setConnection(undefined);
    return problem;
  }

  private async revokeOAuth(instanceUrl: string): Promise<string | undefined> {
    const stored = parseStoredOAuth(await this.context.secrets.get(oauthKey(instanceUrl)));
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
      return vscode.l10n.t('The instance could not be told to revoke the sign-in ({0}); it ends when its tokens expire, or revoke it in your user settings on the instance.', errorMessage(error));
    }
  }

  /** Starts the engine on the workspace's git repositories and connects to it. */
  async useLocalEngine(): Promise<void> {
    let token = await this.context.secrets.get(LOCAL_TOKEN_KEY);
    if (!token) {
      token = `dse_${randomHex(32)}`;
      await this.context.secrets.store(LOCAL_TOKEN_KEY, token);
    }
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
    if (current.kind === 'local') return this.context.secrets.get(LOCAL_TOKEN_KEY);
    if (current.auth === 'oauth') return this.renewal?.tokens.accessToken().catch(() => undefined);
    return this.context.secrets.get(tokenKey(current.instanceUrl));
  }

  /** The Authorization header value for the current connection (VS Code's agent sends it to the tool server). */
  async currentAuthorization(): Promise<string | undefined> {
    const token = await this.currentToken();
    if (!token) return undefined;
    return this.connection?.auth === 'oauth' ? `Bearer ${token}` : `token ${token}`;
  }

  private async storedAuthorization(instanceUrl: string): Promise<Authorization | undefined> {
    const signIn = parseStoredOAuth(await this.context.secrets.get(oauthKey(instanceUrl)));
    if (signIn) return { kind: 'oauth', signIn };
    const token = await this.context.secrets.get(tokenKey(instanceUrl));
    return token ? { kind: 'token', token } : undefined;
  }

  private async reconnectLocal(url: string): Promise<void> {
    const token = await this.context.secrets.get(LOCAL_TOKEN_KEY);
    if (this.connection?.kind === 'local' && token) await this.connect('local', url, { kind: 'token', token });
  }

  /** Whatever path leads here (restore, sign-in, settings), the same account keeps its state. */
  private async connect(kind: ConnectionKind, instanceUrl: string, authorization: Authorization): Promise<void> {
    const renewal = authorization.kind === 'oauth' ? await this.startRenewal(normalizeInstanceUrl(instanceUrl), authorization.signIn) : undefined;
    const network = await dispatcherOptions();
    const { connectToInstance } = await this.network();
    const { client, tools, dispatcher } = connectToInstance(instanceUrl, renewal ? renewal.credential : (authorization as { token: string }).token, network);
    const accountDigest = accountDigestOf(authorization);
    this.connectedWith = connectionKey(kind, client.instanceUrl, authorization, network);
    const previous = this.connection;
    const sameAccount = previous?.kind === kind && previous.instanceUrl === client.instanceUrl && previous.accountDigest === accountDigest;
    this.stopRenewal();
    this.renewal = renewal;
    this.renewals = 0;
    this.seenTokenDigest = authorization.kind === 'oauth' ? createHash('sha256').update(authorization.signIn.tokens.accessToken).digest('hex') : undefined;
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
    if (renewal) this.scheduleRenewal(renewal);
  }

  /** The token session of an OAuth sign-in: SecretStorage is its vault; the instance's server refreshes. */
  private async startRenewal(instanceUrl: string, signIn: StoredOAuthSignIn): Promise<OAuthRenewal> {
    const network = await this.network();
    const key = oauthKey(instanceUrl);
    let found: Promise<AuthorizationServerClient> | undefined;
    const server = () => {
      found ??= this.authorizationServer(instanceUrl).then((client) => {
        if (!client) throw new Error(vscode.l10n.t('{0} no longer publishes its OAuth server: sign in again.', instanceUrl));
        return client;
      });
      found.catch(() => (found = undefined));
      return found;
    };
    const tokens = new network.TokenSession(
      {
        read: async () => parseStoredOAuth(await this.context.secrets.get(key))?.tokens,
        write: async (next) => {
          const stored = parseStoredOAuth(await this.context.secrets.get(key)) ?? signIn;
          await this.context.secrets.store(key, JSON.stringify({ ...stored, tokens: next } satisfies StoredOAuthSignIn));
          this.tokenSeen(next.accessToken);
        },
      },
      async (refreshToken) => (await server()).refresh(refreshToken, signIn.clientId),
    );
    return { tokens, credential: network.oauthCredential(tokens), server, closed: false };
  }

  /** Renews when the session would (shortly before expiry), so VS Code's agent never holds a dead token. */
  private scheduleRenewal(renewal: OAuthRenewal): void {
    if (renewal.closed) return;
    void renewal.tokens.renewsAt().then((renewsAt) => {
      if (renewal.closed || renewsAt === undefined) return;
      // At least a second apart; at most a day ahead (timer limits).
      const delay = Math.min(Math.max(renewsAt - Date.now(), 1_000), 24 * 3_600_000);
      renewal.timer = setTimeout(() => {
        void renewal.tokens
          .accessToken()
          .then(() => this.scheduleRenewal(renewal))
          // A refused refresh is said by the next request that needs the token (once).
          .catch(() => undefined);
      }, delay);
    });
  }

  private stopRenewal(): void {
    const renewal = this.renewal;
    if (!renewal) return;
    renewal.closed = true;
    clearTimeout(renewal.timer);
    this.renewal = undefined;
  }

  /** Announces a renewed access token (once per token, however many times it is noticed). */
  private tokenSeen(accessToken: string): void {
    const digest = createHash('sha256').update(accessToken).digest('hex');
    if (digest === this.seenTokenDigest) return;
    this.seenTokenDigest = digest;
    this.renewals++;
    this.renewEmitter.fire();
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
    authorization.kind === 'oauth' ? `oauth\n${authorization.signIn.clientId}\n${authorization.signIn.account?.id ?? authorization.signIn.id}` : authorization.token;
  return createHash('sha256').update(identity).digest('hex');
}

/** Everything a connection is built from, as one string (digests only: no token). */
function connectionKey(kind: ConnectionKind, instanceUrl: string, authorization: Authorization, network: object): string {
  return JSON.stringify([kind, normalizeInstanceUrl(instanceUrl), accountDigestOf(authorization), network]);
}

/** The stored OAuth sign-in, or undefined when there is none or it is not one this version wrote. */
function parseStoredOAuth(text: string | undefined): StoredOAuthSignIn | undefined {
  if (!text) return undefined;
  try {
    const value = JSON.parse(text) as Partial<StoredOAuthSignIn>;
    if (typeof value.id !== 'string' || typeof value.clientId !== 'string' || typeof value.tokens?.accessToken !== 'string') return undefined;
    return value as StoredOAuthSignIn;
  } catch {
    return undefined;
  }
}

async function dispatcherOptions(): Promise<{ proxyUrl: string; strictSSL: boolean; caCertificates: string[] }> {
  const network = networkSettings();
  const caCertificates = network.caCertificatesPath ? [await readCaFile(network.caCertificatesPath)] : [];
  return { proxyUrl: network.proxyUrl, strictSSL: network.strictSSL, caCertificates };
}

async function readCaFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(
      vscode.l10n.t(
        'Could not read the CA certificates file {0} ({1}) — fix the "deepSearch.caCertificatesPath" setting.',
        path,
        (error as NodeJS.ErrnoException).code ?? String(error),
      ),
    );
  }
}

function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}
