/**
 * A window reload ends this extension host, so the reload check runs in two phases: before the
 * reload (this file, `phase: 'before'`) and in the new extension host afterwards (`'after'`).
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { latestQuestion } from '../../src/model/conversation';
import { eventually, hostTestOptions, signInTo } from './extensionApi';

interface ReloadMarker {
  /** Running, with its panel open at the reload. */
  conversationId: number;
  /** Running, with no panel: only the persisted running ids can bring it back. */
  unwatchedId: number;
}

/** Two of VS Code's idle saves of the browser window's state (every 5 s), and a margin. */
const BROWSER_STATE_SAVED_MS = 11_000;

export function reloadMarkerFile(): string {
  return path.join(hostTestOptions().runDir, 'reload-marker.json');
}

export function isAfterReload(): boolean {
  return existsSync(reloadMarkerFile());
}

export function defineReloadSuite(): void {
  if (!isAfterReload()) {
    describe('window reload (before)', () => {
      it('leaves a question running in an open panel, then reloads the window', async function () {
        this.timeout(120_000);
        const api = await signInTo(hostTestOptions().slowerEngineUrl);
        const unwatchedId = await vscode.commands.executeCommand<number>('deepSearch.ask', 'Where does startServer log the port?');
        api.panels.close(unwatchedId);
        const id = await vscode.commands.executeCommand<number>('deepSearch.ask', 'How does loadConfig read the settings file?');
        await eventually(() => api.panels.shownConversation(id), 'the panel to be ready');
        // VS Code in the browser writes its window state (the open editors, this panel among them)
        // to IndexedDB when idle every 5 s; the write it starts on reload may not finish before the
        // page goes. Let two of those saves pass, as a user's window would have, before reloading.
        await new Promise((resolve) => setTimeout(resolve, BROWSER_STATE_SAVED_MS));
        assert.equal(latestQuestion(api.store.get(id)!)?.state, 'processing');
        assert.equal(latestQuestion(api.store.get(unwatchedId)!)?.state, 'processing');
        const marker: ReloadMarker = { conversationId: id, unwatchedId };
        writeFileSync(reloadMarkerFile(), JSON.stringify(marker));
        await vscode.commands.executeCommand('workbench.action.reloadWindow');
        // The reload ends this extension host; the suite below runs in the next one.
        await new Promise(() => undefined);
      });
    });
    return;
  }
  describe('window reload (after)', () => {
    const { conversationId, unwatchedId } = JSON.parse(readFileSync(reloadMarkerFile(), 'utf8')) as ReloadMarker;

    it('restores the panel of the conversation', async () => {
      const api = await signInTo(hostTestOptions().slowerEngineUrl);
      await eventually(() => (api.panels.openIds.includes(conversationId) ? true : undefined), 'the panel to be restored');
    });

    it('resumes polling the running question until it completes, with nobody asking', async () => {
      const api = await signInTo(hostTestOptions().slowerEngineUrl);
      const finished = await eventually(
        () => {
          const conversation = api.store.get(conversationId);
          return conversation && latestQuestion(conversation)?.state === 'completed' ? conversation : undefined;
        },
        'the restored question to complete',
        90_000,
      );
      assert.ok(latestQuestion(finished)?.answer);
      const shown = await eventually(() => {
        const sent = api.panels.shownConversation(conversationId);
        return sent && latestQuestion(sent)?.state === 'completed' ? sent : undefined;
      }, 'the restored panel to show the answer');
      assert.equal(latestQuestion(shown)?.answer, latestQuestion(finished)?.answer);
    });

    it('resumes polling a running question that has no panel, from the persisted running ids', async () => {
      const api = await signInTo(hostTestOptions().slowerEngineUrl);
      assert.ok(!api.panels.openIds.includes(unwatchedId), 'no panel loads it');
      const finished = await eventually(
        () => {
          const conversation = api.store.get(unwatchedId);
          return conversation && latestQuestion(conversation)?.state === 'completed' ? conversation : undefined;
        },
        'the unwatched question to complete',
        90_000,
      );
      assert.ok(latestQuestion(finished)?.answer);
    });
  });
}
