/**
 * The first sentence of a definition's own documentation: the comment just above it (`/** … *\/`,
 * `///`, `//`, `#`), or a Python docstring just below its signature; markers, tags (`@param`) and
 * attributes left out. What the code says it does, in its authors' words. Pure.
 */

/** Characters of the sentence kept at most (cut at a word). */
const MAX_SENTENCE = 220;
/** Words a sentence has at least to say something. */
const MIN_WORDS = 3;
/** Lines of a docstring read at most. */
const MAX_DOCSTRING_LINES = 12;

const DOCSTRING_OPEN = /^\s*[rRuUbB]?("""|''')/;
/** Lines of a comment that are tags, attributes or decorators, not prose. */
const NOT_PROSE = /^\s*(@\w|#\[|\[[A-Z]\w*|:param|:return|:raises|Args:|Returns:|Raises:|Example)/;

/**
 * The first sentence of the documentation of the definition whose lines (1-based) run from `start`,
 * its name on `nameLine`, with its comment from `docStart` (`start` when none); undefined when it
 * has none that says something.
 */
export function documentationSentence(lines: readonly string[], docStart: number | undefined, start: number, nameLine: number): string | undefined {
  const above = docStart !== undefined && docStart < start ? commentProse(lines.slice(docStart - 1, start - 1)) : [];
  const prose = above.length > 0 ? above : docstringProse(lines, Math.max(start, nameLine));
  return firstSentence(prose.join(' '));
}

/** The prose of comment lines: markers stripped, tags and attributes dropped (a tag ends the prose). */
function commentProse(comment: readonly string[]): string[] {
  const prose: string[] = [];
  for (const line of comment) {
    const text = line
      .replace(/^\s*(\/\*\*?|\*\/|\*|\/\/\/?|\/\/!|#+|--|;+)/, '')
      .replace(/\*\/\s*$/, '')
      .trim();
    if (NOT_PROSE.test(text)) {
      if (prose.length > 0) break;
      continue;
    }
    if (text === '') {
      // A blank line ends the summary paragraph.
      if (prose.length > 0) break;
      continue;
    }
    prose.push(text);
  }
  return prose;
}

/** A Python docstring's first paragraph, when the line after the signature opens one. */
function docstringProse(lines: readonly string[], signatureLine: number): string[] {
  // The signature may run over a few lines: the docstring follows its last one (ending in `:`).
  let at = signatureLine;
  while (at < lines.length && at - signatureLine < 6 && !/:\s*(#.*)?$/.test(lines[at - 1] ?? '')) at++;
  const first = lines[at] ?? '';
  const quote = DOCSTRING_OPEN.exec(first)?.[1];
  if (!quote) return [];
  const prose: string[] = [];
  const opening = first.slice(first.indexOf(quote) + 3);
  const closesAt = opening.indexOf(quote);
  if (closesAt >= 0) return [opening.slice(0, closesAt).trim()];
  if (opening.trim() !== '') prose.push(opening.trim());
  for (let index = at + 1; index < Math.min(lines.length, at + 1 + MAX_DOCSTRING_LINES); index++) {
    const line = lines[index] ?? '';
    const end = line.indexOf(quote);
    const text = (end >= 0 ? line.slice(0, end) : line).trim();
    if (text === '' || NOT_PROSE.test(text)) {
      if (prose.length > 0 || end >= 0) break;
      continue;
    }
    prose.push(text);
    if (end >= 0) break;
  }
  return prose;
}

/** Up to the first full stop followed by a space (or the end), when it has a few words; cut at a word when long. */
function firstSentence(text: string): string | undefined {
  const flat = text
    .replace(/\{@\w+\s+([^}]*)\}/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
  const end = /[.!?](\s|$)/.exec(flat);
  let sentence = end ? flat.slice(0, end.index + 1) : flat;
  if (sentence.length > MAX_SENTENCE) {
    const cut = sentence.slice(0, MAX_SENTENCE);
    sentence = `${cut.slice(0, Math.max(cut.lastIndexOf(' '), 1))}…`;
  }
  if ((sentence.match(/[A-Za-z]+/g)?.length ?? 0) < MIN_WORDS) return undefined;
  // Said as a sentence: with its full stop.
  return /[.!?…]$/.test(sentence) ? sentence : `${sentence}.`;
}
