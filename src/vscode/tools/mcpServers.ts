/**
 * VS Code's agent gets the instance's tools: an MCP server definition for the signed-in instance (or
 * the local engine). The definition VS Code lists carries no token; the Authorization header is
 * added only when VS Code resolves the server to start it. Its version changes with the instance,
 * the account and each renewal of an OAuth token, so VS Code fetches the tools again with the new header.
 */
import { sha256Hex } from '../digest';
import * as vscode from 'vscode';
import { TOOL_SERVER_PATHS } from '../../api/tools/toolServer';
import { Disposables } from '../disposables';
import type { Session } from '../auth/session';

export const MCP_PROVIDER_ID = 'deepSearch.tools';

export class DeepSearchMcpServers extends Disposables implements vscode.McpServerDefinitionProvider<vscode.McpHttpServerDefinition>, vscode.Disposable {
  private readonly changeEmitter = this.register(new vscode.EventEmitter<void>());
  readonly onDidChangeMcpServerDefinitions = this.changeEmitter.event;
  private stopWatchingDiscovery: (() => void) | undefined;

  constructor(private readonly session: Session) {
    super();
    this.register({ dispose: () => this.stopWatchingDiscovery?.() });
    this.register(
      session.onDidChange((connection) => {
        // What a tool feature finds out (the endpoint, or that there is none) changes the definition too.
        this.stopWatchingDiscovery?.();
        this.stopWatchingDiscovery = connection?.tools.client.onDidDiscover(() => this.changeEmitter.fire());
        this.changeEmitter.fire();
      }),
    );
    this.register(session.onDidRenewToken(() => this.changeEmitter.fire()));
  }

  /** Eager and silent: no request, no prompt. An instance known to lack a tool server offers none. */
  provideMcpServerDefinitions(): vscode.McpHttpServerDefinition[] {
    const connection = this.session.current;
    if (!connection) return [];
    // The endpoint a tool feature already found, else the one with every tool.
    const found = connection.tools.client.discovered;
    if (found === 'missing') return [];
    const url = found?.url ?? `${connection.instanceUrl}${TOOL_SERVER_PATHS[0]}`;
    const label =
      connection.kind === 'local' ? vscode.l10n.t('Deep Search (local engine)') : vscode.l10n.t('Deep Search ({0})', new URL(connection.instanceUrl).host);
    // A renewed OAuth token is a new version: VS Code resolves the server again and gets the new header.
    const version = sha256Hex(`${connection.instanceUrl}\n${connection.accountDigest}\n${this.session.tokenGeneration}`).slice(0, 16);
    return [new vscode.McpHttpServerDefinition(label, vscode.Uri.parse(url), {}, version)];
  }

  /** Adds the token, read from SecretStorage now; refuses a definition that is not the current one. */
  async resolveMcpServerDefinition(server: vscode.McpHttpServerDefinition): Promise<vscode.McpHttpServerDefinition | undefined> {
    const connection = this.session.current;
    const authorization = await this.session.currentAuthorization();
    if (!connection || !authorization) {
      throw new Error(vscode.l10n.t('Sign in to Deep Search (or use the local engine) to give the agent its code tools.'));
    }
    if (new URL(server.uri.toString(true)).origin !== new URL(connection.instanceUrl).origin) {
      throw new Error(vscode.l10n.t('This Deep Search server belongs to an instance you are no longer signed in to: refresh the MCP servers.'));
    }
    server.headers = { ...server.headers, Authorization: authorization };
    return server;
  }
}
