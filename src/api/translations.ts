/**
 * The translations of the code below the editor layer. That code speaks through `@vscode/l10n`, and
 * the network bundle (dist/network.js) carries its own copy of it, which the `l10n.config` of
 * activate() does not reach: whoever loads the bundle hands it VS Code's translations through this.
 * The MCP client (dist/mcp.js) has a copy too: the tool client hands it the same, when it loads it.
 */
import * as l10n from '@vscode/l10n';

let inUse: Readonly<Record<string, string>> | undefined;

/**
 * Makes this copy of `@vscode/l10n` speak the display language. `messages` is `vscode.l10n.bundle`:
 * undefined in English, where the messages are their own keys and there is nothing to do.
 */
export function useTranslations(messages: Readonly<Record<string, string>> | undefined): void {
  inUse = messages;
  if (messages) l10n.config({ contents: { ...messages } });
}

/** What this copy was given, to hand on to a bundle it loads (undefined: English). */
export function translationsInUse(): Readonly<Record<string, string>> | undefined {
  return inUse;
}
