import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { latestQuestion } from '../../src/model/conversation';
import { ASK_TOOL, READ_TOOL } from '../../src/vscode/chat/agentTools';
import { OPEN_LINK_COMMAND, type TurnMetadata } from '../../src/vscode/chat/chatParticipant';
import { eventually, hostTestOptions, signInTo } from './extensionApi';

/** What the participant wrote to its response stream, in order. */
interface Recorded {
  kind: 'markdown' | 'progress' | 'reference' | 'anchor' | 'button' | 'other';
  text: string;
  value?: unknown;
}

/**
 * A response stream that records what it is given, for the cases the Chat view cannot easily set
 * up (cancellation mid-answer, another instance's thread, references): the participant's handler is
 * driven directly, with the request a chat turn would carry. The view itself, with a scripted
 * model provider, is tested in test/ui/chat.ui.test.ts.
 */
function recordingStream(): vscode.ChatResponseStream & { recorded: Recorded[] } {
  const recorded: Recorded[] = [];
  const text = (value: string | vscode.MarkdownString) => (typeof value === 'string' ? value : value.value);
  const stream = {
    recorded,
    markdown: (value: string | vscode.MarkdownString) => void recorded.push({ kind: 'markdown', text: text(value), value }),
    progress: (value: string) => void recorded.push({ kind: 'progress', text: value }),
    reference: (value: unknown) => void recorded.push({ kind: 'reference', text: String(value instanceof vscode.Location ? value.uri : value), value }),
    anchor: (value: unknown, title?: string) => void recorded.push({ kind: 'anchor', text: title ?? '', value }),
    button: (command: vscode.Command) => void recorded.push({ kind: 'button', text: command.title, value: command }),
    filetree: () => void recorded.push({ kind: 'other', text: 'filetree' }),
    push: () => void recorded.push({ kind: 'other', text: 'push' }),
  };
  return stream;
}

function chatRequest(prompt: string, options: { command?: string; references?: vscode.ChatPromptReference[] } = {}): vscode.ChatRequest {
  return {
    prompt,
    command: options.command,
    references: options.references ?? [],
    toolReferences: [],
    toolInvocationToken: undefined,
    model: undefined,
  } as unknown as vscode.ChatRequest;
}

/** A chat thread's history as VS Code passes it: earlier turns' results (their metadata). */
function historyOf(...results: vscode.ChatResult[]): vscode.ChatContext {
  return { history: results.map((result) => ({ result, participant: 'deepSearch.chat', response: [] })) };
}

describe('Deep Search in VS Code Chat and for its agent', function () {
  this.timeout(180_000);

  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('@deepsearch answers with progress, the Markdown, references that open the local checkout, and follow-ups; a follow-up turn adds to the same conversation', async () => {
    const api = await signInTo(hostTestOptions().slowEngineUrl);
    const stream = recordingStream();
    const cancel = new vscode.CancellationTokenSource();
    const result = await api.chat.handle(chatRequest('Where is parseConfig defined?'), historyOf(), stream, cancel.token);
    assert.equal(result.errorDetails, undefined, result.errorDetails?.message);
    const metadata = result.metadata as TurnMetadata;
    const conversation = api.store.get(metadata.conversationId);
    assert.ok(conversation, 'the conversation is in the one store (tree, status bar and panel see it)');
    const progress = stream.recorded.filter((part) => part.kind === 'progress').map((part) => part.text);
    assert.ok(
      progress.some((line) => /Searching .* · \d+\s?s/.test(line)),
      `reasoning with the time taken: ${progress.join(' | ')}`,
    );
    const markdown = stream.recorded
      .filter((part) => part.kind === 'markdown')
      .map((part) => part.text)
      .join('\n');
    assert.match(markdown, new RegExp(`command:${OPEN_LINK_COMMAND.replace('.', '\\.')}\\?`), 'file links go through the link opener');
    assert.match(markdown, /\*\*Sources\*\*/);
    const references = stream.recorded.filter((part) => part.kind === 'reference').map((part) => part.value);
    const local = references.find(
      (value): value is vscode.Location => value instanceof vscode.Location && value.uri.fsPath === path.join(hostTestOptions().workspace, 'src', 'config.ts'),
    );
    assert.ok(local, `a source opens the local checkout: ${references.map(String).join(', ')}`);
    assert.ok(metadata.followups.length > 0, 'suggested follow-ups');

    // The link in the answer opens the local file, as a click on it does.
    const link = /\(command:deepSearch\.openLink\?([^)]+)\)/.exec(markdown)?.[1] ?? '';
    await vscode.commands.executeCommand(OPEN_LINK_COMMAND, ...(JSON.parse(decodeURIComponent(link)) as string[]));
    await eventually(
      () => (vscode.window.activeTextEditor?.document.uri.fsPath.startsWith(hostTestOptions().workspace) ? true : undefined),
      'the linked file to open in the editor',
    );

    const second = recordingStream();
    const followed = await api.chat.handle(chatRequest('And where is it called?'), historyOf(result), second, cancel.token);
    assert.equal((followed.metadata as TurnMetadata).conversationId, metadata.conversationId, 'the same conversation');
    assert.equal(api.store.get(metadata.conversationId)?.questions.length, 2);

    const fresh = await api.chat.handle(
      chatRequest('What does loadConfig return?', { command: 'new' }),
      historyOf(result, followed),
      recordingStream(),
      cancel.token,
    );
    assert.notEqual((fresh.metadata as TurnMetadata).conversationId, metadata.conversationId, '/new starts another conversation');
  });

  it('@deepsearch sends an attached selection the way Ask About Selection does, and /open shows the conversation in the panel', async () => {
    const api = await signInTo(hostTestOptions().slowEngineUrl);
    const document = await vscode.workspace.openTextDocument(path.join(hostTestOptions().workspace, 'src', 'config.ts'));
    const selection = new vscode.Location(document.uri, new vscode.Range(10, 0, 14, 1));
    const prompt = 'What does this validate? #selection';
    const reference: vscode.ChatPromptReference = { id: 'vscode.selection', range: [prompt.indexOf('#selection'), prompt.length], value: selection };
    const result = await api.chat.handle(
      chatRequest(prompt, { references: [reference] }),
      historyOf(),
      recordingStream(),
      new vscode.CancellationTokenSource().token,
    );
    const { conversationId } = result.metadata as TurnMetadata;
    const text = api.store.get(conversationId)!.questions[0].text;
    assert.match(text, /^What does this validate\?\s*\n\nCode from `src\/config\.ts` \(lines 11-15\) in the repository `[^`]+`:/);
    assert.ok(!text.includes('#selection'), 'the reference is replaced by its code');
    const opened = recordingStream();
    await api.chat.handle(chatRequest('', { command: 'open' }), historyOf(result), opened, new vscode.CancellationTokenSource().token);
    assert.ok(api.panels.isVisible(conversationId), 'the panel shows the conversation');
  });

  it('says why a question was not answered and when to ask again, with buttons to ask again and open it', async () => {
    const api = await signInTo(hostTestOptions().slowEngineUrl);
    const stream = recordingStream();
    const result = await api.chat.handle(
      chatRequest(`Where is parseConfig defined? ${hostTestOptions().quotaQuestionMark}`),
      historyOf(),
      stream,
      new vscode.CancellationTokenSource().token,
    );
    assert.match(
      result.errorDetails?.message ?? '',
      /^Your Deep Search quota is used up\. You have used your Deep Search quota for today\. You can ask again in (29|30) minutes \(at .+\)\.$/,
    );
    const buttons = stream.recorded.filter((part) => part.kind === 'button').map((part) => part.value as vscode.Command);
    assert.deepEqual(
      buttons.map((button) => button.title),
      ['Ask Again', 'Open in Deep Search'],
    );
    assert.deepEqual(buttons[0].arguments, [
      { query: `@deepsearch Where is parseConfig defined? ${hostTestOptions().quotaQuestionMark}`, isPartialQuery: true },
    ]);
    await vscode.commands.executeCommand(buttons[1].command, ...((buttons[1].arguments ?? []) as unknown[]));
    assert.ok(api.panels.isVisible((result.metadata as TurnMetadata).conversationId), 'Open in Deep Search shows it in the panel');
  });

  it('says so when the conversation is deleted while it waits for the answer', async () => {
    const api = await signInTo(hostTestOptions().slowEngineUrl);
    const asked = 'Which files import loadConfig? (to be deleted)';
    const handling = api.chat.handle(chatRequest(asked), historyOf(), recordingStream(), new vscode.CancellationTokenSource().token);
    const id = await eventually(() => api.store.listed.find((conversation) => conversation.questions[0]?.text === asked)?.id, 'the question to be asked');
    // What the tree's Delete does once its modal is answered (modals cannot be answered in host tests).
    await api.store.delete(id);
    const result = await handling;
    assert.match(result.errorDetails?.message ?? '', /no longer there: it was deleted, or you signed out/);
  });

  it('offers Sign In and Use Local Engine when signed out, asking nothing', async () => {
    const api = await signInTo(hostTestOptions().slowEngineUrl);
    await api.session.signOut();
    try {
      const stream = recordingStream();
      const result = await api.chat.handle(chatRequest('Where is parseConfig defined?'), historyOf(), stream, new vscode.CancellationTokenSource().token);
      assert.match(result.errorDetails?.message ?? '', /Sign in to Deep Search \(or use the local engine\)/);
      const buttons = stream.recorded.filter((part) => part.kind === 'button').map((part) => part.value as vscode.Command);
      assert.deepEqual(
        buttons.map((button) => [button.title, button.command]),
        [
          ['Sign In', 'deepSearch.signIn'],
          ['Use Local Engine', 'deepSearch.useLocalEngine'],
        ],
      );
    } finally {
      await signInTo(hostTestOptions().slowEngineUrl);
    }
  });

  it('cancelling the chat request cancels the question on the instance, and says so', async () => {
    const api = await signInTo(hostTestOptions().slowEngineUrl);
    const stream = recordingStream();
    const cancel = new vscode.CancellationTokenSource();
    const handling = api.chat.handle(chatRequest('Where is parseConfig defined?'), historyOf(), stream, cancel.token);
    await eventually(
      () => (stream.recorded.some((part) => part.kind === 'progress' && /Searching/.test(part.text)) ? true : undefined),
      'the question to be under way',
    );
    cancel.cancel();
    const result = await handling;
    const { conversationId } = result.metadata as TurnMetadata;
    assert.match(stream.recorded.map((part) => part.text).join('\n'), /Cancelled: the question was cancelled on the instance/);
    const onServer = await api.store.fetch(conversationId);
    assert.equal(latestQuestion(onServer)?.state, 'canceled');
  });

  it('the agent’s deep_search tool waits past a minute for the answer, and returns it with its sources as links and no token', async () => {
    const api = await signInTo(hostTestOptions().slowestEngineUrl);
    const started = Date.now();
    const result = await vscode.lm.invokeTool(
      ASK_TOOL,
      { input: { question: 'Where is parseConfig defined?' }, toolInvocationToken: undefined },
      new vscode.CancellationTokenSource().token,
    );
    const elapsed = Date.now() - started;
    assert.ok(elapsed > 60_000, `answered after ${elapsed} ms: the engine's pace should make it take over a minute`);
    const text = result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');
    assert.match(text, /src\/config\.ts/);
    assert.match(
      text,
      new RegExp(`Sources:\\n- \\[[^\\]]+\\]\\(${hostTestOptions().slowestEngineUrl.replace(/[.:/]/g, '\\$&')}/`),
      'sources as links on the instance',
    );
    assert.ok(!text.includes(hostTestOptions().token), 'no token');
    assert.ok(api.store.listed.length > 0);
  });

  it('the agent’s tools: cancelling cancels the question on the instance; errors come back with their message; a conversation is read by its number', async () => {
    const api = await signInTo(hostTestOptions().slowEngineUrl);
    const cancel = new vscode.CancellationTokenSource();
    const before = new Set(api.store.listed.map((conversation) => conversation.id));
    const asking = vscode.lm.invokeTool(ASK_TOOL, { input: { question: 'How is the configuration validated?' }, toolInvocationToken: undefined }, cancel.token);
    const id = await eventually(() => api.store.listed.find((conversation) => !before.has(conversation.id))?.id, 'the tool to ask');
    cancel.cancel();
    // VS Code ends a cancelled tool call itself ("Canceled"); the tool then cancels the question on the instance.
    await assert.rejects(Promise.resolve(asking), /Cancel/);
    await eventually(
      async () => (latestQuestion(await api.store.fetch(id))?.state === 'canceled' ? true : undefined),
      'the question to be cancelled on the instance',
    );

    await assert.rejects(
      Promise.resolve(vscode.lm.invokeTool(ASK_TOOL, { input: { question: ' ' }, toolInvocationToken: undefined })),
      /Give the question to ask Deep Search/,
    );
    await assert.rejects(
      Promise.resolve(vscode.lm.invokeTool(READ_TOOL, { input: { conversation: 'yesterday’s' }, toolInvocationToken: undefined })),
      /names no conversation/,
    );

    const read = await vscode.lm.invokeTool(READ_TOOL, { input: { conversation: String(id) }, toolInvocationToken: undefined });
    const text = read.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');
    assert.match(text, new RegExp(`# Deep Search conversation ${id}`));
    assert.match(text, /How is the configuration validated\?/);
  });
});
