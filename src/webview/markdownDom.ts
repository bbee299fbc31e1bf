/**
 * Builds an answer's DOM straight from marked's tokens, for the common answer with no raw HTML in
 * it: server text only ever becomes text nodes, and the only elements are the ones marked's own
 * renderer writes. This skips writing HTML, parsing it and walking every node to sanitise it, which
 * cost several times the Markdown parse itself on a long answer.
 *
 * The result is the DOM the sanitiser makes of marked's HTML for the same tokens (the webview tests
 * compare the two on many inputs), so it mirrors marked's `Renderer` step by step: the same
 * elements and text, the same entity decoding and URL cleaning, and every attribute value from the
 * server kept or dropped by the sanitiser's own rules (`keptAttribute`). One difference, on purpose:
 * no newline text nodes between blocks, which marked writes for readable HTML, which render as
 * nothing, and which would be a third of the nodes to create in a long answer.
 * Tokens it does not take (raw HTML, text marked left unescaped, anything unknown) make it give up:
 * the caller then sanitises marked's HTML instead.
 */
import type { MarkedToken, Token, Tokens } from 'marked';
import { keptAttribute } from './sanitiser';

/** What a task-list checkbox shows: an `<input>` would be removed by the sanitiser. */
export function taskMarker(checked: boolean): string {
  return checked ? '☑ ' : '☐ ';
}

/** The answer's DOM, or undefined when the tokens hold something only the sanitiser may judge. */
export function markdownFragment(tokens: readonly Token[]): DocumentFragment | undefined {
  const builder = new DomBuilder();
  try {
    builder.blocks(tokens);
  } catch (error) {
    if (error instanceof NotForTheBuilder) return undefined;
    throw error;
  }
  return builder.finish();
}

class NotForTheBuilder extends Error {}

/** A line break written as HTML (`<br>`, `<br/>`, `<br />`): common in table cells, safe to build. */
const LINE_BREAK_TAG = /^<br\s*\/?>$/i;

/** An HTML character reference that marked leaves for the browser to decode (see `escapeLikeMarked`). */
const CHARACTER_REFERENCE = /&(?:#\d{1,7}|#[Xx][a-fA-F0-9]{1,6}|\w+);/;

class DomBuilder {
  private readonly root = document.createDocumentFragment();
  private parent: Node = this.root;
  /** Text not yet written: adjacent pieces become one text node, as in parsed HTML. */
  private pendingText = '';
  private inLink = false;
  /** The sanitiser's verdicts so far: answers repeat their links and code languages. */
  private readonly keptAttributes = new Map<string, string | null>();

  // Indexed loops throughout: this runs for every token of answers up to megabytes long.
  blocks(tokens: readonly Token[]): void {
    for (let index = 0; index < tokens.length; index++) this.block(tokens[index] as MarkedToken);
  }

  finish(): DocumentFragment {
    this.flushText();
    return this.root;
  }

  private block(token: MarkedToken): void {
    switch (token.type) {
      case 'space':
      case 'def':
        return;
      case 'hr':
        this.leaf('hr');
        return;
      case 'heading':
        this.open(`h${token.depth}` as 'h1');
        this.inline(token.tokens);
        this.close();
        return;
      case 'code':
        this.code(token);
        return;
      case 'table':
        this.table(token);
        return;
      case 'blockquote':
        this.open('blockquote');
        this.blocks(token.tokens);
        this.close();
        return;
      case 'list':
        this.list(token);
        return;
      case 'checkbox':
        this.text(taskMarker(token.checked));
        return;
      case 'paragraph':
        this.open('p');
        this.inline(token.tokens);
        this.close();
        return;
      case 'text':
        this.textToken(token);
        return;
      default:
        // Raw HTML blocks, and token types an extension might add.
        throw new NotForTheBuilder();
    }
  }

  private inline(tokens: readonly Token[]): void {
    for (let index = 0; index < tokens.length; index++) {
      const token = tokens[index] as MarkedToken;
      switch (token.type) {
        case 'escape':
        case 'text':
          this.textToken(token);
          break;
        case 'html':
          if (!LINE_BREAK_TAG.test(token.text)) throw new NotForTheBuilder();
          this.leaf('br');
          break;
        case 'link':
          this.link(token);
          break;
        case 'image':
          this.image(token);
          break;
        case 'checkbox':
          this.text(taskMarker(token.checked));
          break;
        case 'strong':
        case 'em':
        case 'del':
          this.open(token.type);
          this.inline(token.tokens);
          this.close();
          break;
        case 'codespan':
          this.leaf('code').textContent = token.text;
          break;
        case 'br':
          this.leaf('br');
          break;
        default:
          throw new NotForTheBuilder();
      }
    }
  }

  /** marked escapes text but leaves character references (`&amp;`, `&#x3C;`) for the browser. */
  private textToken(token: Tokens.Text | Tokens.Escape): void {
    if ('tokens' in token && token.tokens) {
      this.inline(token.tokens);
      return;
    }
    // Text marked marks as escaped already is raw HTML (inside an HTML block): the sanitiser's.
    if ('escaped' in token && token.escaped) throw new NotForTheBuilder();
    this.text(decodedText(token.text));
  }

  private code(token: Tokens.Code): void {
    if (token.escaped) throw new NotForTheBuilder();
    const language = (token.lang || '').match(/^\S*/)?.[0];
    const text = token.text ? `${token.text.replace(/\n$/, '')}\n` : '';
    this.open('pre');
    const code = this.open('code');
    if (language) this.attribute(code, 'class', decodedAttribute(`language-${language}`));
    this.text(text);
    this.close();
    this.close();
  }

  private list(token: Tokens.List): void {
    const list = this.open(token.ordered ? 'ol' : 'ul');
    // `start` and `align` come from marked's own parse (a number, an alignment keyword), not as text.
    if (token.ordered && token.start !== 1) list.setAttribute('start', String(token.start));
    for (let index = 0; index < token.items.length; index++) {
      const item = token.items[index]!;
      this.open('li');
      this.blocks(item.tokens);
      this.close();
    }
    this.close();
  }

  private table(token: Tokens.Table): void {
    this.open('table');
    this.open('thead');
    this.tableRow(token.header);
    this.close();
    if (token.rows.length > 0) {
      this.open('tbody');
      for (let index = 0; index < token.rows.length; index++) this.tableRow(token.rows[index]!);
      this.close();
    }
    this.close();
  }

  private tableRow(cells: readonly Tokens.TableCell[]): void {
    this.open('tr');
    for (let index = 0; index < cells.length; index++) {
      const cell = cells[index]!;
      const element = this.open(cell.header ? 'th' : 'td');
      if (cell.align) element.setAttribute('align', cell.align);
      this.inline(cell.tokens);
      this.close();
    }
    this.close();
  }

  private link(token: Tokens.Link): void {
    const href = cleanUrl(token.href);
    if (href === null) {
      if (token.autolink) this.text(token.text);
      else this.inline(token.tokens);
      return;
    }
    // A link in a link is for the HTML parser to untangle, as it would the sanitiser's input.
    if (this.inLink) throw new NotForTheBuilder();
    const link = this.open('a');
    // Autolinks are literal; marked leaves character references in other destinations.
    this.attribute(link, 'href', token.autolink ? href : decodedAttribute(href));
    if (token.title) this.attribute(link, 'title', decodedAttribute(token.title));
    this.inLink = true;
    if (token.autolink) this.text(token.text);
    else this.inline(token.tokens);
    this.inLink = false;
    this.close();
  }

  private image(token: Tokens.Image): void {
    const alt = token.tokens ? plainText(token.tokens) : token.text;
    const src = cleanUrl(token.href);
    if (src === null) {
      this.text(decodedText(alt));
      return;
    }
    const image = this.leaf('img');
    this.attribute(image, 'src', decodedAttribute(src));
    this.attribute(image, 'alt', decodedAttribute(alt));
    if (token.title) this.attribute(image, 'title', decodedAttribute(token.title));
  }

  /** Sets a server-supplied attribute only as the sanitiser would keep it. */
  private attribute(element: Element, name: string, value: string): void {
    const key = `${element.localName} ${name} ${value}`;
    let kept = this.keptAttributes.get(key);
    if (kept === undefined) {
      kept = keptAttribute(element.localName, name, value) ?? null;
      this.keptAttributes.set(key, kept);
    }
    if (kept !== null) element.setAttribute(name, kept);
  }

  private text(text: string): void {
    this.pendingText += text;
  }

  private open<K extends keyof HTMLElementTagNameMap>(tag: K): HTMLElementTagNameMap[K] {
    const element = this.leaf(tag);
    this.parent = element;
    return element;
  }

  private leaf<K extends keyof HTMLElementTagNameMap>(tag: K): HTMLElementTagNameMap[K] {
    this.flushText();
    const element = document.createElement(tag);
    this.parent.appendChild(element);
    return element;
  }

  private close(): void {
    this.flushText();
    this.parent = this.parent.parentNode!;
  }

  private flushText(): void {
    if (this.pendingText === '') return;
    this.parent.appendChild(document.createTextNode(this.pendingText));
    this.pendingText = '';
  }
}

/** What marked's text renderer makes of inline tokens (an image's alt text): their plain text. */
function plainText(tokens: readonly Token[]): string {
  let text = '';
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index] as MarkedToken;
    switch (token.type) {
      case 'strong':
      case 'em':
      case 'del':
      case 'link':
      case 'image':
        text += token.tokens ? plainText(token.tokens) : token.text;
        break;
      case 'br':
        text += '\n';
        break;
      case 'checkbox':
        text += token.raw;
        break;
      case 'codespan':
      case 'html':
      case 'text':
      case 'escape':
        text += token.text;
        break;
      default:
        throw new NotForTheBuilder();
    }
  }
  return text;
}

/** marked's URL cleaning: percent-encoded, or null (shown without a link) when it cannot be. */
function cleanUrl(href: string): string | null {
  try {
    return encodeURI(href).replace(/%25/g, '%');
  } catch {
    return null;
  }
}

/**
 * Decoding by an HTML parser in an inert document (nothing in it loads or runs), only for the rare
 * strings holding a character reference: the browser's own decoding, legacy quirks included.
 */
let decoder: { text: HTMLTextAreaElement; attribute: HTMLElement } | undefined;

function inertDecoder(): NonNullable<typeof decoder> {
  if (!decoder) {
    const inert = document.implementation.createHTMLDocument('');
    decoder = { text: inert.createElement('textarea'), attribute: inert.createElement('div') };
  }
  return decoder;
}

/** The text a browser shows for marked's escaped rendering of `text`. */
function decodedText(text: string): string {
  if (!text.includes('&') || !CHARACTER_REFERENCE.test(text)) return text;
  // A textarea's content is parsed as text (RCDATA): references are decoded, tags are not parsed.
  const { text: textarea } = inertDecoder();
  textarea.innerHTML = escapeLikeMarked(text);
  return textarea.textContent ?? '';
}

/** The attribute value a browser reads from marked's escaped rendering of `value`. */
function decodedAttribute(value: string): string {
  if (!value.includes('&') || !CHARACTER_REFERENCE.test(value)) return value;
  // Decoded as an attribute, whose rules for references differ slightly from text's.
  const { attribute: holder } = inertDecoder();
  holder.innerHTML = `<i title="${escapeLikeMarked(value)}"></i>`;
  return holder.firstElementChild?.getAttribute('title') ?? '';
}

/** marked's escaping for text and attributes: `<>"'` and every `&` that is not a reference. */
function escapeLikeMarked(text: string): string {
  return text.replace(/[<>"']|&(?!(#\d{1,7}|#[Xx][a-fA-F0-9]{1,6}|\w+);)/g, (char) => ESCAPES[char]!);
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
