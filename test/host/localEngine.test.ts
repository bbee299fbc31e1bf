import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { latestQuestion } from '../../src/model/conversation';
import { eventually, extensionApi, hostTestOptions } from './extensionApi';

describe('Use Local Engine', () => {
  after(async () => {
    // Back to the shared test engine for the suites that follow.
    const api = await extensionApi();
    await api.session.signOut();
  });

  it('starts the engine on the workspace repository with a fresh token in SecretStorage and answers from it', async () => {
    const api = await extensionApi();
    await vscode.commands.executeCommand('deepSearch.useLocalEngine');
    const connection = api.session.current;
    assert.equal(connection?.kind, 'local');
    assert.match(connection.instanceUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
    const token = await api.session.currentToken();
    assert.match(token ?? '', /^dse_[0-9a-f]{64}$/);
    assert.notEqual(token, hostTestOptions().token);

    const id = await vscode.commands.executeCommand<number>('deepSearch.ask', 'What does retry_with_backoff do?');
    const answered = await eventually(() => {
      const conversation = api.store.get(id);
      return conversation && latestQuestion(conversation)?.state === 'completed' ? conversation : undefined;
    }, 'the local engine to answer');
    assert.ok(latestQuestion(answered)!.answer!.includes(`/${hostTestOptions().repoName}/-/blob/lib/retry_policy.py`));
  });

  it('stops the engine on sign-out', async () => {
    const api = await extensionApi();
    if (api.session.current?.kind !== 'local') await vscode.commands.executeCommand('deepSearch.useLocalEngine');
    const url = api.session.current!.instanceUrl;
    await api.session.signOut();
    await assert.rejects(fetch(`${url}/.api/deepsearch/v1/`), 'the engine still answers after sign-out');
  });

  it('runs the engine in a process of its own, and starts it again once when it dies, on the same URL', async () => {
    const api = await extensionApi();
    if (api.session.current?.kind !== 'local') await vscode.commands.executeCommand('deepSearch.useLocalEngine');
    const url = api.session.current!.instanceUrl;
    const first = await api.localEngine.pid();
    assert.ok(first && first !== process.pid, 'the engine is not the extension host');
    const id = await vscode.commands.executeCommand<number>('deepSearch.ask', 'Where is retry_with_backoff defined?');

    process.kill(first, 'SIGKILL');
    const second = await eventually(async () => {
      const pid = await api.localEngine.pid();
      return pid && pid !== first ? pid : undefined;
    }, 'the engine to be started again');
    assert.equal(api.session.current?.instanceUrl, url, 'same URL: the connection stays');
    await eventually(() => {
      const conversation = api.store.get(id);
      return conversation && latestQuestion(conversation)?.state === 'completed' ? conversation : undefined;
    }, 'the question asked before the crash to be answered by the restarted engine');

    process.kill(second, 'SIGKILL');
    await eventually(async () => ((await api.localEngine.pid()) === undefined ? true : undefined), 'the engine to stay stopped after a second death');
    await assert.rejects(fetch(`${url}/.api/deepsearch/v1/`), 'nothing answers at the URL');
  });
});
