// The English bundle of the extension's messages (l10n/bundle.l10n.json): every message given to
// `l10n.t(` or `vscode.l10n.t(` in src (the engine aside: a server, its words are not translated),
// the webview's included, as key and value. Translators copy it to bundle.l10n.<language>.json.
//   node scripts/l10n-bundle.mjs           writes the bundle
//   node scripts/l10n-bundle.mjs --check   fails when the bundle is not what the sources say
// Either way it fails when a call's message is not a literal: such a message has no key to translate.
// The sources are read with TypeScript's parser, so comments, strings and line breaks are no trap.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const BUNDLE_PATH = path.join(ROOT, 'l10n', 'bundle.l10n.json');
/** Folders of src whose words are not translated. */
const UNTRANSLATED = ['engine'];

/** The TypeScript sources whose messages the bundle holds. */
export function translatedSources(root = ROOT) {
  const src = path.join(root, 'src');
  return readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.tsx?$/.test(file) && !file.endsWith('.d.ts'))
    .filter((file) => !UNTRANSLATED.includes(file.split(path.sep)[0]))
    .sort()
    .map((file) => path.join(src, file));
}

/** Whether a call is `l10n.t(…)` or `vscode.l10n.t(…)`. */
function isTranslationCall(node) {
  if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression) || node.expression.name.text !== 't') return false;
  const owner = node.expression.expression;
  if (ts.isIdentifier(owner)) return owner.text === 'l10n';
  return ts.isPropertyAccessExpression(owner) && owner.name.text === 'l10n' && ts.isIdentifier(owner.expression) && owner.expression.text === 'vscode';
}

/**
 * The messages of the given files, each with where it is said, and the calls whose message is not a
 * string literal (a backtick string without `${}`, or literals joined with `+` to keep lines short),
 * as `file:line`.
 */
export function extractMessages(files, root = ROOT) {
  const messages = new Map();
  const nonLiteral = [];
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const where = (node) => `${path.relative(root, file).split(path.sep).join('/')}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
    const visit = (node) => {
      if (isTranslationCall(node)) {
        const text = node.arguments[0] && literalText(node.arguments[0]);
        if (text !== undefined) {
          const places = messages.get(text) ?? [];
          places.push(where(node));
          messages.set(text, places);
        } else {
          nonLiteral.push(where(node));
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { messages, nonLiteral };
}

/** The text of a string literal, or of literals joined with `+`; undefined for anything else. */
function literalText(node) {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isParenthesizedExpression(node)) return literalText(node.expression);
  if (!ts.isBinaryExpression(node) || node.operatorToken.kind !== ts.SyntaxKind.PlusToken) return undefined;
  const left = literalText(node.left);
  const right = left === undefined ? undefined : literalText(node.right);
  return right === undefined ? undefined : left + right;
}

/** The bundle's text: every message its own translation, sorted, as the file is written. */
export function bundleText(messages) {
  const sorted = Object.fromEntries([...messages.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map((message) => [message, message]));
  return `${JSON.stringify(sorted, null, 2)}\n`;
}

function main() {
  const check = process.argv.includes('--check');
  const { messages, nonLiteral } = extractMessages(translatedSources());
  let failed = false;
  if (nonLiteral.length > 0) {
    console.error(`l10n-bundle: these calls give a message that is not a literal, which no bundle can key:\n  ${nonLiteral.join('\n  ')}`);
    failed = true;
  }
  const text = bundleText(messages);
  let current;
  try {
    current = readFileSync(BUNDLE_PATH, 'utf8');
  } catch {
    current = undefined;
  }
  if (check) {
    if (current !== text) {
      console.error(`l10n-bundle: ${path.relative(ROOT, BUNDLE_PATH)} is out of date: run \`node scripts/l10n-bundle.mjs\`.`);
      failed = true;
    }
  } else if (current !== text) {
    writeFileSync(BUNDLE_PATH, text);
    console.log(`l10n-bundle: wrote ${messages.size} messages to ${path.relative(ROOT, BUNDLE_PATH)}.`);
  }
  if (failed) process.exitCode = 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
