/**
 * The translations of the code below the editor layer. That code speaks through `@vscode/l10n`, and
 * the network bundle (dist/network.js) carries its own copy of it, which the `l10n.config` of
 * activate() does not reach: whoever loads the bundle hands it VS Code's translations through this.
 */
import * as l10n from '@vscode/l10n';

/**
 * Makes this copy of `@vscode/l10n` speak the display language. `messages` is `vscode.l10n.bundle`:
 * undefined in English, where the messages are their own keys and there is nothing to do.
 */
export function useTranslations(messages: Readonly<Record<string, string>> | undefined): void {
  if (messages) l10n.config({ contents: { ...messages } });
}
