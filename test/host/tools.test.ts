/**
 * The tool server in the real editor: remote documents, navigation across two repositories (the
 * workspace's app and a billing repository that is not checked out), and the MCP server definition
 * VS Code's agent gets. All against the engine on 127.0.0.1.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as vscode from 'vscode';
import { BILLING_FILES, PRICE_ROUNDED } from './billingRepo';
import { eventually, hostTestOptions, signInTo } from './extensionApi';

const REMOTE = 'deepsearch-remote';

async function closeEditors(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
}

/** Waits until the active editor shows `matches` and returns it. */
function activeEditor(matches: (uri: vscode.Uri) => boolean, what: string): Promise<vscode.TextEditor> {
  return eventually(() => {
    const editor = vscode.window.activeTextEditor;
    return editor && matches(editor.document.uri) ? editor : undefined;
  }, what);
}

/** Accepts the first item of every quick pick the running command shows, until it settles. */
async function acceptingFirstItems<T>(running: Thenable<T>): Promise<T> {
  let settled = false;
  const result = Promise.resolve(running).finally(() => (settled = true));
  for (let tries = 0; tries < 60 && !settled; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (!settled) await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
  }
  return result;
}

describe('tools in the editor', () => {
  before(async () => {
    await signInTo();
  });
  afterEach(closeEditors);

  it('opens a link into a repository that is not checked out as a read-only remote document at its lines', async () => {
    const api = await signInTo();
    const { engineUrl, billingRepoName } = hostTestOptions();
    await api.links.open(`${engineUrl}/${billingRepoName}/-/blob/src/invoice.ts?L3-4`);
    const editor = await activeEditor((uri) => uri.scheme === REMOTE, 'the remote document');
    assert.equal(editor.document.uri.path, `/${billingRepoName}@HEAD/src/invoice.ts`);
    assert.equal(editor.document.getText(), BILLING_FILES['src/invoice.ts']);
    assert.deepEqual([editor.selection.start.line, editor.selection.end.line], [2, 3]);
    await assert.rejects(
      Promise.resolve(vscode.workspace.fs.writeFile(editor.document.uri, new TextEncoder().encode('x'))),
      (error: unknown) => error instanceof vscode.FileSystemError,
    );
    const listing = await vscode.workspace.fs.readDirectory(vscode.Uri.from({ scheme: REMOTE, path: `/${billingRepoName}@HEAD/src` }));
    assert.deepEqual(listing.sort(), [
      ['invoice.ts', vscode.FileType.File],
      ['price.ts', vscode.FileType.File],
    ]);
  });

  it('goes from a local file to the definition in the other repository, and finds references in both', async () => {
    const { workspace, billingRepoName } = hostTestOptions();
    const local = await vscode.window.showTextDocument(vscode.Uri.file(path.join(workspace, 'src', 'checkout.ts')));
    const use = new vscode.Position(3, local.document.lineAt(3).text.indexOf('formatPrice') + 2);
    local.selection = new vscode.Selection(use, use);

    const definitions = await vscode.commands.executeCommand<vscode.Location[]>('deepSearch.goToDefinitionInAllRepositories');
    assert.equal(definitions.length, 1, JSON.stringify(definitions));
    const editor = await activeEditor((uri) => uri.scheme === REMOTE, 'the definition');
    assert.equal(editor.document.uri.path, `/${billingRepoName}@HEAD/src/price.ts`);
    assert.equal(editor.selection.start.line, 2);
    assert.equal(editor.document.getText(editor.selection), 'formatPrice');

    editor.selection = new vscode.Selection(editor.selection.start, editor.selection.start);
    const references = await vscode.commands.executeCommand<vscode.Location[]>('deepSearch.findReferencesInAllRepositories');
    const where = references.map((location) => `${location.uri.scheme}:${path.basename(location.uri.path)}:${location.range.start.line + 1}`).sort();
    assert.deepEqual(where, ['deepsearch-remote:invoice.ts:1', 'deepsearch-remote:invoice.ts:4', 'file:checkout.ts:1', 'file:checkout.ts:4']);
  });

  it('answers F12 and Shift+F12 inside remote documents through the providers', async () => {
    const { billingRepoName } = hostTestOptions();
    const uri = vscode.Uri.from({ scheme: REMOTE, path: `/${billingRepoName}@HEAD/src/invoice.ts` });
    const document = await vscode.workspace.openTextDocument(uri);
    const at = new vscode.Position(3, document.lineAt(3).text.indexOf('formatPrice') + 1);
    const definitions = await vscode.commands.executeCommand<(vscode.Location | vscode.LocationLink)[]>('vscode.executeDefinitionProvider', uri, at);
    const targets = definitions.map((found) => ('targetUri' in found ? found.targetUri : found.uri).path);
    // TypeScript's own provider may add the import in the same file; ours adds the other file.
    assert.ok(targets.includes(`/${billingRepoName}@HEAD/src/price.ts`), targets.join(', '));
    const references = await vscode.commands.executeCommand<vscode.Location[]>('vscode.executeReferenceProvider', uri, at);
    assert.ok(
      references.some((location) => location.uri.scheme === 'file' && location.uri.path.endsWith('/src/checkout.ts')),
      JSON.stringify(references),
    );
  });

  it('compares two revisions in the diff editor, on remote documents of both', async () => {
    const { billingRepoName } = hostTestOptions();
    const comparison = await vscode.commands.executeCommand<{ files: { path: string; added: number; deleted: number }[] }>('deepSearch.compareRevisions', {
      repo: billingRepoName,
      base: 'HEAD~1',
      head: 'HEAD',
    });
    assert.deepEqual(comparison.files, [{ path: 'src/price.ts', added: 1, deleted: 1 }]);
    const tab = await eventually(() => {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      return input instanceof vscode.TabInputTextDiff ? input : undefined;
    }, 'the diff editor');
    assert.equal(tab.original.path, `/${billingRepoName}@HEAD~1/src/price.ts`);
    assert.equal(tab.modified.path, `/${billingRepoName}@HEAD/src/price.ts`);
    assert.equal((await vscode.workspace.openTextDocument(tab.original)).getText(), BILLING_FILES['src/price.ts']);
    assert.equal((await vscode.workspace.openTextDocument(tab.modified)).getText(), PRICE_ROUNDED);
  });

  it('searches commits and diffs from one query line; the picked result opens its change in the diff editor', async () => {
    const { billingRepoName } = hostTestOptions();
    const diffTab = (): Promise<vscode.TabInputTextDiff> =>
      eventually(() => {
        const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
        return input instanceof vscode.TabInputTextDiff ? input : undefined;
      }, 'the diff editor');
    const pickFirst = <T>(command: string, argument: string): Promise<T> => acceptingFirstItems(vscode.commands.executeCommand<T>(command, argument));

    const commits = await pickFirst<{ title: string; author: string }[]>('deepSearch.searchCommits', `rounding OR round repo:${billingRepoName} author:test`);
    assert.deepEqual(
      commits.map((commit) => commit.title),
      ['Round prices to whole cents'],
    );
    const commitTab = await diffTab();
    assert.match(commitTab.original.path, new RegExp(`^/${billingRepoName}@[0-9a-f]{40}~1/src/price\\.ts$`));
    assert.equal((await vscode.workspace.openTextDocument(commitTab.modified)).getText(), PRICE_ROUNDED);
    await closeEditors();

    const diffs = await pickFirst<{ commit: string }[]>('deepSearch.searchDiffs', `Math.round is:added repo:${billingRepoName}`);
    assert.equal(diffs.length, 1);
    const hunkTab = await diffTab();
    assert.equal(hunkTab.modified.path, `/${billingRepoName}@${diffs[0].commit}/src/price.ts`);
  });

  it('gives VS Code an MCP server without the token, resolves it with the header, and the agent can list the tools', async () => {
    const api = await signInTo();
    const { engineUrl, slowEngineUrl, token } = hostTestOptions();
    const [listed] = await Promise.resolve(api.mcpServers.provideMcpServerDefinitions());
    assert.ok(listed, 'one server definition');
    assert.equal(listed.uri.toString(true), `${engineUrl}/.api/mcp/all`);
    assert.deepEqual(listed.headers, {});
    assert.ok(!JSON.stringify(listed).includes(token), 'no token before resolving');
    const resolved = await api.mcpServers.resolveMcpServerDefinition(listed);
    assert.ok(resolved);
    assert.equal(resolved.headers['Authorization'], `token ${token}`);

    const client = new Client({ name: 'host-test-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(resolved.uri.toString(true)), { requestInit: { headers: resolved.headers } }));
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.some((tool) => tool.name === 'keyword_search'));
    } finally {
      await client.close();
    }

    const changed = new Promise<void>((resolve) => api.mcpServers.onDidChangeMcpServerDefinitions(resolve));
    await signInTo(slowEngineUrl);
    await changed;
    const [other] = await Promise.resolve(api.mcpServers.provideMcpServerDefinitions());
    assert.equal(other?.uri.toString(true), `${slowEngineUrl}/.api/mcp/all`);
    assert.notEqual(other?.version, listed.version);
    await signInTo(engineUrl);
  });
});
