/**
 * The conversation panel's HTML: a strict CSP (nothing but our stylesheets, fonts, images and one
 * nonce'd script), no inline styles or handlers. Pure strings in, string out, so it is tested
 * without VS Code; the panel passes `webview.cspSource`, `asWebviewUri(...)` strings and
 * `vscode.l10n.bundle`.
 */
import { L10N_BUNDLE_ELEMENT_ID } from '../../protocol';

export interface PanelHtmlOptions {
  /** `webview.cspSource`: the origin the webview's own resources are served from. */
  cspSource: string;
  /** Fresh for every HTML document: see `createNonce()`. */
  nonce: string;
  /** The webview bundle (`dist/webview/webview.js`, a module script that imports its chunks) as a webview URI. */
  scriptUri: string;
  /** `media/panel.css` and `codicon.css` (and nothing inline) as webview URIs. */
  styleUris: string[];
  /** The document title (the panel's tab title is set by the host). */
  title: string;
  /**
   * `vscode.l10n.bundle`: the translations for the display language, `undefined` in English. The
   * page carries them in a JSON data block (the CSP allows no fetch) for `main.ts` to load.
   */
  l10nBundle?: Record<string, string>;
}

/** Shown until the script has run; translated here, since the script has not loaded the bundle yet. */
const LOADING_TEXT = 'Loading conversation…';

/** 192 random bits, base64: a CSP nonce nobody can guess. */
export function createNonce(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(24))));
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return (
    ["default-src 'none'", `img-src ${cspSource} data:`, `style-src ${cspSource}`, `font-src ${cspSource}`, `script-src 'nonce-${nonce}'`].join('; ') + ';'
  );
}

export function panelHtml(options: PanelHtmlOptions): string {
  if (!/^[A-Za-z0-9+/_-]+=*$/.test(options.nonce)) throw new Error('panelHtml: the nonce must be base64');
  const csp = contentSecurityPolicy(options.cspSource, options.nonce);
  const styles = options.styleUris.map((uri) => `    <link rel="stylesheet" href="${escapeAttribute(uri)}">`).join('\n');
  const bundle = options.l10nBundle;
  const loading = (bundle && typeof bundle[LOADING_TEXT] === 'string' && bundle[LOADING_TEXT]) || LOADING_TEXT;
  // A data block is never run; it carries the nonce all the same, like every script element here.
  const bundleScript = bundle
    ? `    <script type="application/json" id="${L10N_BUNDLE_ELEMENT_ID}" nonce="${escapeAttribute(options.nonce)}">` + `${scriptSafeJson(bundle)}</script>\n`
    : '';
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <meta http-equiv="Content-Security-Policy" content="${escapeAttribute(csp)}">
    <meta name="viewport" content="width=device-width, initial-scale=1.0">
${styles}
    <title>${escapeText(options.title)}</title>
  </head>
  <body>
    <main id="app" class="panel" aria-busy="true">
      <p class="loading">${escapeText(loading)}</p>
    </main>
${bundleScript}    <script type="module" nonce="${escapeAttribute(options.nonce)}" src="${escapeAttribute(options.scriptUri)}"></script>
  </body>
</html>
`;
}

/**
 * JSON that cannot end or comment out its `<script>` element: `<`, `>` and `&` (and the two Unicode
 * line separators) become `\u` escapes, which JSON.parse reads back as the same characters.
 */
function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** For double-quoted attributes: single quotes (the CSP's `'none'`) stay readable as they are. */
function escapeAttribute(text: string): string {
  return escapeText(text).replace(/"/g, '&quot;');
}
