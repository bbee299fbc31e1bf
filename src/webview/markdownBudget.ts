/**
 * Which answers are too costly to render as Markdown. marked's inline pass is quadratic in the
 * emphasis delimiters of one paragraph (`_a_a_a…` of 200 KB: over a minute), and deeply nested
 * lists cost more per level (400 levels: over a second); a deep enough quote overflows its stack.
 * One linear scan finds such input before the parser sees it; the panel then shows the text as it
 * is, and says why. The limits are an order of magnitude past what real answers hold.
 */

/** Past this, an answer is shown as text: about ten times the longest answers seen. */
export const MAX_MARKDOWN_CHARS = 2_000_000;
/** Emphasis delimiter runs (`*`, `_`, `~`) in one paragraph: 3,000 cost about 100 ms. */
export const MAX_DELIMITER_RUNS_PER_PARAGRAPH = 3_000;
/** Nesting of lists and quotes, as indentation (two columns a level) or `>` markers. */
export const MAX_NESTING = 64;

export type MarkdownVerdict = { render: true } | { render: false; reason: 'size' | 'emphasis' | 'nesting' };

export function markdownVerdict(markdown: string): MarkdownVerdict {
  if (markdown.length > MAX_MARKDOWN_CHARS) return { render: false, reason: 'size' };
  let runs = 0;
  let lineStart = true;
  let indent = 0;
  let quotes = 0;
  let blankLine = true;
  let previous = '';
  for (let index = 0; index < markdown.length; index++) {
    const char = markdown[index]!;
    if (char === '\n') {
      if (blankLine) runs = 0;
      lineStart = true;
      blankLine = true;
      indent = 0;
      quotes = 0;
      previous = char;
      continue;
    }
    if (lineStart) {
      if (char === ' ') indent++;
      else if (char === '\t') indent += 4;
      else if (char === '>') quotes++;
      else lineStart = false;
      if (indent / 2 > MAX_NESTING || quotes > MAX_NESTING) return { render: false, reason: 'nesting' };
    }
    if (char !== ' ' && char !== '\t' && char !== '\r') blankLine = false;
    if ((char === '*' || char === '_' || char === '~') && previous !== char) {
      runs++;
      if (runs > MAX_DELIMITER_RUNS_PER_PARAGRAPH) return { render: false, reason: 'emphasis' };
    }
    previous = char;
  }
  return { render: true };
}
