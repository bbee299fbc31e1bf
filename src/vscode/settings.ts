/**
 * The extension's settings and the VS Code settings it honours (proxy), read in one place.
 */
import * as vscode from 'vscode';
import { DEFAULT_POLL_INTERVALS } from '../conversations/poller';
import { parseInstanceUrl, type InstanceUrl } from '../api/instance';

export const SECTION = 'deepSearch';

export interface NetworkSettings {
  proxyUrl: string;
  strictSSL: boolean;
  caCertificatesPath: string;
}

export interface PollSettings {
  watchedIntervalMs: number;
  hiddenIntervalMs: number;
}

/** The instance URL setting as the user wrote it (the sign-in's first guess). */
export function configuredInstanceUrl(): string {
  return vscode.workspace.getConfiguration(SECTION).get<string>('instanceUrl', '').trim();
}

/** The instance the setting names, parsed (undefined when it is empty); throws, saying what to write, when it is no web address. */
export function configuredInstance(): InstanceUrl | undefined {
  const written = configuredInstanceUrl();
  return written ? parseInstanceUrl(written) : undefined;
}

export async function setConfiguredInstanceUrl(url: InstanceUrl): Promise<void> {
  await vscode.workspace.getConfiguration(SECTION).update('instanceUrl', url, vscode.ConfigurationTarget.Global);
}

export interface OAuthSettings {
  /** The public OAuth client an administrator created for the extension ('' = register one where allowed). */
  clientId: string;
  /** How the browser sign-in comes back to VS Code. */
  redirect: 'auto' | 'uriHandler' | 'loopback';
}

export function oauthSettings(): OAuthSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  const redirect = config.get<string>('oauth.redirect', 'auto');
  return {
    clientId: config.get<string>('oauth.clientId', '').trim(),
    redirect: redirect === 'uriHandler' || redirect === 'loopback' ? redirect : 'auto',
  };
}

export function networkSettings(): NetworkSettings {
  const http = vscode.workspace.getConfiguration('http');
  return {
    proxyUrl: http.get<string>('proxy', '').trim(),
    strictSSL: http.get<boolean>('proxyStrictSSL', true),
    caCertificatesPath: vscode.workspace.getConfiguration(SECTION).get<string>('caCertificatesPath', '').trim(),
  };
}

export function pollSettings(): PollSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  return {
    watchedIntervalMs: config.get<number>('pollInterval.visible', DEFAULT_POLL_INTERVALS.watchedIntervalMs),
    hiddenIntervalMs: config.get<number>('pollInterval.hidden', DEFAULT_POLL_INTERVALS.hiddenIntervalMs),
  };
}

/** Whether a configuration change touches anything the HTTP client is built from. */
/** Which of the settings a connection is built from changed: the network's (proxy, certificates) and the instance URL. */
export function connectionSettingsChange(event: vscode.ConfigurationChangeEvent): { network: boolean; instanceUrl: boolean } {
  return {
    network: ['http.proxy', 'http.proxyStrictSSL', `${SECTION}.caCertificatesPath`].some((key) => event.affectsConfiguration(key)),
    instanceUrl: event.affectsConfiguration(`${SECTION}.instanceUrl`),
  };
}
