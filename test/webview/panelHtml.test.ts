import assert from 'node:assert/strict';
import { contentSecurityPolicy, createNonce, panelHtml, type PanelHtmlOptions } from '../../src/vscode/conversations/panelHtml';

const CSP_SOURCE = 'https://file+.vscode-resource.vscode-cdn.net';

function options(overrides: Partial<PanelHtmlOptions> = {}): PanelHtmlOptions {
  return {
    cspSource: CSP_SOURCE,
    nonce: createNonce(),
    scriptUri: `${CSP_SOURCE}/ext/dist/webview/webview.js`,
    styleUris: [`${CSP_SOURCE}/ext/media/panel.css`, `${CSP_SOURCE}/ext/node_modules/@vscode/codicons/dist/codicon.css`],
    title: 'Deep Search',
    ...overrides,
  };
}

describe('panelHtml', () => {
  it('declares the strict content security policy with the nonce and the webview source', () => {
    const input = options();
    const html = panelHtml(input);
    const expected =
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src ${CSP_SOURCE} data:; ` +
      `style-src ${CSP_SOURCE}; font-src ${CSP_SOURCE}; script-src 'nonce-${input.nonce}';">`;
    assert.ok(html.includes(expected), html);
    assert.equal(contentSecurityPolicy(CSP_SOURCE, input.nonce), expected.split('content="')[1].slice(0, -2));
    assert.doesNotMatch(html, /unsafe-inline|unsafe-eval/);
  });

  it('puts the nonce on the one script tag and nowhere else', () => {
    const input = options();
    const html = panelHtml(input);
    const scripts = html.match(/<script\b[^>]*>/g) ?? [];
    assert.deepEqual(scripts, [`<script type="module" nonce="${input.nonce}" src="${input.scriptUri}">`]);
    assert.equal(html.split(input.nonce).length - 1, 2, 'once in the CSP, once on the script');
    assert.match(html, /<script [^>]*><\/script>/, 'the script tag has no inline body');
  });

  it('links every stylesheet and has no inline style or event handler', () => {
    const input = options();
    const html = panelHtml(input);
    for (const uri of input.styleUris) assert.ok(html.includes(`<link rel="stylesheet" href="${uri}">`), uri);
    assert.doesNotMatch(html, /<style\b/i);
    assert.doesNotMatch(html, /\sstyle=/i);
    assert.doesNotMatch(html, /\son[a-z]+=/i);
  });

  it('escapes the title and URIs it is given', () => {
    const html = panelHtml(options({ title: '</title><script>alert(1)</script>', scriptUri: `${CSP_SOURCE}/a"b.js` }));
    assert.ok(html.includes('<title>&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;</title>'));
    assert.ok(html.includes('src="https://file+.vscode-resource.vscode-cdn.net/a&quot;b.js"'));
    assert.equal((html.match(/<script\b/g) ?? []).length, 1);
  });

  it('carries no translations in English: no bundle element, the English loading text', () => {
    const html = panelHtml(options());
    assert.doesNotMatch(html, /l10n-bundle/);
    assert.ok(html.includes('<p class="loading">Loading conversation…</p>'));
  });

  it('carries the translations in a nonce’d JSON data block that a hostile bundle cannot break out of', () => {
    const input = options({
      l10nBundle: {
        Cancel: '</script><script>window.__hostile = 1</script>',
        Send: '<!-- <script>',
        '</SCRIPT >': 'a & b > c \u2028 \u2029 "quoted" \\ back',
      },
    });
    const html = panelHtml(input);
    const openings = html.match(/<script\b[^>]*>/g) ?? [];
    assert.deepEqual(openings, [
      `<script type="application/json" id="l10n-bundle" nonce="${input.nonce}">`,
      `<script type="module" nonce="${input.nonce}" src="${input.scriptUri}">`,
    ]);
    assert.equal((html.match(/<\/script/gi) ?? []).length, 2, 'only the two real end tags');
    assert.doesNotMatch(html, /<!--/);
    const body = /<script type="application\/json" id="l10n-bundle" nonce="[^"]+">([^]*?)<\/script>/.exec(html)?.[1];
    assert.ok(body !== undefined, html);
    assert.doesNotMatch(body, /[<>&\u2028\u2029]/);
    assert.deepEqual(JSON.parse(body), input.l10nBundle, 'reads back as the same bundle');
  });

  it('translates the loading text from the bundle, escaped', () => {
    const html = panelHtml(options({ l10nBundle: { 'Loading conversation…': 'Chargement <b>…</b>' } }));
    assert.ok(html.includes('<p class="loading">Chargement &lt;b&gt;…&lt;/b&gt;</p>'), html);
  });

  it('refuses a nonce that could break out of the policy', () => {
    assert.throws(() => panelHtml(options({ nonce: "abc'; script-src *" })), /nonce/);
  });

  it('makes a different nonce for every call, with at least 128 random bits', () => {
    const nonces = new Set(Array.from({ length: 200 }, () => createNonce()));
    assert.equal(nonces.size, 200);
    for (const nonce of nonces) {
      assert.match(nonce, /^[A-Za-z0-9+/]+=*$/);
      assert.ok(Buffer.from(nonce, 'base64').length >= 16, nonce);
    }
    const first = panelHtml(options({ nonce: createNonce() }));
    const second = panelHtml(options({ nonce: createNonce() }));
    const nonceOf = (html: string) => /nonce="([^"]+)"/.exec(html)?.[1];
    assert.notEqual(nonceOf(first), nonceOf(second));
  });
});
