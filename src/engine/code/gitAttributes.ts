/**
 * The `linguist-generated`, `linguist-vendored` and `linguist-documentation` attributes a commit's
 * `.gitattributes` files give a path, by git's rules: a pattern without a slash matches a name at any
 * depth below its file's folder, one with a slash matches from that folder; `*` and `?` stay inside a
 * folder name, `**` crosses folders; a later line wins over an earlier one, a deeper file over a
 * shallower. (git 2.40's `check-attr --source` would read them from a commit; the engines here may
 * have an older git.) Pure functions; every input is bounded.
 */
import type { LinguistAttributes } from './fileKinds';

interface Rule {
  matches: (relativePath: string) => boolean;
  attributes: LinguistAttributes;
}

/** The rules of one `.gitattributes` file, and the folder it governs (`''` for the root). */
export interface AttributeFile {
  folder: string;
  rules: Rule[];
}

const MAX_RULES = 2_000;
const MAX_PATTERN_LENGTH = 512;
/** Wildcard runs in one pattern at most: each `*` is a loop of the regular expression it becomes. */
const MAX_WILDCARDS = 8;
const ATTRIBUTES: ReadonlyArray<[string, keyof LinguistAttributes]> = [
  ['linguist-generated', 'generated'],
  ['linguist-vendored', 'vendored'],
  ['linguist-documentation', 'documentation'],
];

/** The linguist rules of one `.gitattributes` file at `filePath` (lines naming none are skipped). */
export function parseAttributeFile(filePath: string, text: string): AttributeFile {
  const folder = filePath.includes('/') ? filePath.slice(0, filePath.lastIndexOf('/')) : '';
  const rules: Rule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    if (rules.length >= MAX_RULES) break;
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || !line.includes('linguist-')) continue;
    const [pattern, ...settings] = line.split(/\s+/);
    if (!pattern || pattern.length > MAX_PATTERN_LENGTH || pattern.startsWith('"')) continue;
    const attributes: LinguistAttributes = {};
    for (const setting of settings) {
      for (const [name, key] of ATTRIBUTES) {
        if (setting === name || setting === `${name}=true`) attributes[key] = true;
        else if (setting === `-${name}` || setting === `${name}=false`) attributes[key] = false;
      }
    }
    if (Object.keys(attributes).length === 0) continue;
    const matches = patternMatcher(pattern);
    if (matches) rules.push({ matches, attributes });
  }
  return { folder, rules };
}

/** What the files say of `path`: deeper files override shallower ones, later lines earlier ones. */
export function attributesOf(path: string, files: readonly AttributeFile[]): LinguistAttributes {
  const result: LinguistAttributes = {};
  const governing = files.filter((file) => file.folder === '' || path.startsWith(`${file.folder}/`)).sort((a, b) => depth(a.folder) - depth(b.folder));
  for (const file of governing) {
    const relative = file.folder === '' ? path : path.slice(file.folder.length + 1);
    for (const rule of file.rules) if (rule.matches(relative)) Object.assign(result, rule.attributes);
  }
  return result;
}

function depth(folder: string): number {
  return folder === '' ? 0 : folder.split('/').length;
}

/** A test of a path relative to the attribute file's folder, or undefined for a pattern git ignores. */
function patternMatcher(pattern: string): ((relativePath: string) => boolean) | undefined {
  // A pattern for a folder (`docs/`) matches no file in git attributes.
  if (pattern.endsWith('/')) return undefined;
  if ((pattern.match(/\*+/g)?.length ?? 0) > MAX_WILDCARDS) return undefined;
  // POSIX classes (`[[:alpha:]]`) mean something else to JavaScript: the line is skipped.
  if (pattern.includes('[:')) return undefined;
  // A leading slash, or one inside, anchors the pattern to its file's folder; otherwise it matches a name at any depth.
  const anchored = pattern.includes('/');
  let expression: RegExp;
  try {
    expression = globToRegExp(pattern.replace(/^\//, ''));
  } catch {
    return undefined;
  }
  if (!anchored) return (relativePath) => expression.test(relativePath.slice(relativePath.lastIndexOf('/') + 1));
  return (relativePath) => expression.test(relativePath);
}

/** A glob as a regular expression over a whole string: `**` crosses folders, `*` and `?` do not. */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index] ?? '';
    if (char === '*') {
      if (glob[index + 1] === '*') {
        const atStart = index === 0 || glob[index - 1] === '/';
        const slashAfter = glob[index + 2] === '/';
        index++;
        if (atStart && slashAfter) {
          index++;
          source += '(?:.*/)?';
        } else {
          source += '.*';
        }
      } else {
        source += '[^/]*';
      }
    } else if (char === '?') {
      source += '[^/]';
    } else if (char === '[') {
      const close = glob.indexOf(']', index + 2);
      if (close === -1) {
        source += '\\[';
      } else {
        const body = glob.slice(index + 1, close).replace(/^!/, '^').replace(/\\/g, '\\\\');
        source += `[${body}]`;
        index = close;
      }
    } else {
      source += char.replace(/[.+^${}()|\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${source}$`);
}
