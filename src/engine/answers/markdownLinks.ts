/**
 * An answer's links as the panel sees them: one parse with marked (GFM, as src/webview/markdown.ts
 * configures it), every form found (inline with or without a title, `<…>` destinations, images,
 * reference links and their definitions, autolinks, bare URLs, `href`s of raw HTML), each with
 * where it stands in the text, so that it can be rewritten. Code spans and blocks hold no links.
 *
 * marked's tokens carry their source (`raw`) but no offsets: the walk keeps a cursor over the text
 * and finds each token's source at or just after it, in document order. Inside quotes and list
 * items marked reads lines without their markers and indentation, so a source over several lines
 * is matched line by line with those left out. Bounded: e-mail addresses are not looked for
 * (marked's rule for them is superlinear in runs of word characters), emphasis only when its
 * delimiters are few, nesting is measured before parsing, and the search for sources is charged to
 * a budget.
 */
import { Lexer, Marked, type Token, type Tokens } from 'marked';

export type LinkForm = 'inline' | 'reference' | 'image' | 'autolink' | 'url' | 'definition' | 'html';

export interface MarkdownLink {
  form: LinkForm;
  /** The link's source in the text: `[label](url)`, `<url>`, the URL, the definition, or an HTML attribute's value. */
  start: number;
  end: number;
  /** The destination as marked resolved it (escapes and entities read, not percent-decoded). */
  href: string;
  title?: string;
  /** The label's source (`[label]`), the alt text of an image, or the URL of an autolink. */
  label: string;
  /** For a definition: the label it defines, as written. */
  tag?: string;
}

export type LinkScan = { links: MarkdownLink[] } | { unreadable: string };

/** Nesting of lists and quotes on a line, and text nested deeply times its depth: marked reads such a line once per level. */
const MAX_NESTING = 64;
const MAX_DEEP_TEXT = 8_000_000;
/** How far past the cursor a token's source is looked for. */
const SEARCH_WINDOW = 8 * 1024;
/** Characters searched for sources, per character of the answer. */
const SEARCH_WORK_PER_CHAR = 64;

/** Emphasis delimiters (`*`, `_`, `~`) in one paragraph, and their count times the paragraph's length over the answer. */
const MAX_DELIMITERS_PER_PARAGRAPH = 500;
const MAX_EMPHASIS_COST = 50_000_000;

/** marked's GFM text rule without its e-mail lookaheads, which scan a whole run of word characters at every stop in it. */
const INLINE_TEXT =
  /^(`+|~+|[^`~])(?:(?=[`~])|(?= {2,}\n)|[\s\S]*?(?:(?=[\\<!\[`*~_]|\b_|[hH][tT][tT][pP][sS]?:\/\/|[fF][tT][pP]:\/\/|(?<![^\s*_~(])www\.|$)|[^ ](?= {2,}\n)))/;
const URL_START = /^(?:[hH][tT][tT][pP][sS]?:\/\/|[fF][tT][pP]:\/\/|www\.)/;
/** The panel's marked (GFM), but for e-mail addresses: they are not links into a repository, and finding them is costly. */
const markdown = new Marked({ gfm: true, breaks: false, async: false });
markdown.use({
  tokenizer: {
    url: (src) => (URL_START.test(src) ? false : undefined),
    inlineText(src) {
      const match = INLINE_TEXT.exec(src);
      return match ? { type: 'text', raw: match[0], text: match[0], escaped: false } : undefined;
    },
  },
});
/**
 * The same without emphasis, for answers whose delimiters would cost marked more than linear time:
 * emphasis changes no link but where a bare address ends before a delimiter (a link read longer is
 * one that is not found, and the check fails closed on it).
 */
const plainMarkdown = new Marked({ gfm: true, breaks: false, async: false });
plainMarkdown.use({
  tokenizer: {
    emStrong: () => undefined,
    del: () => undefined,
    url: (src) => (URL_START.test(src) ? false : undefined),
    inlineText(src) {
      const match = INLINE_TEXT.exec(src);
      return match ? { type: 'text', raw: match[0], text: match[0], escaped: false } : undefined;
    },
  },
});

const INLINE_LINK = Lexer.rules.inline.gfm.link;
const REFERENCE_LINK = Lexer.rules.inline.gfm.reflink;
const SHORTCUT_LINK = Lexer.rules.inline.gfm.nolink;
const DEFINITION_TAG = /^ {0,3}\[((?:\\[\s\S]|[^\\\[\]])+)\]:/;
const HTML_HREF = /(\shref\s*=\s*)("([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/gi;

/** The answer's links in order, or why it cannot be read as Markdown within bounds. */
export function markdownLinks(text: string): LinkScan {
  const tooNested = nestingCost(text);
  if (tooNested) return { unreadable: tooNested };
  let tokens: Token[];
  try {
    tokens = (emphasisIsCheap(text) ? markdown : plainMarkdown).lexer(text);
  } catch {
    return { unreadable: 'it could not be read as Markdown' };
  }
  const walk = new SourceWalk(text);
  walk.tokens(tokens);
  return walk.spent ? { unreadable: 'its Markdown took too long to follow' } : { links: walk.links };
}

/** Whether marked's emphasis pass stays near linear: few delimiters per paragraph, each scanning at most its paragraph. */
function emphasisIsCheap(text: string): boolean {
  let cost = 0;
  let start = 0;
  let delimiters = 0;
  for (let at = 0; at <= text.length; at++) {
    const char = text.charCodeAt(at);
    if (char === 42 || char === 95 || char === 126) delimiters++;
    // A paragraph ends at a blank line (or the end).
    const blank = char === 10 && /^[ \t]*(?:\n|$)/.test(text.slice(at + 1, at + 81));
    if (blank || at === text.length) {
      if (delimiters > MAX_DELIMITERS_PER_PARAGRAPH) return false;
      cost += delimiters * (at - start);
      if (cost > MAX_EMPHASIS_COST) return false;
      start = at + 1;
      delimiters = 0;
    }
  }
  return true;
}

/** Why the answer is nested too deeply to parse (lists and quotes, by markers and indentation), if it is. */
function nestingCost(text: string): string | undefined {
  let deep = 0;
  let at = 0;
  while (at < text.length) {
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    let level = 0;
    let columns = 0;
    let pos = at;
    for (; pos < end; pos++) {
      const char = text.charCodeAt(pos);
      if (char === 32) columns++;
      else if (char === 9) columns += 4;
      else if (char === 62) level++;
      else if ((char === 45 || char === 42 || char === 43) && (pos + 1 === end || text.charCodeAt(pos + 1) === 32 || text.charCodeAt(pos + 1) === 9)) level++;
      else if (char >= 48 && char <= 57) {
        // An ordered list's marker: digits, then `.` or `)`.
        let digits = pos;
        while (digits < end && digits - pos < 9 && text.charCodeAt(digits) >= 48 && text.charCodeAt(digits) <= 57) digits++;
        const mark = text.charCodeAt(digits);
        if (mark !== 46 && mark !== 41) break;
        level++;
        pos = digits;
      } else break;
    }
    level += Math.floor(columns / 2);
    if (level > MAX_NESTING) return `it nests lists or quotes more than ${MAX_NESTING} levels deep`;
    if (level > 4) deep += (end - at) * (level - 4);
    if (deep > MAX_DEEP_TEXT) return 'it nests too much of its text in lists or quotes';
    at = end + 1;
  }
  return undefined;
}

/** Walks marked's tokens in document order, finding each one's source in the text. */
class SourceWalk {
  readonly links: MarkdownLink[] = [];
  spent = false;
  private cursor = 0;
  private work: number;

  constructor(private readonly text: string) {
    this.work = SEARCH_WORK_PER_CHAR * text.length + SEARCH_WINDOW;
  }

  tokens(tokens: readonly Token[]): void {
    for (const token of tokens) {
      if (this.spent) return;
      this.token(token);
    }
  }

  private token(token: Token): void {
    switch (token.type) {
      case 'link':
      case 'image':
        this.link(token as Tokens.Link | Tokens.Image);
        return;
      case 'def':
        this.definition(token as Tokens.Def);
        return;
      case 'html':
        this.html(token as Tokens.HTML);
        return;
      case 'table': {
        const table = token as Tokens.Table;
        for (const cell of table.header) this.tokens(cell.tokens);
        for (const row of table.rows) for (const cell of row) this.tokens(cell.tokens);
        return;
      }
      case 'list':
        this.tokens((token as Tokens.List).items);
        return;
      default: {
        const children = (token as { tokens?: Token[] }).tokens;
        if (children) this.tokens(children);
        else this.locate(token.raw);
      }
    }
  }

  private link(token: Tokens.Link | Tokens.Image): void {
    const found = this.locate(token.raw);
    if (!found) return;
    this.links.push(linkAt(token, found));
    // A label can hold links of its own (an autolink, an image), which the panel shows as links too.
    if (token.type === 'link' && token.autolink) return;
    this.cursor = found.start;
    this.tokens(token.tokens);
    this.cursor = Math.max(this.cursor, found.end);
  }

  private definition(token: Tokens.Def): void {
    const found = this.locate(token.raw);
    if (!found) return;
    const tag = DEFINITION_TAG.exec(token.raw)?.[1] ?? token.tag;
    this.links.push({ form: 'definition', ...found, href: decodeReferences(token.href), ...(token.title ? { title: token.title } : {}), label: '', tag });
  }

  /** Raw HTML the panel keeps: an `<a href>` is a link as much as Markdown's. */
  private html(token: Tokens.HTML): void {
    const found = this.locate(token.raw);
    if (!found || !/\shref\s*=/i.test(token.raw)) return;
    const source = this.text.slice(found.start, found.end);
    for (const match of source.matchAll(HTML_HREF)) {
      const value = match[3] ?? match[4] ?? match[5] ?? '';
      const quoted = match[3] !== undefined || match[4] !== undefined ? 1 : 0;
      const start = found.start + match.index + (match[1] ?? '').length + quoted;
      this.links.push({ form: 'html', start, end: start + value.length, href: decodeReferences(value), label: '' });
    }
  }

  /** Where `raw` stands at or after the cursor (the cursor then moves past it), if it can be found. */
  private locate(raw: string): { start: number; end: number } | undefined {
    if (raw === '') return undefined;
    const found = raw.includes('\n') ? this.byLines(raw) : raw.includes('|') ? this.inCell(raw) : this.exact(raw);
    if (found) this.cursor = found.end;
    return found;
  }

  private exact(raw: string): { start: number; end: number } | undefined {
    const at = this.search(raw, this.cursor);
    return at === undefined ? undefined : { start: at, end: at + raw.length };
  }

  /** `raw` from a table's cell, where marked reads `\\|` as `|`. */
  private inCell(raw: string): { start: number; end: number } | undefined {
    const pipe = raw.indexOf('|');
    let start = this.search(pipe > 0 ? raw.slice(0, pipe) : '|', this.cursor);
    if (start === undefined) return undefined;
    if (pipe === 0 && this.text.charCodeAt(start - 1) === 92) start--;
    let at = start;
    for (let index = 0; index < raw.length; index++, at++) {
      if (raw.charCodeAt(index) === 124 && this.text.charCodeAt(at) === 92 && this.text.charCodeAt(at + 1) === 124) at++;
      if (this.text.charCodeAt(at) !== raw.charCodeAt(index)) return undefined;
    }
    this.charge(raw.length);
    return { start, end: at };
  }

  /**
   * `raw` over several lines, matched line by line with the markers and indentation at their starts
   * left out on both sides (a quote's or a list item's lines lose them in marked's reading).
   */
  private byLines(raw: string): { start: number; end: number } | undefined {
    const lines = raw.split('\n').map((line) => line.replace(/^[ \t>]+/, ''));
    const first = lines[0] ?? '';
    let from = this.cursor;
    for (let attempt = 0; attempt < 3; attempt++) {
      const start = first === '' ? from : this.search(first, from);
      if (start === undefined) return undefined;
      const end = this.linesFrom(lines, start + first.length);
      if (end !== undefined) return { start, end };
      if (first === '') return undefined;
      from = start + 1;
    }
    return undefined;
  }

  /** Where the lines after the first end, matched from `at` (the end of the first), if they match. */
  private linesFrom(lines: readonly string[], at: number): number | undefined {
    for (let index = 1; index < lines.length; index++) {
      if (this.text.charCodeAt(at) !== 10) return undefined;
      at++;
      const line = lines[index] ?? '';
      let skipped = at;
      while (skipped < this.text.length && /[ \t>]/.test(this.text.charAt(skipped))) skipped++;
      // An empty line ends where its markers do only if nothing else follows them (else it is the next token's indentation).
      if (line !== '' || skipped === this.text.length || this.text.charCodeAt(skipped) === 10) at = skipped;
      this.charge(line.length + 1);
      if (!this.text.startsWith(line, at)) return undefined;
      at += line.length;
    }
    return at;
  }

  /** Where `needle` starts within the window past `from`, its cost charged to the budget. */
  private search(needle: string, from: number): number | undefined {
    const window = this.text.slice(from, from + SEARCH_WINDOW + needle.length);
    const at = window.indexOf(needle);
    this.charge(at < 0 ? window.length : at + needle.length);
    return at < 0 ? undefined : from + at;
  }

  private charge(chars: number): void {
    this.work -= chars;
    if (this.work < 0) this.spent = true;
  }
}

function linkAt(token: Tokens.Link | Tokens.Image, found: { start: number; end: number }): MarkdownLink {
  const image = token.type === 'image';
  const autolink = token.type === 'link' && token.autolink === true;
  const base = {
    start: found.start,
    end: found.end,
    href: autolink ? token.href : decodeReferences(token.href),
    ...(token.title ? { title: token.title } : {}),
  };
  if (autolink) return { form: token.raw.startsWith('<') ? 'autolink' : 'url', ...base, label: token.text };
  const inline = INLINE_LINK.exec(token.raw);
  if (inline?.[0] === token.raw) return { form: image ? 'image' : 'inline', ...base, label: inline[1] ?? '' };
  const reference = REFERENCE_LINK.exec(token.raw) ?? SHORTCUT_LINK.exec(token.raw);
  return { form: image ? 'image' : 'reference', ...base, label: reference?.[1] ?? token.text };
}

/** Named character references that stand for ASCII characters, the ones that can spell an address. */
const ASCII_REFERENCES: Readonly<Record<string, string>> = {
  Tab: '\t',
  NewLine: '\n',
  excl: '!',
  quot: '"',
  QUOT: '"',
  num: '#',
  dollar: '$',
  percnt: '%',
  amp: '&',
  AMP: '&',
  apos: "'",
  lpar: '(',
  rpar: ')',
  ast: '*',
  midast: '*',
  plus: '+',
  comma: ',',
  period: '.',
  sol: '/',
  colon: ':',
  semi: ';',
  lt: '<',
  LT: '<',
  equals: '=',
  gt: '>',
  GT: '>',
  quest: '?',
  commat: '@',
  lsqb: '[',
  lbrack: '[',
  bsol: '\\',
  rsqb: ']',
  rbrack: ']',
  Hat: '^',
  lowbar: '_',
  UnderBar: '_',
  grave: '`',
  DiacriticalGrave: '`',
  lcub: '{',
  lbrace: '{',
  verbar: '|',
  vert: '|',
  VerticalLine: '|',
  rcub: '}',
  rbrace: '}',
};
/** The ones a browser reads without their `;`, too. */
const LEGACY = new Set(['amp', 'AMP', 'lt', 'LT', 'gt', 'GT', 'quot', 'QUOT']);

/**
 * A destination as the panel's browser reads it: marked leaves character references in it (but
 * for autolinks), and the browser decodes them in the attribute.
 */
export function decodeReferences(value: string): string {
  if (!value.includes('&')) return value;
  return value.replace(
    /&(?:#(\d{1,8})|#[xX]([0-9a-fA-F]{1,7})|([A-Za-z][A-Za-z0-9]{1,31}))(;?)/g,
    (whole, dec?: string, hex?: string, name?: string, semi?: string) => {
      if (dec !== undefined || hex !== undefined) {
        const code = dec !== undefined ? Number(dec) : parseInt(hex ?? '', 16);
        return String.fromCodePoint(code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? code : 0xfffd);
      }
      const char = name !== undefined ? ASCII_REFERENCES[name] : undefined;
      return char !== undefined && (semi === ';' || LEGACY.has(name ?? '')) ? char : whole;
    },
  );
}
