/**
 * What the tools know about languages: file extensions for `lang:` filters, and for search-based
 * navigation the definition patterns (POSIX ERE, run by `git grep -E`) of TypeScript/JavaScript,
 * Python, Go, Java and Rust, plus how far a definition's body reaches.
 */

/** `lang:` names → file extensions (lower case, without the dot). */
const EXTENSIONS: Readonly<Record<string, readonly string[]>> = {
  typescript: ['ts', 'tsx', 'mts', 'cts'],
  javascript: ['js', 'jsx', 'mjs', 'cjs'],
  python: ['py', 'pyi'],
  go: ['go'],
  java: ['java'],
  rust: ['rs'],
  c: ['c', 'h'],
  'c++': ['cc', 'cpp', 'cxx', 'hpp', 'hh', 'hxx', 'h'],
  csharp: ['cs'],
  ruby: ['rb'],
  php: ['php'],
  shell: ['sh', 'bash', 'zsh'],
  kotlin: ['kt', 'kts'],
  swift: ['swift'],
  markdown: ['md', 'markdown'],
  json: ['json'],
  yaml: ['yml', 'yaml'],
  html: ['html', 'htm'],
  css: ['css', 'scss', 'less'],
  text: ['txt'],
};
const LANGUAGE_ALIASES: Readonly<Record<string, string>> = {
  ts: 'typescript',
  js: 'javascript',
  py: 'python',
  golang: 'go',
  rs: 'rust',
  cpp: 'c++',
  cs: 'csharp',
  'c#': 'csharp',
  rb: 'ruby',
  bash: 'shell',
  sh: 'shell',
  kt: 'kotlin',
  md: 'markdown',
  yml: 'yaml',
};

/** Extensions of a `lang:` value, or undefined when the language is unknown. */
export function extensionsOf(language: string): readonly string[] | undefined {
  const key = language.toLowerCase();
  return EXTENSIONS[LANGUAGE_ALIASES[key] ?? key];
}

export function knownLanguages(): string[] {
  return Object.keys(EXTENSIONS);
}

export function extensionOf(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

export interface NavigationLanguage {
  id: 'typescript' | 'python' | 'go' | 'java' | 'rust';
  label: string;
  extensions: readonly string[];
  /** How a definition's body ends: matching braces, or the end of an indented block. */
  blocks: 'braces' | 'indentation';
  /** ERE patterns whose match marks a definition of `symbol` (already escaped). */
  definitions(symbol: string): string[];
}

/** Characters that cannot be part of an identifier. */
const NOT_ID = '[^[:alnum:]_$]';
const SPACE = '[[:space:]]';
/** A Java type: letters, generics, arrays, dots. */
const JAVA_TYPE = '[]_$<>,.?[[:alnum:]]+';

export const NAVIGATION_LANGUAGES: readonly NavigationLanguage[] = [
  {
    id: 'typescript',
    label: 'TypeScript/JavaScript',
    extensions: ['ts', 'tsx', 'mts', 'cts', 'js', 'jsx', 'mjs', 'cjs'],
    blocks: 'braces',
    definitions: (s) => [
      `(^|${NOT_ID})(function${SPACE}*\\*?|class|interface|type|enum|namespace|module)${SPACE}+${s}(${NOT_ID}|$)`,
      `(^|[^[:alnum:]_$.])(const|let|var)${SPACE}+${s}${SPACE}*(:[^=]*)?=`,
      `^${SPACE}*((public|private|protected|static|async|abstract|override|readonly|get|set|export|default|declare)${SPACE}+)*${s}${SPACE}*(<[^>]*>)?${SPACE}*\\([^)]*\\)${SPACE}*(:[^={;]*)?\\{`,
      `^${SPACE}*((public|private|protected|static|readonly|declare)${SPACE}+)+${s}${SPACE}*[?!]?${SPACE}*[:=]`,
    ],
  },
  {
    id: 'python',
    label: 'Python',
    extensions: ['py', 'pyi'],
    blocks: 'indentation',
    definitions: (s) => [
      `^${SPACE}*(async${SPACE}+)?def${SPACE}+${s}${SPACE}*\\(`,
      `^${SPACE}*class${SPACE}+${s}${SPACE}*[(:]`,
      `^${s}${SPACE}*(:[^=]*)?=([^=]|$)`,
    ],
  },
  {
    id: 'go',
    label: 'Go',
    extensions: ['go'],
    blocks: 'braces',
    definitions: (s) => [
      `^func${SPACE}+(\\([^)]*\\)${SPACE}*)?${s}${SPACE}*[[(]`,
      `^${SPACE}*type${SPACE}+${s}(${NOT_ID}|$)`,
      `^${SPACE}*(var|const)${SPACE}+${s}(${NOT_ID}|$)`,
      `^${SPACE}+${s}${SPACE}+(struct|interface)(${NOT_ID}|$)`,
    ],
  },
  {
    id: 'java',
    label: 'Java',
    extensions: ['java'],
    blocks: 'braces',
    definitions: (s) => [
      `(^|${NOT_ID})(class|interface|enum|record|@interface)${SPACE}+${s}(${NOT_ID}|$)`,
      `^${SPACE}*((public|protected|private|static|final|abstract|synchronized|native|default|strictfp)${SPACE}+)*(<[^>]*>${SPACE}+)?${JAVA_TYPE}${SPACE}+${s}${SPACE}*\\([^;]*$`,
      `^${SPACE}*(public|protected|private)${SPACE}+${s}${SPACE}*\\(`,
      `^${SPACE}*((public|protected|private|static|final|volatile|transient)${SPACE}+)+${JAVA_TYPE}${SPACE}+${s}${SPACE}*(=|;)`,
    ],
  },
  {
    id: 'rust',
    label: 'Rust',
    extensions: ['rs'],
    blocks: 'braces',
    definitions: (s) => [
      `(^|${NOT_ID})(fn|struct|enum|trait|type|mod|union)${SPACE}+${s}(${NOT_ID}|$)`,
      `(^|${NOT_ID})(const|static)${SPACE}+(mut${SPACE}+)?${s}${SPACE}*:`,
      `macro_rules!${SPACE}*${s}(${NOT_ID}|$)`,
    ],
  },
];

export function navigationLanguageOf(path: string): NavigationLanguage | undefined {
  const extension = extensionOf(path);
  return NAVIGATION_LANGUAGES.find((language) => language.extensions.includes(extension));
}

/** Pathspecs (`*.ts` …) of a language's files: ours, never caller text. */
export function pathspecsOf(language: NavigationLanguage): string[] {
  return language.extensions.map((extension) => `*.${extension}`);
}

/** An identifier escaped for ERE (only `$` is special among identifier characters). */
export function escapeIdentifier(symbol: string): string {
  return symbol.replace(/\$/g, '\\$');
}

const MAX_DEFINITION_LINES = 50;

/**
 * The last line (1-based) of the definition starting at `start`: where its braces close, or where
 * its indented block ends; at most 50 lines.
 */
export function definitionEnd(lines: readonly string[], start: number, blocks: NavigationLanguage['blocks']): number {
  const limit = Math.min(lines.length, start + MAX_DEFINITION_LINES - 1);
  if (blocks === 'indentation') {
    const indent = indentation(lines[start - 1] ?? '');
    let end = start;
    for (let line = start + 1; line <= limit; line++) {
      const text = lines[line - 1] ?? '';
      if (text.trim() === '') continue;
      if (indentation(text) <= indent && !/^\s*[)\]]/.test(text)) break;
      end = line;
    }
    return end;
  }
  let depth = 0;
  let opened = false;
  for (let line = start; line <= limit; line++) {
    const text = stripStrings(lines[line - 1] ?? '');
    for (const char of text) {
      if (char === '{') {
        depth++;
        opened = true;
      } else if (char === '}') {
        depth--;
      }
    }
    if (opened && depth <= 0) return line;
    if (!opened && (/;\s*$/.test(text) || line - start >= 4)) return line;
  }
  return limit;
}

function indentation(line: string): number {
  return (/^[ \t]*/.exec(line)?.[0] ?? '').replace(/\t/g, '    ').length;
}

/** A line without the contents of its string literals and its `//` comment (braces there do not count). */
function stripStrings(line: string): string {
  return line.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`/g, '""').replace(/\/\/.*$/, '');
}
