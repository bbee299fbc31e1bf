/**
 * Counts the raw HTML tags of an answer as the Markdown budget scan meets them (`markdownBudget.ts`),
 * for what makes the browser's HTML parser and DOMPurify slow: many tags, many attributes (DOMPurify
 * removes refused ones one at a time), tags left open (deep trees), and formatting tags left open
 * across paragraphs (the HTML parser opens them again in every later paragraph).
 *
 * An estimate, not a parser: a tag is read up to its `>` or the end of its line, and every element
 * that is not void is taken to nest until its end tag, even where the HTML parser would close it
 * itself (elements whose end tag is optional, such as `p`, `li` or `td`, do not count as nesting).
 */

/** Void elements: never nest. */
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'keygen', 'link', 'meta', 'param', 'source', 'track', 'wbr']);
/** Elements the parser ends by itself at the next sibling or the parent's end: not counted as nesting. */
const OPTIONAL_END = new Set([
  'p',
  'li',
  'dt',
  'dd',
  'option',
  'optgroup',
  'tr',
  'td',
  'th',
  'thead',
  'tbody',
  'tfoot',
  'colgroup',
  'caption',
  'rb',
  'rt',
  'rtc',
  'rp',
  'html',
  'head',
  'body',
]);
/** Formatting elements: the HTML parser reopens those left open in each later paragraph. */
const FORMATTING = new Set(['a', 'b', 'big', 'code', 'em', 'font', 'i', 'nobr', 's', 'small', 'strike', 'strong', 'tt', 'u']);

const GREATER_THAN = 62;
const SLASH = 47;
const EXCLAMATION = 33;
const QUESTION = 63;
const NEWLINE = 10;
const EQUALS = 61;
const DOUBLE_QUOTE = 34;
const SINGLE_QUOTE = 39;

export class RawHtmlTags {
  /** Tags, end tags, comments and declarations read. */
  tags = 0;
  attributes = 0;
  /** Elements opened and not yet ended (see the module's note), now and at most. */
  open = 0;
  deepest = 0;
  /** Formatting elements open now, and the sum of those open at each paragraph's start. */
  openFormatting = 0;
  carried = 0;

  /** Ready for another answer. */
  reset(): void {
    this.tags = 0;
    this.attributes = 0;
    this.open = 0;
    this.deepest = 0;
    this.openFormatting = 0;
    this.carried = 0;
  }

  /** True when `text[index]` starts something the HTML parser reads as markup. */
  static startsTag(text: string, index: number): boolean {
    const next = text.charCodeAt(index + 1);
    if (isLetter(next) || next === EXCLAMATION || next === QUESTION) return true;
    return next === SLASH && isLetter(text.charCodeAt(index + 2));
  }

  /** Called at the first line of each paragraph. */
  paragraph(): void {
    this.carried += this.openFormatting;
  }

  /** Reads the tag at `index` (a `<` for which `startsTag` holds); returns the index after it. */
  read(text: string, index: number): number {
    this.tags++;
    let at = index + 1;
    const first = text.charCodeAt(at);
    if (first === EXCLAMATION || first === QUESTION) return endOfDeclaration(text, at);
    const closing = text.charCodeAt(at) === SLASH;
    if (closing) at++;
    const nameStart = at;
    while (at < text.length && isNameChar(text.charCodeAt(at))) at++;
    const name = text.slice(nameStart, at).toLowerCase();
    at = this.attributesUntilEnd(text, at);
    const selfClosing = text.charCodeAt(at - 1) === GREATER_THAN && text.charCodeAt(at - 2) === SLASH;
    if (name === '' || VOID.has(name) || OPTIONAL_END.has(name)) return at;
    if (closing) {
      if (this.open > 0) this.open--;
      if (FORMATTING.has(name) && this.openFormatting > 0) this.openFormatting--;
    } else if (!selfClosing) {
      this.open++;
      if (this.open > this.deepest) this.deepest = this.open;
      if (FORMATTING.has(name)) this.openFormatting++;
    }
    return at;
  }

  /** Counts attributes up to the tag's `>` (outside quotes) or its line's end; returns the index after. */
  private attributesUntilEnd(text: string, index: number): number {
    let quote = 0;
    let inName = false;
    let afterEquals = false;
    for (let at = index; at < text.length; at++) {
      const char = text.charCodeAt(at);
      if (char === NEWLINE) return at;
      if (quote !== 0) {
        if (char === quote) quote = 0;
        continue;
      }
      if (char === GREATER_THAN) return at + 1;
      if (afterEquals && (char === DOUBLE_QUOTE || char === SINGLE_QUOTE)) {
        quote = char;
        afterEquals = false;
        continue;
      }
      if (char === EQUALS) {
        afterEquals = true;
        inName = false;
        continue;
      }
      const space = char === 32 || char === 9 || char === 13 || char === 12;
      if (space) {
        inName = false;
      } else if (!inName && !afterEquals && char !== SLASH) {
        inName = true;
        this.attributes++;
      } else if (afterEquals) {
        // An unquoted value: read up to the next space (by the loop), not as a name.
        afterEquals = false;
        inName = true;
      }
    }
    return text.length;
  }
}

/** A comment, doctype or processing instruction: read up to its `>` or its line's end. */
function endOfDeclaration(text: string, index: number): number {
  for (let at = index; at < text.length; at++) {
    const char = text.charCodeAt(at);
    if (char === NEWLINE) return at;
    if (char === GREATER_THAN) return at + 1;
  }
  return text.length;
}

function isLetter(char: number): boolean {
  return (char >= 65 && char <= 90) || (char >= 97 && char <= 122);
}

function isNameChar(char: number): boolean {
  return isLetter(char) || (char >= 48 && char <= 57) || char === 45;
}
