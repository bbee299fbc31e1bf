/**
 * The network of a Node extension host (desktop, remote, code-server): the client is dist/network.js,
 * loaded on the first connection, and every request goes through undici with VS Code's proxy
 * settings and the CA certificates of `deepSearch.caCertificatesPath`.
 */
import { readFile } from 'node:fs/promises';
import * as vscode from 'vscode';
import { networkSettings } from '../settings';
import type { NetworkAccess } from './networkBundle';

type NodeNetworkBundle = typeof import('../../api/network');

/** Loads dist/network.js (esbuild turns this `import()` into a lazy require of that file). */
async function loadNetworkBundle(): Promise<NodeNetworkBundle> {
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

export const nodeNetwork: NetworkAccess = {
  load: loadNetworkBundle,
  settingsKey: async () => JSON.stringify(await dispatcherOptions()),
  createTransport: async () => (await loadNetworkBundle()).createUndiciTransport(await dispatcherOptions()),
  listenOnLoopback: async () => (await loadNetworkBundle()).LoopbackRedirect.listen(),
};
