/**
 * Who the extension talks to: a signed-in instance (URL in settings, token in SecretStorage keyed
 * by that URL) or the local engine (started on demand, its token in SecretStorage too). The token
 * leaves SecretStorage only to build the client's Authorization header.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Dispatcher } from 'undici';
import * as vscode from 'vscode';
import type { DeepSearchClient } from '../api/client';
import { normalizeInstanceUrl } from '../api/instance';
import type { InstanceConnection } from '../api/network';
import type { CodeTools } from '../api/tools/codeTools';
import { Disposables } from './disposables';
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
  /** SHA-256 of the token, to tell a reconnect of the same account from a new one (never the token). */
  tokenDigest: string;
  /** False when the account or instance differs from the previous connection's. */
  sameAccount: boolean;
}

const MODE_KEY = 'deepSearch.connectionKind';
const LOCAL_TOKEN_KEY = 'deepSearch.localEngine.token';
const tokenKey = (instanceUrl: string) => `deepSearch.token:${instanceUrl}`;
const lackingToolsKey = (instanceUrl: string) => `deepSearch.lackingToolsSaid:${normalizeInstanceUrl(instanceUrl)}`;
/** Set by `npm start` for the VS Code it launches (see README). */
export const LAUNCH_URL_VARIABLE = 'DEEP_SEARCH_LAUNCH_INSTANCE_URL';
export const LAUNCH_TOKEN_VARIABLE = 'DEEP_SEARCH_LAUNCH_TOKEN';

export class Session extends Disposables implements vscode.Disposable {
  private connection: Connection | undefined;
  private restoring: Promise<void> = Promise.resolve();
  private readonly changeEmitter = this.register(new vscode.EventEmitter<Connection | undefined>());
  /** Fires after every sign-in, sign-out, switch or client rebuild. */
  readonly onDidChange = this.changeEmitter.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly localEngine: LocalEngineLauncher,
  ) {
    super();
    // The engine died and was started again: connect to it (the same URL keeps every conversation,
    // and what failed meanwhile is refreshed at once).
    this.register(localEngine.onDidRestart((url) => void this.reconnectLocal(url)));
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
      const token = await this.context.secrets.get(tokenKey(normalized));
      if (token) await this.connect('instance', normalized, token);
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
    else await this.connect('instance', normalized, token);
    return true;
  }

  /** Builds a client for a URL and token without storing anything (sign-in checks it first). */
  async createClient(instanceUrl: string, token: string): Promise<InstanceConnection> {
    const network = networkSettings();
    const caCertificates = network.caCertificatesPath ? [await readCaFile(network.caCertificatesPath)] : [];
    // A bundle of its own (dist/network.js), loaded here on the first connection, not at activation.
    const { connectToInstance } = await import('../api/network');
    return connectToInstance(instanceUrl, token, { proxyUrl: network.proxyUrl, strictSSL: network.strictSSL, caCertificates });
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
    await this.context.globalState.update(MODE_KEY, 'instance');
    await this.localEngine.stop();
    await this.connect('instance', normalized, token);
    // After connecting, so the settings change this causes finds the same account and keeps it.
    await setConfiguredInstanceUrl(normalized);
  }

  async signOut(): Promise<void> {
    const current = this.connection;
    if (current?.kind === 'instance') await this.context.secrets.delete(tokenKey(current.instanceUrl));
    await this.context.globalState.update(MODE_KEY, undefined);
    await this.localEngine.stop();
    this.setConnection(undefined);
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
    await this.connect('local', url, token);
  }

  /** Proxy, CA or instance settings changed: rebuild the client (for another instance if the URL changed). */
  async reconnect(): Promise<void> {
    const current = this.connection;
    if (current?.kind === 'local') {
      const token = await this.currentToken();
      if (token) await this.connect('local', current.instanceUrl, token);
      return;
    }
    const configured = configuredInstanceUrl();
    const instanceUrl = configured ? normalizeInstanceUrl(configured) : undefined;
    const token = instanceUrl && (await this.context.secrets.get(tokenKey(instanceUrl)));
    if (instanceUrl && token) await this.connect('instance', instanceUrl, token);
    else if (current) this.setConnection(undefined);
  }

  /** The current connection's token, for the Accounts menu's session; read from SecretStorage. */
  async currentToken(): Promise<string | undefined> {
    const current = this.connection;
    if (!current) return undefined;
    return this.context.secrets.get(current.kind === 'local' ? LOCAL_TOKEN_KEY : tokenKey(current.instanceUrl));
  }

  private async reconnectLocal(url: string): Promise<void> {
    const token = await this.context.secrets.get(LOCAL_TOKEN_KEY);
    if (this.connection?.kind === 'local' && token) await this.connect('local', url, token);
  }

  /** Whatever path leads here (restore, sign-in, settings), the same account keeps its state. */
  private async connect(kind: ConnectionKind, instanceUrl: string, token: string): Promise<void> {
    const { client, tools, dispatcher } = await this.createClient(instanceUrl, token);
    const tokenDigest = createHash('sha256').update(token).digest('hex');
    const previous = this.connection;
    const sameAccount = previous?.kind === kind && previous.instanceUrl === client.instanceUrl && previous.tokenDigest === tokenDigest;
    this.setConnection({ kind, instanceUrl: client.instanceUrl, client, tools, dispatcher, tokenDigest, sameAccount });
  }

  private setConnection(connection: Connection | undefined): void {
    // Requests under way finish first; then its sockets close.
    const previous = this.connection;
    void previous?.tools.client.close().finally(() => void previous.dispatcher.close().catch(() => undefined));
    this.connection = connection;
    void vscode.commands.executeCommand('setContext', 'deepSearch.signedIn', connection !== undefined);
    this.changeEmitter.fire(connection);
  }
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
