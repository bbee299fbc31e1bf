/**
 * Which answers are too costly to render as Markdown, found by one linear scan before marked sees
 * them; the panel then shows the text as it is (`plainText.ts`) and says why. What it bounds, each
 * well past what real answers hold, so that no answer costs much more to show than a realistic
 * answer of its size (the rendering benchmark's adversarial rows hold answers of 250 KB to 250 ms
 * of main-thread work, style and layout included):
 *
 * - marked's superlinear cases: its emphasis pass is quadratic in the unpaired delimiters of a
 *   paragraph (`_a_a_a…` of 200 KB: over a minute; `***…a***…`: seconds; see `emphasisCost.ts`),
 *   and it reads a nested line once per level (`- - - …`: seconds), or overflows its stack;
 * - the elements an answer makes: each costs a parse step, a DOM node, style and layout, so that
 *   250 KB of tiny list items, links or table cells took seconds, ten times 250 KB of prose;
 * - raw HTML, for the browser's parser and DOMPurify (`rawHtmlTags.ts`): 50,000 nested `<div>`s
 *   took ten seconds, formatting tags left open across paragraphs over a minute.
 */
import { EmphasisCost } from './emphasisCost';
import { RawHtmlTags } from './rawHtmlTags';

/** Past this, an answer is shown as text: about ten times the longest answers seen. */
export const MAX_MARKDOWN_CHARS = 2_000_000;
/** Emphasis delimiter runs (`*`, `_`, `~`) in one paragraph. */
export const MAX_DELIMITER_RUNS_PER_PARAGRAPH = 3_000;
/**
 * marked's emphasis work over the whole answer, as `emphasisCost.ts` estimates it: about 70 ms.
 * One paragraph of 3,000 unpaired runs (`_a_a…`) is 9 million.
 */
export const MAX_EMPHASIS_COST = 12_000_000;
/** Nesting of lists and quotes on one line: indentation (two columns a level) and markers. */
export const MAX_NESTING = 64;
/** Characters of lines nested deeper than two levels, times their levels past the second. */
export const MAX_DEEP_TEXT = 1_000_000;
/**
 * Markup items, weighted by what the elements they make cost to build and lay out: 1 for a line,
 * a pair of emphasis runs, a backtick run, a tag, link-like text (`://`, `www.`, `@`) or a line of
 * code; 2 for a bracket (a link) or a table pipe (a cell); 5 for a list or quote marker. At most
 * this many, or one per `CHARS_PER_MARKUP_ITEM` characters in a longer answer: realistic answers
 * hold about one per 24 characters, and cost about as much per item as the costliest markup.
 */
export const MARKUP_ITEMS = 10_500;
export const CHARS_PER_MARKUP_ITEM = 16;
/** Raw HTML (see `rawHtmlTags.ts`). */
export const MAX_HTML_TAGS = 5_000;
export const MAX_HTML_ATTRIBUTES = 5_000;
export const MAX_HTML_NESTING = 32;
/** Formatting tags left open, summed over the paragraphs that follow them. */
export const MAX_HTML_REOPENED = 5_000;

export type PlainTextReason = 'size' | 'emphasis' | 'nesting' | 'markup' | 'html';

export type MarkdownVerdict = { render: true } | { render: false; reason: PlainTextReason };

export function markdownVerdict(markdown: string): MarkdownVerdict {
  if (markdown.length > MAX_MARKDOWN_CHARS) return { render: false, reason: 'size' };
  const reason = scan.run(markdown);
  return reason ? { render: false, reason } : { render: true };
}

const TAB = 9;
const NEWLINE = 10;
const CARRIAGE_RETURN = 13;
const SPACE = 32;
const CLOSE_PAREN = 41;
const STAR = 42;
const PLUS = 43;
const DASH = 45;
const DOT = 46;
const SLASH = 47;
const COLON = 58;
const LESS_THAN = 60;
const GREATER_THAN = 62;
const AT = 64;
const OPEN_BRACKET = 91;
const UNDERSCORE = 95;
const BACKTICK = 96;
const LOWER_W = 119;
const PIPE = 124;
const TILDE = 126;

/**
 * The scan's state over one answer. One instance for every answer, as the DOM builder's (see
 * `DomBuilder` in markdownDom.ts): V8 drops a class's optimised code once no object of it is left,
 * and would otherwise scan each answer with cold code after a full garbage collection.
 */
class BudgetScan {
  private text = '';
  private at = 0;
  private items = 0;
  private maxItems = 0;
  private readonly emphasis = new EmphasisCost();
  private inParagraph = false;
  private deepText = 0;
  /** The open code fence's character and length (0: none). */
  private fence = 0;
  private fenceLength = 0;
  private readonly html = new RawHtmlTags();

  run(text: string): PlainTextReason | undefined {
    this.text = text;
    this.at = 0;
    this.items = 0;
    this.maxItems = Math.max(MARKUP_ITEMS, text.length / CHARS_PER_MARKUP_ITEM);
    this.emphasis.reset();
    this.inParagraph = false;
    this.deepText = 0;
    this.fence = 0;
    this.fenceLength = 0;
    this.html.reset();
    try {
      return this.lines();
    } finally {
      // Nothing of an answer is kept.
      this.text = '';
    }
  }

  private lines(): PlainTextReason | undefined {
    while (this.at < this.text.length) {
      const reason = this.fence === 0 ? this.line() : this.codeLine();
      if (reason) return reason;
      if (this.items > this.maxItems) return 'markup';
      // Past the line's newline.
      this.at++;
    }
    return undefined;
  }

  /** A line outside code fences; leaves `at` at its newline (or the end). */
  private line(): PlainTextReason | undefined {
    const text = this.text;
    const start = this.at;
    let at = start;
    let indent = 0;
    let markers = 0;
    for (;;) {
      const char = text.charCodeAt(at);
      if (char === SPACE || char === TAB) {
        if (markers === 0) indent += char === TAB ? 4 : 1;
        at++;
      } else if (char === GREATER_THAN || ((char === DASH || char === PLUS || char === STAR) && isGap(text.charCodeAt(at + 1)))) {
        markers++;
        at++;
      } else {
        const after = orderedMarkerEnd(text, at);
        if (after < 0) break;
        markers++;
        at = after;
      }
    }
    const depth = Math.floor(indent / 2) + markers;
    if (depth > MAX_NESTING) return 'nesting';
    // A list marker: the list's element and the item's, which lays out three times slower than a
    // paragraph; a quote marker counts as much.
    this.items += 5 * markers;
    const first = text.charCodeAt(at);
    if (at >= text.length || first === NEWLINE || (first === CARRIAGE_RETURN && text.charCodeAt(at + 1) === NEWLINE)) {
      this.endParagraph();
      this.at = at >= text.length ? at : text.charCodeAt(at) === NEWLINE ? at : at + 1;
      return undefined;
    }
    if ((first === BACKTICK || first === TILDE) && markers === 0 && indent <= 3) {
      const length = runLength(text, at);
      // Only what marked also takes for a fence: what the scan skips as code must be code.
      if (length >= 3 && (first === TILDE || !lineHas(text, at + length, BACKTICK))) {
        this.endParagraph();
        this.fence = first;
        this.fenceLength = length;
        this.items++;
        this.at = lineEnd(text, at);
        return undefined;
      }
    }
    if (!this.inParagraph) {
      this.inParagraph = true;
      this.html.paragraph();
      if (this.html.carried > MAX_HTML_REOPENED) return 'html';
    }
    this.items++;
    const reason = this.inline(at);
    if (reason) return reason;
    if (depth > 2) {
      this.deepText += (this.at - start) * (depth - 2);
      if (this.deepText > MAX_DEEP_TEXT) return 'nesting';
    }
    return undefined;
  }

  /** A line's text from `at`: emphasis, brackets, code and tags; leaves `this.at` at its newline. */
  private inline(from: number): PlainTextReason | undefined {
    const text = this.text;
    let at = from;
    while (at < text.length) {
      const char = text.charCodeAt(at);
      if (char === NEWLINE) break;
      if (char === STAR || char === UNDERSCORE || char === TILDE) {
        const length = runLength(text, at);
        const emphasis = this.emphasis;
        emphasis.run(char, length, text.charCodeAt(at - 1), text.charCodeAt(at + length));
        this.items += 0.5;
        if (emphasis.runs > MAX_DELIMITER_RUNS_PER_PARAGRAPH || emphasis.total > MAX_EMPHASIS_COST) return 'emphasis';
        at += length;
        continue;
      }
      if (char === BACKTICK) {
        this.items++;
        at += runLength(text, at);
        continue;
      }
      if (char === LESS_THAN && RawHtmlTags.startsTag(text, at)) {
        at = this.html.read(text, at);
        this.items++;
        const html = this.html;
        if (html.tags > MAX_HTML_TAGS || html.attributes > MAX_HTML_ATTRIBUTES || html.deepest > MAX_HTML_NESTING) return 'html';
        continue;
      }
      // A link or a table cell lays out at about twice a paragraph's cost.
      if (char === OPEN_BRACKET || char === PIPE) this.items += 2;
      else if (char === AT) this.items++;
      else if (char === COLON && text.charCodeAt(at + 1) === SLASH && text.charCodeAt(at + 2) === SLASH) this.items++;
      else if (char === LOWER_W && text.startsWith('ww.', at + 1)) this.items++;
      at++;
    }
    this.at = at;
    return undefined;
  }

  /**
   * A line inside a code fence (one opened outside any list or quote, which only its closing fence
   * or the answer's end can close): the fence's end, or a line of code.
   */
  private codeLine(): PlainTextReason | undefined {
    const text = this.text;
    let at = this.at;
    for (let char = text.charCodeAt(at); char === SPACE || char === TAB || char === GREATER_THAN; char = text.charCodeAt(at)) at++;
    if (text.charCodeAt(at) === this.fence) {
      const length = runLength(text, at);
      if (length >= this.fenceLength && isBlank(text, at + length)) this.fence = 0;
    }
    this.items++;
    this.at = lineEnd(text, at);
    return undefined;
  }

  private endParagraph(): void {
    this.emphasis.endParagraph();
    this.inParagraph = false;
  }
}

const scan = new BudgetScan();

/** Space, tab, line end or the text's end: what follows a list marker. */
function isGap(char: number): boolean {
  return char === SPACE || char === TAB || char === NEWLINE || char === CARRIAGE_RETURN || Number.isNaN(char);
}

/** After an ordered list marker (`1.`, `12)`: up to nine digits) at `at`, or -1 if there is none. */
function orderedMarkerEnd(text: string, at: number): number {
  let end = at;
  while (end - at < 9 && isDigit(text.charCodeAt(end))) end++;
  if (end === at) return -1;
  const char = text.charCodeAt(end);
  if ((char !== DOT && char !== CLOSE_PAREN) || !isGap(text.charCodeAt(end + 1))) return -1;
  return end + 1;
}

function isDigit(char: number): boolean {
  return char >= 48 && char <= 57;
}

/** How many times `text[at]` repeats from `at`. */
function runLength(text: string, at: number): number {
  const char = text.charCodeAt(at);
  let end = at + 1;
  while (text.charCodeAt(end) === char) end++;
  return end - at;
}

/** The index of the newline ending the line that holds `at`, or the text's length. */
function lineEnd(text: string, at: number): number {
  const end = text.indexOf('\n', at);
  return end < 0 ? text.length : end;
}

/** Whether `char` occurs from `at` to the end of its line. */
function lineHas(text: string, at: number, char: number): boolean {
  for (let index = at; index < text.length; index++) {
    const found = text.charCodeAt(index);
    if (found === char) return true;
    if (found === NEWLINE) return false;
  }
  return false;
}

function isBlank(text: string, at: number): boolean {
  for (let index = at; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (char === NEWLINE) return true;
    if (char !== SPACE && char !== TAB && char !== CARRIAGE_RETURN) return false;
  }
  return true;
}
