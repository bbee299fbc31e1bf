import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { EXTENSION_ID, extensionApi } from './extensionApi';

interface Manifest {
  activationEvents?: string[];
  contributes: { commands: { command: string }[] };
}

describe('contributions', () => {
  const manifest = () => vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as Manifest;

  it('registers every contributed command, and contributes every command it registers', async () => {
    await extensionApi();
    const contributed = manifest()
      .contributes.commands.map((command) => command.command)
      .sort();
    // VS Code itself adds `<view id>.focus` and the like for the contributed view.
    const registered = (await vscode.commands.getCommands(true))
      .filter((id) => id.startsWith('deepSearch.') && !id.startsWith('deepSearch.conversations.'))
      .sort();
    assert.deepEqual(registered, contributed);
  });

  it('activates only on its commands, view, panel serializer, accounts menu, remote files and MCP servers — nothing at startup', () => {
    const events = manifest().activationEvents ?? [];
    assert.ok(!events.includes('*') && !events.includes('onStartupFinished'), `startup activation in ${events.join(', ')}`);
    for (const event of events)
      assert.match(
        event,
        /^(onCommand:deepSearch\.|onView:deepSearch\.|onWebviewPanel:deepSearch\.|onAuthenticationRequest:deepsearch$|onFileSystem:deepsearch-remote$|onMcpCollection:deepSearch\.tools$)/,
      );
  });
});
