import * as vscode from 'vscode';

/**
 * Context keys that complete the steps of the Get Started walkthrough (package.json's
 * `walkthroughs`) that no command of ours marks: VS Code ticks a step when its `onContext:` key holds.
 */
export const WALKTHROUGH_DONE = {
  openedCitation: 'deepSearch.walkthrough.openedCitation',
  askedInChat: 'deepSearch.walkthrough.askedInChat',
} as const;

export function markWalkthroughDone(key: (typeof WALKTHROUGH_DONE)[keyof typeof WALKTHROUGH_DONE]): void {
  void vscode.commands.executeCommand('setContext', key, true);
}
