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
  // POSIX classes (`[[:alpha:]]`) are not read here: the line is skipped.
  if (pattern.includes('[:')) return undefined;
  // A leading slash, or one inside, anchors the pattern to its file's folder; otherwise it matches a name at any depth.
  const glob = pattern.replace(/^\//, '');
  if (!pattern.includes('/')) return (relativePath) => globMatches(glob, relativePath.slice(relativePath.lastIndexOf('/') + 1));
  return (relativePath) => globMatches(glob, relativePath);
}

/** Paths longer than this match no pattern (git's own limit is the file system's). */
const MAX_PATH_LENGTH = 4096;

/**
 * Whether a glob matches a whole path, by git's rules: a `**` folder matches any number of folders,
 * `*` and `?` stay inside a folder's name, `[…]` is a class (`!` negates). In time linear in the path
 * for each part of the pattern: folders by dynamic programming, a name by the two-pointer walk of
 * wildcards (no backtracking regular expression).
 */
export function globMatches(glob: string, path: string): boolean {
  if (path.length > MAX_PATH_LENGTH) return false;
  const parts = glob.split('/');
  const names = path.split('/');
  // reachable[j]: the parts so far can match the first j names.
  let reachable = new Uint8Array(names.length + 1);
  reachable[0] = 1;
  for (const part of parts) {
    const next = new Uint8Array(names.length + 1);
    for (let j = 0; j <= names.length; j++) {
      if (!reachable[j]) continue;
      if (part === '**') {
        for (let k = j; k <= names.length; k++) next[k] = 1;
        break;
      }
      if (j < names.length && nameMatches(part, names[j] ?? '')) next[j + 1] = 1;
    }
    reachable = next;
  }
  return reachable[names.length] === 1;
}

/** A glob without `/` against one name: `*` any run, `?` one character, `[…]` a class, `\x` the character x. */
function nameMatches(glob: string, name: string): boolean {
  let g = 0;
  let n = 0;
  let starAt = -1;
  let starName = 0;
  while (n < name.length) {
    const token = tokenAt(glob, g);
    if (token && token.kind === 'star') {
      starAt = g;
      starName = n;
      g = token.end;
    } else if (token && (token.kind === 'any' || (token.kind === 'char' && token.char === name[n]) || (token.kind === 'class' && token.test(name[n] ?? '')))) {
      g = token.end;
      n++;
    } else if (starAt >= 0) {
      g = tokenAt(glob, starAt)?.end ?? glob.length;
      starName++;
      n = starName;
    } else {
      return false;
    }
  }
  for (let token = tokenAt(glob, g); token?.kind === 'star'; token = tokenAt(glob, g)) g = token.end;
  return g >= glob.length;
}

type GlobToken =
  { kind: 'star' | 'any'; end: number } | { kind: 'char'; char: string; end: number } | { kind: 'class'; test: (char: string) => boolean; end: number };

/** The glob's token at `at` (a run of stars is one), or undefined at its end. */
function tokenAt(glob: string, at: number): GlobToken | undefined {
  const char = glob[at];
  if (char === undefined) return undefined;
  if (char === '*') {
    let end = at;
    while (glob[end] === '*') end++;
    return { kind: 'star', end };
  }
  if (char === '?') return { kind: 'any', end: at + 1 };
  if (char === '\\' && at + 1 < glob.length) return { kind: 'char', char: glob[at + 1] ?? '', end: at + 2 };
  if (char === '[') {
    const close = glob.indexOf(']', at + 2);
    if (close !== -1) return { kind: 'class', test: classTest(glob.slice(at + 1, close)), end: close + 1 };
  }
  return { kind: 'char', char, end: at + 1 };
}

/** `a-z0-9_` or `!abc` as a test of one character. */
function classTest(body: string): (char: string) => boolean {
  const negated = body.startsWith('!') || body.startsWith('^');
  const members = negated ? body.slice(1) : body;
  const ranges: Array<[string, string]> = [];
  for (let at = 0; at < members.length; at++) {
    const from = members[at] ?? '';
    if (members[at + 1] === '-' && at + 2 < members.length) {
      ranges.push([from, members[at + 2] ?? '']);
      at += 2;
    } else {
      ranges.push([from, from]);
    }
  }
  return (char) => ranges.some(([from, to]) => char >= from && char <= to) !== negated;
}
