/**
 * Every word a user reads can be translated: each message of `l10n.t` / `vscode.l10n.t` is in the
 * English bundle (l10n/bundle.l10n.json) and the bundle holds no message the sources no longer say;
 * each `%key%` of package.json is in package.nls.json; no user-visible text is written as a bare
 * literal where the layers that show text make errors or messages (a heuristic: the calls that carry
 * a message to a person); and the network bundle, with its own copy of `@vscode/l10n`, takes the
 * translations it is handed.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { BUNDLE_PATH, bundleText, extractMessages, translatedSources } from '../../scripts/l10n-bundle.mjs';

const ROOT = path.join(__dirname, '..', '..');
const SRC = path.join(ROOT, 'src');

/** The layers whose errors and messages reach a person (the engine is a server; the webview's words are all in strings.ts). */
const TEXT_LAYERS = ['api', 'conversations', 'model', 'vscode'];

/**
 * For each callee that carries a message to a person, the position of the message among its
 * arguments. Any other `new …Error(` carries it first.
 */
const MESSAGE_ARGUMENT: Readonly<Record<string, number>> = {
  DeepSearchError: 1,
  OAuthFailure: 1,
  McpError: 1,
  invalidResponseError: 0,
  showErrorMessage: 0,
  showWarningMessage: 0,
  showInformationMessage: 0,
};

/** Two words in a row: text meant for a person (a lone identifier or code is not). */
const WORDS = /\p{L}{2,}\s+\p{L}+/u;
/** `panelHtml: the nonce must be base64`: an assertion that names its function, for the programmer. */
const PROGRAMMER_ASSERTION = /^[A-Za-z_$][\w$.]*: /;

/** The words written as literals in a message expression (through `+`, `?:`, `??`, `||` and parentheses, not into calls). */
function literalWords(node: ts.Expression): string[] {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))
    return WORDS.test(node.text) && !PROGRAMMER_ASSERTION.test(node.text) ? [node.text] : [];
  if (ts.isTemplateExpression(node)) {
    const text = [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join(' … ');
    return WORDS.test(text) && !PROGRAMMER_ASSERTION.test(node.head.text) ? [text] : [];
  }
  if (ts.isParenthesizedExpression(node)) return literalWords(node.expression);
  if (ts.isConditionalExpression(node)) return [...literalWords(node.whenTrue), ...literalWords(node.whenFalse)];
  if (
    ts.isBinaryExpression(node) &&
    [ts.SyntaxKind.PlusToken, ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken].includes(node.operatorToken.kind)
  ) {
    return [...literalWords(node.left), ...literalWords(node.right)];
  }
  return [];
}

/** `file:line: text` for each message written as a bare literal in `text` (the source of `file`). */
function untranslatedMessages(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && node.arguments) {
      const callee = node.expression;
      const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : undefined;
      const at =
        name === undefined
          ? undefined
          : Object.hasOwn(MESSAGE_ARGUMENT, name)
            ? MESSAGE_ARGUMENT[name]
            : ts.isNewExpression(node) && name.endsWith('Error')
              ? 0
              : undefined;
      const message = at === undefined ? undefined : node.arguments[at];
      if (message) {
        const line = source.getLineAndCharacterOfPosition(message.getStart(source)).line + 1;
        for (const words of literalWords(message)) found.push(`${file}:${line}: ${words}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function textLayerSources(): string[] {
  const files = TEXT_LAYERS.flatMap((layer) =>
    readdirSync(path.join(SRC, layer), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .map((file) => `src/${layer}/${file.split(path.sep).join('/')}`),
  );
  return [...files, 'src/extension.ts'].sort();
}

describe('translations', function () {
  this.timeout(60_000);

  describe('the English bundle', () => {
    const { messages, nonLiteral } = extractMessages(translatedSources());
    const bundle = JSON.parse(readFileSync(BUNDLE_PATH, 'utf8')) as Record<string, string>;

    it('holds every message of the sources, and none they no longer say', () => {
      assert.ok(messages.size > 100, `only ${messages.size} messages found`);
      const missing = [...messages].filter(([message]) => !Object.hasOwn(bundle, message)).map(([message, places]) => `${places[0]}: ${message}`);
      assert.deepEqual(missing, [], 'messages missing from l10n/bundle.l10n.json: run `node scripts/l10n-bundle.mjs`');
      const stale = Object.keys(bundle).filter((message) => !messages.has(message));
      assert.deepEqual(stale, [], 'messages of l10n/bundle.l10n.json that no source says: run `node scripts/l10n-bundle.mjs`');
      assert.equal(readFileSync(BUNDLE_PATH, 'utf8'), bundleText(messages), 'the bundle is written sorted, each message its own English');
    });

    it('has a literal message in every call, or there would be no key to translate', () => {
      assert.deepEqual(nonLiteral, []);
    });

    it("takes the webview's messages and the host's, and leaves the engine's out", () => {
      const from = (prefix: string) => [...messages.values()].some((places) => places.some((place) => place.startsWith(prefix)));
      assert.ok(from('src/webview/strings.ts'), 'the webview');
      assert.ok(from('src/vscode/'), 'the editor layer (vscode.l10n.t)');
      assert.ok(from('src/api/errors.ts') && from('src/conversations/'), 'the client and the store (l10n.t)');
      assert.ok(!from('src/engine/'), 'the engine');
    });

    it('finds messages however the call is written, and names a call whose message is not a literal', () => {
      const folder = mkdtempSync(path.join(tmpdir(), 'l10n-'));
      try {
        const file = path.join(folder, 'seeded.ts');
        writeFileSync(
          file,
          [
            "import * as l10n from '@vscode/l10n';",
            "const a = l10n.t('One {0}', 1);",
            'const b = vscode.l10n.t(',
            '  // a comment',
            '  `Two`,',
            ');',
            "const c = other.t('Not a message');",
            'const d = l10n.t(a + b);',
            "const e = l10n.t('Three, ' +",
            "  'on two lines');",
            "const f = l10n.t('Four ' + a);",
          ].join('\n'),
        );
        const seeded = extractMessages([file], folder);
        assert.deepEqual([...seeded.messages.keys()], ['One {0}', 'Two', 'Three, on two lines']);
        assert.deepEqual(seeded.nonLiteral, ['seeded.ts:8', 'seeded.ts:11']);
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    });
  });

  it('has every %key% of package.json in package.nls.json', () => {
    const manifest = readFileSync(path.join(ROOT, 'package.json'), 'utf8');
    const nls = JSON.parse(readFileSync(path.join(ROOT, 'package.nls.json'), 'utf8')) as Record<string, string>;
    const keys = [...manifest.matchAll(/"%([^%"\s]+)%"/g)].map((match) => match[1]);
    assert.ok(keys.length > 20, `only ${keys.length} keys found`);
    assert.deepEqual(
      [...new Set(keys)].filter((key) => !Object.hasOwn(nls, key)),
      [],
    );
  });

  describe('the layers that show text', () => {
    it('write no message for a person as a bare literal', () => {
      const found = textLayerSources().flatMap((file) => untranslatedMessages(file, readFileSync(path.join(ROOT, file), 'utf8')));
      assert.deepEqual(found, [], 'wrap these in l10n.t (vscode.l10n.t in src/vscode)');
    });

    it('catch a seeded bare message in each form, and let translated ones and assertions pass', () => {
      const seeded = [
        "throw new DeepSearchError('network', 'Could not reach it.');",
        'throw new Error(`The file ${name} is gone.`);',
        "void vscode.window.showWarningMessage(ok ? 'It went well.' : l10n.t('It did not.'));",
        "throw invalidResponseError('the list ' + 'is not a list');",
        "throw new OAuthFailure('invalid_grant', detail ?? 'Sign in again.');",
        // Translated, a code, a programmer's assertion, or no words: all fine.
        "throw new DeepSearchError('network', l10n.t('Could not reach {0}.', origin));",
        "void vscode.window.showErrorMessage(vscode.l10n.t('Failed: {0}', why));",
        "throw new Error('panelHtml: the nonce must be base64');",
        'throw new Error(`${code}: ${message}`);',
        "throw new Error('ECONNRESET');",
      ].join('\n');
      assert.deepEqual(
        untranslatedMessages('seeded.ts', seeded).map((found) => found.replace(/: .*/, '')),
        ['seeded.ts:1', 'seeded.ts:2', 'seeded.ts:3', 'seeded.ts:4', 'seeded.ts:4', 'seeded.ts:5'],
      );
    });
  });

  it("configures the network bundle's own copy of @vscode/l10n with the translations it is handed", function () {
    // dist/network.js is a bundle of its own: its copy of @vscode/l10n is not the extension's.
    const file = path.join(ROOT, 'dist', 'network.js');
    if (!existsSync(file)) throw new Error('dist/network.js is missing: run `npm run build` first');
    const network = createRequire(__filename)(file) as typeof import('../../src/api/network');
    const english = 'The instance URL is a {0}: address — use an http:// or https:// address such as https://sourcegraph.example.com.';
    assert.ok(english in (JSON.parse(readFileSync(BUNDLE_PATH, 'utf8')) as object));
    const connect = () => network.connectToInstance('ftp://example.com', 'token', network.createUndiciTransport());
    assert.throws(connect, { message: /^The instance URL is a ftp: address/ });
    try {
      network.useTranslations({ [english]: 'Adresse {0}: ungültig.' });
      assert.throws(connect, { message: 'Adresse ftp: ungültig.' });
    } finally {
      network.useTranslations({});
    }
    assert.throws(connect, { message: /^The instance URL is a ftp: address/ });
  });

  it("hands the network bundle's translations on to the MCP client's bundle (dist/mcp.js), which has its own copy", async function () {
    const file = path.join(ROOT, 'dist', 'network.js');
    if (!existsSync(file)) throw new Error('dist/network.js is missing: run `npm run build` first');
    const network = createRequire(__filename)(file) as typeof import('../../src/api/network');
    // A tool server that answers every request in plain text: the MCP client (dist/mcp.js) refuses the
    // reply in its own words, which the tool client (dist/network.js) wraps in its own.
    const server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end('hello'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const messages = {
      'Unexpected content type: {0}': 'Unerwarteter Inhalt: {0}',
      'Version negotiation probe failed: the server answered with an unusable reply ({0})': 'Versionsfrage gescheitert ({0})',
      'The tool server answered in a way this extension does not understand ({0}).': 'Unverständlich ({0}).',
    };
    for (const english of Object.keys(messages)) assert.ok(english in (JSON.parse(readFileSync(BUNDLE_PATH, 'utf8')) as object), english);
    try {
      network.useTranslations(messages);
      const connection = network.connectToInstance(`http://127.0.0.1:${port}`, 'token', network.createUndiciTransport());
      try {
        await assert.rejects(connection.tools.client.server(), { message: 'Unverständlich (Versionsfrage gescheitert (Unerwarteter Inhalt: text/plain)).' });
      } finally {
        await connection.transport.close();
      }
    } finally {
      network.useTranslations({});
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
