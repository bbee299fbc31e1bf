/**
 * Syntax colours for a citation's preview, with highlight.js and the languages answers cite most.
 * A chunk of its own: the page imports it on the first preview, never for an answer alone.
 *
 * highlight.js writes HTML (`<span class="hljs-keyword">…</span>`, text escaped); this module reads
 * that back into pieces of text with a scope, so the page builds its DOM from text nodes only.
 */
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import csharp from 'highlight.js/lib/languages/csharp';
import css from 'highlight.js/lib/languages/css';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import kotlin from 'highlight.js/lib/languages/kotlin';
import markdown from 'highlight.js/lib/languages/markdown';
import php from 'highlight.js/lib/languages/php';
import python from 'highlight.js/lib/languages/python';
import ruby from 'highlight.js/lib/languages/ruby';
import rust from 'highlight.js/lib/languages/rust';
import scala from 'highlight.js/lib/languages/scala';
import sql from 'highlight.js/lib/languages/sql';
import swift from 'highlight.js/lib/languages/swift';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

const LANGUAGES = {
  bash,
  c,
  cpp,
  csharp,
  css,
  go,
  java,
  javascript,
  json,
  kotlin,
  markdown,
  php,
  python,
  ruby,
  rust,
  scala,
  sql,
  swift,
  typescript,
  xml,
  yaml,
};
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);

/** File endings highlight.js does not know as aliases. */
const EXTRA_ALIASES: Record<string, string> = {
  tsx: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  jsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  h: 'c',
  hpp: 'cpp',
  hh: 'cpp',
  cc: 'cpp',
  kt: 'kotlin',
  kts: 'kotlin',
};

/** More text than this is shown without colours. */
const MAX_COLOURED_CHARACTERS = 40_000;

/** A run of text and the highlight.js scope it is in (`keyword`, `string`, …; none for plain). */
export interface ColouredPiece {
  text: string;
  scope?: string;
}

/** The language highlight.js uses for a file, from its name; undefined when it has none. */
export function languageOf(path: string): string | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  if (name === 'dockerfile' || name === 'makefile') return undefined;
  const ending = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1) : '';
  const alias = EXTRA_ALIASES[ending] ?? ending;
  return alias && hljs.getLanguage(alias) ? alias : undefined;
}

/** `lines` as coloured pieces, line by line; plain pieces when the language is unknown or on any failure. */
export function colourLines(lines: readonly string[], path: string): ColouredPiece[][] {
  const plain = () => lines.map((line) => [{ text: line }]);
  const language = languageOf(path);
  const code = lines.join('\n');
  if (!language || code.length > MAX_COLOURED_CHARACTERS) return plain();
  try {
    const pieces = readHighlighted(hljs.highlight(code, { language, ignoreIllegals: true }).value);
    return splitLines(pieces, lines.length) ?? plain();
  } catch {
    return plain();
  }
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#x27;': "'", '&#39;': "'" };

/** highlight.js's HTML → pieces; the innermost scope wins. Anything but its own spans fails the read. */
function readHighlighted(html: string): ColouredPiece[] {
  const pieces: ColouredPiece[] = [];
  const scopes: string[] = [];
  const pattern = /<span class="([\w .-]*)">|<\/span>|([^<]+)/gy;
  let match: RegExpExecArray | null;
  let at = 0;
  while (at < html.length && (match = pattern.exec(html)) !== null) {
    at = pattern.lastIndex;
    if (match[1] !== undefined) scopes.push(scopeName(match[1]));
    else if (match[2] !== undefined)
      pieces.push({ text: match[2].replace(/&(?:amp|lt|gt|quot|#x27|#39);/g, (entity) => ENTITIES[entity]), scope: scopes[scopes.length - 1] || undefined });
    else scopes.pop();
  }
  if (at !== html.length) throw new Error('unexpected markup from the highlighter');
  return pieces;
}

/** `hljs-title function_` → `title`: the first class, without its prefix. */
function scopeName(classes: string): string {
  return /^hljs-([\w-]+)/.exec(classes)?.[1] ?? '';
}

function splitLines(pieces: readonly ColouredPiece[], count: number): ColouredPiece[][] | undefined {
  const lines: ColouredPiece[][] = [[]];
  for (const piece of pieces) {
    const parts = piece.text.split('\n');
    parts.forEach((part, index) => {
      if (index > 0) lines.push([]);
      if (part) lines[lines.length - 1].push({ text: part, scope: piece.scope });
    });
  }
  return lines.length === count ? lines : undefined;
}
