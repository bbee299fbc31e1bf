import * as assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { signIn } from '../../src/vscode/auth/signIn';
import { eventually, extensionApi, hostTestOptions, signInTo } from './extensionApi';

/** Every file under `dir` whose bytes contain `needle`. */
async function filesContaining(dir: string, needle: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const bytes = await readFile(file).catch(() => undefined);
    if (bytes?.includes(needle)) found.push(file);
  }
  return found;
}

describe('sign-in', () => {
  it('refuses a token the instance rejects, saying so, and stores nothing', async () => {
    const api = await extensionApi();
    const { engineUrl } = hostTestOptions();
    await api.session.signOut();
    await assert.rejects(signIn(api.signIn, { instanceUrl: engineUrl, token: 'dse_wrong' }), /rejected the access token/);
    const viaCommand = await vscode.commands.executeCommand('deepSearch.signIn', { instanceUrl: engineUrl, token: 'dse_wrong' });
    assert.equal(viaCommand, undefined);
    assert.equal(api.session.current, undefined);
    assert.equal(await api.session.currentToken(), undefined);
  });

  it('says when the instance has no conversation API (too old a server)', async () => {
    const api = await extensionApi();
    const { engineUrl, token } = hostTestOptions();
    // A path under the engine that serves nothing plays an instance without the API (404).
    await assert.rejects(signIn(api.signIn, { instanceUrl: `${engineUrl}/old`, token }), /version 6\.7 or later/);
  });

  it('checks the token, then keeps it in SecretStorage and nowhere else', async () => {
    const { engineUrl, token, runDir } = hostTestOptions();
    const api = await signInTo(engineUrl);
    assert.equal(api.session.current?.instanceUrl, engineUrl);
    assert.equal(await api.session.currentToken(), token, 'the token is in SecretStorage');
    assert.equal(vscode.workspace.getConfiguration('deepSearch').get('instanceUrl'), engineUrl);
    const settings = JSON.stringify(vscode.workspace.getConfiguration('deepSearch'));
    assert.ok(!settings.includes(token), 'the token is in the settings');
    // The run folder holds VS Code's user data, global state, logs, home and temp files; the
    // options file that hands the token to these tests is the one expected hit.
    const hits = (await filesContaining(runDir, token)).filter((file) => file !== process.env.DEEP_SEARCH_TEST_OPTIONS);
    assert.deepEqual(hits, []);
  });

  it('connects once per sign-in, though the sign-in writes the instance URL setting, and follows an edit of that setting', async () => {
    const api = await extensionApi();
    const { engineUrl, token } = hostTestOptions();
    await api.session.signOut();
    const seen: Array<string | undefined> = [];
    const watching = api.session.onDidChange((connection) => seen.push(connection?.instanceUrl));
    const setting = (value: string) => vscode.workspace.getConfiguration('deepSearch').update('instanceUrl', value, vscode.ConfigurationTarget.Global);
    try {
      // So that the sign-in's write of the URL is a change VS Code announces.
      await setting('https://nothing-stored.example.com');
      assert.ok(await signIn(api.signIn, { instanceUrl: engineUrl, token }));
      assert.equal(vscode.workspace.getConfiguration('deepSearch').get('instanceUrl'), engineUrl);
      // An instance nothing is stored for: the session lets the connection go. Settings changes are
      // handled in order, so once this one is, the sign-in's own write was handled before it.
      await setting('https://nothing-stored.example.com');
      await eventually(() => (seen.at(-1) === undefined && seen.length > 1 ? true : undefined), 'the edited setting to end the connection');
      assert.deepEqual(seen, [engineUrl, undefined], 'one connection for the sign-in, none for the URL it wrote');
      // Back to the engine, whose token is still stored: connected again, with no sign-in.
      await setting(`${engineUrl}/`);
      await eventually(() => api.session.current, 'the edited setting to connect');
      assert.deepEqual(seen, [engineUrl, undefined, engineUrl]);
      assert.equal(api.session.current?.sameAccount, false);
    } finally {
      watching.dispose();
    }
  });
});
