import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ConversationStore } from '../../src/conversations/conversationStore';
import { latestQuestion } from '../../src/model/conversation';
import { ConversationTree } from '../../src/vscode/conversations/conversationTree';
import { eventually, hostTestOptions, signInTo as signInToEngine } from './extensionApi';

// Against the slow engine: a question stays running long enough to be seen running and cancelled.
const signInTo = () => signInToEngine(hostTestOptions().slowEngineUrl);

describe('conversations', () => {
  before(async () => {
    await signInTo();
  });

  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('asks, shows the question processing in the tree, then the answer in the store and the panel', async () => {
    const api = await signInTo();
    const id = await vscode.commands.executeCommand<number>('deepSearch.ask', 'Where is parseConfig defined?');
    assert.equal(typeof id, 'number');
    await api.tree.reload();
    const processing = api.tree.getTreeItem(api.tree.nodeFor(id));
    assert.match(String(processing.contextValue), /\bprocessing\b/);
    assert.equal((processing.iconPath as vscode.ThemeIcon).id, 'loading~spin');
    assert.ok(
      api.tree.getChildren().some((node) => node.kind === 'conversation' && node.id === id),
      'listed in the tree',
    );
    assert.ok(api.panels.isVisible(id), 'the panel opened at once');
    // From here the list stays as it is: each poll that changes the question repaints its row only.
    const repaints: unknown[] = [];
    const watching = api.tree.onDidChangeTreeData((nodes) => repaints.push(nodes));

    const answered = await eventually(
      () => {
        const conversation = api.store.get(id);
        return conversation && latestQuestion(conversation)?.state === 'completed' ? conversation : undefined;
      },
      'the answer',
      60_000,
    );
    assert.match(latestQuestion(answered)!.answer ?? '', /src\/config\.ts/);
    const shown = await eventually(() => {
      const sent = api.panels.shownConversation(id);
      return sent && latestQuestion(sent)?.state === 'completed' ? sent : undefined;
    }, 'the panel to show the answer');
    assert.equal(latestQuestion(shown)!.answer, latestQuestion(answered)!.answer);
    const done = api.tree.getTreeItem(api.tree.nodeFor(id));
    assert.match(String(done.contextValue), /\bcompleted\b/);
    watching.dispose();
    assert.ok(repaints.length > 0, 'the row was repainted as the question progressed');
    assert.deepEqual(
      repaints.filter((nodes) => !(Array.isArray(nodes) && nodes.every((node) => node === api.tree.nodeFor(id)))),
      [],
      'only its row',
    );
  });

  it('asks about a selection with its code, path, line range and repository', async () => {
    const api = await signInTo();
    const { workspace: dir, repoName: name } = hostTestOptions();
    const document = await vscode.workspace.openTextDocument(path.join(dir, 'src', 'config.ts'));
    const editor = await vscode.window.showTextDocument(document);
    editor.selection = new vscode.Selection(10, 0, 14, 1);
    const id = await vscode.commands.executeCommand<number>('deepSearch.askAboutSelection', 'What does this validate?');
    const text = api.store.get(id)!.questions[0].text;
    assert.match(text, /^What does this validate\?/);
    assert.ok(text.includes('export function parseConfig(text: string): AppConfig {'), text);
    assert.ok(text.includes('```typescript\n'), 'fenced with the language');
    assert.ok(text.includes('`src/config.ts` (lines 11-15)'), text);
    assert.ok(text.includes(`repository \`${name}\``), text);
    await api.store.cancel(id, api.store.get(id)!.questions[0].id).catch(() => undefined);
  });

  it('lets the newest conversations go while paging on, and shows a row that brings them back', async () => {
    const api = await signInTo();
    // A window of one conversation, so that two pages already move it.
    const store = new ConversationStore({ pageSize: 1, maxListed: 1 });
    store.setClient(api.session.current!.client);
    const tree = new ConversationTree(store);
    try {
      await store.refreshList();
      const newest = store.listed[0].id;
      assert.ok(store.hasMore, 'the engine holds two conversations or more by now');
      await store.loadMore();
      const [first, second] = tree.getChildren();
      assert.equal(first?.kind, 'showNewest');
      assert.ok(second?.kind === 'conversation' && second.id !== newest, 'the next conversation replaced the newest');
      assert.equal(tree.getTreeItem(first).command?.command, 'deepSearch.refresh');

      await tree.reload();
      assert.deepEqual(tree.getChildren()[0], tree.nodeFor(newest), 'back at the newest, without the row');
    } finally {
      tree.dispose();
      store.dispose();
    }
  });

  it('cancels a running question from the tree', async () => {
    const api = await signInTo();
    const id = await vscode.commands.executeCommand<number>('deepSearch.ask', 'How are retries configured across the app and library?');
    await vscode.commands.executeCommand('deepSearch.cancelQuestion', api.tree.nodeFor(id));
    const state = latestQuestion(api.store.get(id)!)?.state;
    assert.equal(state, 'canceled');
    assert.doesNotMatch(String(api.tree.getTreeItem(api.tree.nodeFor(id)).contextValue), /processing/);
  });

  it('deletes a conversation from the tree after the modal confirmation', async () => {
    const api = await signInTo();
    const id = await vscode.commands.executeCommand<number>('deepSearch.ask', 'What does startServer log?');
    const original = vscode.window.showWarningMessage;
    let asked = '';
    // Stands in for the user's click on "Delete" in the modal; the UI tests click the real one.
    (vscode.window as { showWarningMessage: unknown }).showWarningMessage = async (message: string, _options: unknown, ...items: string[]) => {
      asked = message;
      return items.find((item) => item === 'Delete');
    };
    try {
      await vscode.commands.executeCommand('deepSearch.deleteConversation', api.tree.nodeFor(id));
    } finally {
      (vscode.window as { showWarningMessage: unknown }).showWarningMessage = original;
    }
    assert.match(asked, /Delete the conversation/);
    assert.equal(api.store.get(id), undefined);
    assert.ok(!api.tree.getChildren().some((node) => node.kind === 'conversation' && node.id === id));
    assert.ok(!api.panels.isVisible(id), 'its panel closed');
    await assert.rejects(api.session.current!.client.getConversation(id), (error: Error & { kind?: string }) => error.kind === 'notFound');
  });

  it('exports a conversation as a Markdown document and copies its share link after the warning', async () => {
    const api = await signInTo();
    const id = await vscode.commands.executeCommand<number>('deepSearch.ask', 'What does loadConfig return?');
    await vscode.commands.executeCommand('deepSearch.exportMarkdown', api.tree.nodeFor(id));
    const exported = await eventually(() => {
      const editor = vscode.window.activeTextEditor;
      return editor?.document.languageId === 'markdown' ? editor.document.getText() : undefined;
    }, 'the exported document');
    assert.match(exported, /^# What does loadConfig return\?/);
    assert.ok(exported.includes('> What does loadConfig return?'));

    const original = vscode.window.showWarningMessage;
    let warned = '';
    // Stands in for the user's click on "Copy Link" in the modal warning.
    (vscode.window as { showWarningMessage: unknown }).showWarningMessage = async (message: string, options: { detail?: string }, ...items: string[]) => {
      warned = `${message} ${options.detail ?? ''}`;
      return items[0];
    };
    try {
      await vscode.env.clipboard.writeText('');
      await vscode.commands.executeCommand('deepSearch.copyShareLink', api.tree.nodeFor(id));
    } finally {
      (vscode.window as { showWarningMessage: unknown }).showWarningMessage = original;
    }
    assert.match(warned, /do not check repository permissions/);
    // The engine plays a 7.x server: the extension speaks its new API, which has no read tokens, and
    // asks the legacy API for this one — read here the same way, as the owner.
    const { slowEngineUrl, token } = hostTestOptions();
    const legacy = await fetch(`${slowEngineUrl}/.api/deepsearch/v1/${id}`, {
      headers: { Authorization: `token ${token}`, 'X-Requested-With': 'host-tests 1.0.0' },
    });
    const { read_token: readToken } = (await legacy.json()) as { read_token: string };
    assert.match(readToken, /^[0-9a-f-]{36}$/);
    assert.equal(await vscode.env.clipboard.readText(), `${slowEngineUrl}/deepsearch/${readToken}`);
    await api.store.cancel(id, api.store.get(id)!.questions[0].id);
  });

  it("opens another user's conversation from its share link, read-only", async () => {
    const api = await signInTo();
    const { slowEngineUrl, otherToken } = hostTestOptions();
    const response = await fetch(`${slowEngineUrl}/.api/deepsearch/v1/`, {
      method: 'POST',
      headers: { Authorization: `token ${otherToken}`, 'X-Requested-With': 'host-tests 1', 'Content-Type': 'application/json' },
      body: JSON.stringify({ question: 'Where is ConfigError thrown?' }),
    });
    const theirs = (await response.json()) as { id: number; share_url: string };
    const id = await vscode.commands.executeCommand<number>('deepSearch.openSharedConversation', theirs.share_url);
    assert.equal(id, theirs.id);
    assert.ok(api.panels.isVisible(id), 'its panel opened');
    assert.equal(api.store.isReadOnly(id), true);
    const shown = await eventually(() => api.panels.shownConversation(id), 'the panel to show it');
    assert.equal(shown.questions[0]?.text, 'Where is ConfigError thrown?');
    assert.ok(!api.store.listed.some((conversation) => conversation.id === id), "not listed as the user's own");
  });

  it('opens a source link on the workspace copy of the repository at the right lines', async () => {
    const api = await signInTo();
    const { workspace: dir, repoName: name } = hostTestOptions();
    await api.links.open(`${hostTestOptions().slowEngineUrl}/${name}/-/blob/src/config.ts?L13-17`);
    const editor = await eventually(() => vscode.window.activeTextEditor, 'an editor');
    assert.equal(editor.document.uri.fsPath, path.join(dir, 'src', 'config.ts'));
    assert.equal(editor.selection.start.line, 12);
    assert.equal(editor.selection.end.line, 16);
    // Relative links (as in sources) work the same way.
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await api.links.open(`/${name}/-/blob/src/server.ts?L3`);
    const second = await eventually(() => vscode.window.activeTextEditor, 'an editor');
    assert.equal(second.document.uri.fsPath, path.join(dir, 'src', 'server.ts'));
    assert.equal(second.selection.start.line, 2);
  });
});
