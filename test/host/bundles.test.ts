import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { EXTENSION_ID, extensionApi, signInTo } from './extensionApi';

/** The extension's bundles that this extension host has loaded so far, e.g. `dist/extension.js`. */
function loadedBundles(): string[] {
  const root = vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath;
  const dist = path.join(root, 'dist') + path.sep;
  return Object.keys(require.cache).filter((file) => file.startsWith(dist)).map((file) => path.relative(root, file).split(path.sep).join('/')).sort();
}

// First of the suites: nothing has signed in yet in this window.
describe('bundles loaded on first use', () => {
  it('activates with the activation bundle alone, loads the network bundle on connecting and the MCP SDK on the first tool call', async () => {
    const api = await extensionApi();
    await api.session.whenRestored();
    assert.equal(api.session.current, undefined, 'a fresh window is not signed in');
    assert.deepEqual(loadedBundles(), ['dist/extension.js']);

    await signInTo();
    assert.deepEqual(loadedBundles(), ['dist/extension.js', 'dist/network.js']);

    await api.session.current!.tools.listRepositories('');
    assert.deepEqual(loadedBundles(), ['dist/extension.js', 'dist/mcp.js', 'dist/network.js']);
  });
});
