import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { EXTENSION_ID, extensionApi, signInTo } from './extensionApi';

/** The extension's bundles that this extension host has loaded so far, e.g. `dist/extension.js`. */
function loadedBundles(): string[] {
  const root = vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath;
  const dist = path.join(root, 'dist') + path.sep;
  return Object.keys(require.cache)
    .filter((file) => file.startsWith(dist))
    .map((file) => path.relative(root, file).split(path.sep).join('/'))
    .sort();
}

// First of the suites: nothing has signed in yet in this window.
describe('bundles loaded on first use', () => {
  it('activates with the activation bundle alone, and loads the network bundle and the MCP client only once it connects', async () => {
    const api = await extensionApi();
    await api.session.whenRestored();
    assert.equal(api.session.current, undefined, 'a fresh window is not signed in');
    assert.deepEqual(loadedBundles(), ['dist/extension.js']);

    // Signing in checks both interfaces, so the tool server is looked for (with the MCP client) then.
    await signInTo();
    assert.deepEqual(loadedBundles(), ['dist/extension.js', 'dist/mcp.js', 'dist/network.js']);
    assert.ok((await api.session.current!.tools.listRepositories('')).repositories.length > 0);
  });
});
