/**
 * The network of VS Code for the Web's extension host (a web worker): the client is part of the
 * web bundle and sends with the browser's fetch. The browser's own proxy and certificates apply;
 * there is no loopback listener (a browser sign-in comes back through VS Code's URI handler).
 */
import * as vscode from 'vscode';
import * as connections from '../../api/connections';
import { createFetchTransport } from '../../api/fetchTransport';
import type { NetworkAccess } from './networkBundle';

export const webNetwork: NetworkAccess = {
  load: async () => {
    connections.useTranslations(vscode.l10n.bundle);
    return connections;
  },
  settingsKey: async () => 'fetch',
  createTransport: async () => createFetchTransport(),
};
