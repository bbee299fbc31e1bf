/**
 * How the extension reaches the client code (src/api/connections.ts) and what carries its
 * requests, whichever host it runs in: a `NetworkAccess`, given by the entry point. On Node
 * (nodeNetwork.ts) the client is a bundle loaded on the first connection (dist/network.js) and
 * sends through undici with the proxy and certificate settings; on the web (webNetwork.ts) it is
 * part of the one bundle and sends with fetch. The one transport for OAuth endpoints sits here.
 * Other modules import the client's types only.
 */
import * as vscode from 'vscode';
import type { HttpTransport } from '../../api/http';
import type { AuthorizationServerClient } from '../../api/oauth/authorizationServer';
import type { InstanceUrl } from '../../api/instance';
import type { LoopbackRedirect } from '../../api/oauth/loopbackRedirect';
import type { Transport } from '../../api/transport';

export type NetworkBundle = typeof import('../../api/connections');

export interface NetworkAccess {
  /** The client code (on Node a bundle of its own, loaded on the first call). */
  load(): Promise<NetworkBundle>;
  /** What transports are built from now (proxy, certificates), as a key: a change rebuilds the connection. */
  settingsKey(): Promise<string>;
  /** A transport built from the current settings; its owner closes it. */
  createTransport(): Promise<Transport>;
  /** A listener on 127.0.0.1 for a browser sign-in's redirect; absent where there is none (the web). */
  listenOnLoopback?(): Promise<LoopbackRedirect>;
}

/** Instances' OAuth authorization servers, as the session and the sign-in look them up. */
export type OAuthServers = Pick<OAuthTransport, 'authorizationServer'>;

/** Instances' OAuth authorization servers, reached through one transport that follows the settings. */
export class OAuthTransport implements vscode.Disposable {
  private current: { key: string; http: HttpTransport; transport: Transport } | undefined;

  constructor(private readonly network: NetworkAccess) {}

  /** The instance's authorization server (undefined when it has none). */
  async authorizationServer(instanceUrl: InstanceUrl, signal?: AbortSignal): Promise<AuthorizationServerClient | undefined> {
    const bundle = await this.network.load();
    return bundle.AuthorizationServerClient.discover(await this.http(bundle), instanceUrl, signal);
  }

  /** Rebuilt when the proxy or certificate settings change (the old one closed). */
  private async http(bundle: NetworkBundle): Promise<HttpTransport> {
    const key = await this.network.settingsKey();
    if (this.current?.key !== key) {
      const previous = this.current;
      const transport = await this.network.createTransport();
      this.current = { key, http: bundle.oauthHttp(transport), transport };
      void previous?.transport.close().catch(() => undefined);
    }
    return this.current.http;
  }

  dispose(): void {
    void this.current?.transport.close().catch(() => undefined);
  }
}
