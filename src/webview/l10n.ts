/**
 * The panel's translations. The host renders `vscode.l10n.bundle` into the page as a JSON data block
 * (see `panelHtml`), since the webview's CSP allows no fetch; `loadTranslations` hands it to
 * `@vscode/l10n` before anything renders, and every `l10n.t` after that speaks the display language.
 */
import * as l10n from '@vscode/l10n';
import { L10N_BUNDLE_ELEMENT_ID } from '../protocol';

/**
 * Loads the translations the host put in the page. No bundle (English), or one that cannot be read,
 * leaves every string in English; entries that are not strings are ignored.
 */
export function loadTranslations(page: Document): void {
  const element = page.getElementById(L10N_BUNDLE_ELEMENT_ID);
  if (!(element instanceof HTMLScriptElement) || element.type !== 'application/json') return;
  let contents: unknown;
  try {
    contents = JSON.parse(element.textContent ?? '');
  } catch {
    return;
  }
  if (typeof contents !== 'object' || contents === null || Array.isArray(contents)) return;
  const messages: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [key, value] of Object.entries(contents)) if (typeof value === 'string') messages[key] = value;
  l10n.config({ contents: messages });
}
