/**
 * The network bundle (dist/network.js: undici, the HTTP and tool clients, OAuth) is loaded on the
 * first connection, not at activation; this module is how the extension reaches it, with the proxy
 * and certificate settings every dispatcher is built from, and the one transport for OAuth
 * endpoints. Its other modules import the bundle's types only.
 */
import { readFile } from 'node:fs/promises';
import type { Dispatcher } from 'undici';
import * as vscode from 'vscode';
import type { HttpTransport } from '../../api/http';
import type { AuthorizationServerClient } from '../../api/oauth/authorizationServer';
import type { InstanceUrl } from '../../api/instance';
import { networkSettings } from '../settings';

export type NetworkBundle = typeof import('../../api/network');

/** How the bundle is reached (`loadNetworkBundle`), handed to whoever needs it. */
export type NetworkLoader = () => Promise<NetworkBundle>;

/** Instances' OAuth authorization servers, as the session and the sign-in look them up. */
export type OAuthServers = Pick<OAuthTransport, 'authorizationServer'>;

/** Loads dist/network.js (esbuild turns this `import()` into a lazy require of that file). */
export async function loadNetworkBundle(): Promise<NetworkBundle> {
  const network = await import('../../api/network');
  // The bundle has its own copy of @vscode/l10n: its messages need VS Code's translations too.
  network.useTranslations(vscode.l10n.bundle);
  return network;
}

export interface NetworkOptions {
  proxyUrl: string;
  strictSSL: boolean;
  caCertificates: string[];
}

/** The proxy and certificate settings as the bundle's dispatchers take them (the CA file read now). */
export async function dispatcherOptions(): Promise<NetworkOptions> {
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

/** Instances' OAuth authorization servers, reached through one transport that follows the proxy settings. */
export class OAuthTransport implements vscode.Disposable {
  private current: { key: string; transport: HttpTransport; dispatcher: Dispatcher } | undefined;

  /** The instance's authorization server (undefined when it has none). */
  async authorizationServer(instanceUrl: InstanceUrl, signal?: AbortSignal): Promise<AuthorizationServerClient | undefined> {
    const network = await loadNetworkBundle();
    return network.AuthorizationServerClient.discover(await this.transport(), instanceUrl, signal);
  }

  /** Rebuilt when the proxy or certificate settings change (the old one closed). */
  private async transport(): Promise<HttpTransport> {
    const options = await dispatcherOptions();
    const key = JSON.stringify(options);
    if (this.current?.key !== key) {
      const previous = this.current;
      const { transport, dispatcher } = (await loadNetworkBundle()).oauthTransport(options);
      this.current = { key, transport, dispatcher };
      void previous?.dispatcher.close().catch(() => undefined);
    }
    return this.current.transport;
  }

  dispose(): void {
    void this.current?.dispatcher.close().catch(() => undefined);
  }
}
