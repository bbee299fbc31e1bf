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
import { keptAttribute, neutralisedLinkTitle } from './sanitiser';

/** What a task-list checkbox shows: an `<input>` would be removed by the sanitiser. */
export function taskMarker(checked: boolean): string {
  return checked ? '☑ ' : '☐ ';
}

/**
 * Where a code block goes: `wrap` is given the block's `<pre>` (holding its `<code>`, built) and
 * its language (as the sanitiser would keep its `language-…` class, or ''), and returns the node to
 * put in its place, holding the `<pre>`: how the panel gives it a header without looking for it again.
 */
export type CodeBlockWrapper = (pre: HTMLPreElement, language: string) => Node;

/**
 * Builds the answer's DOM into `parent`, which must be empty; returns false, leaving `parent` empty
 * again, when the tokens hold something only the sanitiser may judge.
 */
export function buildMarkdown(tokens: readonly Token[], parent: Element | DocumentFragment, wrapCodeBlock?: CodeBlockWrapper): boolean {
  // One builder, reused (see `DomBuilder`); a new one only if a build were ever to start inside another.
  const builder = idleBuilder ?? new DomBuilder();
  idleBuilder = undefined;
  builder.start(parent, wrapCodeBlock);
  try {
    builder.blocks(tokens);
    builder.finish();
    return true;
  } catch (error) {
    if (!(error instanceof NotForTheBuilder)) throw error;
    parent.replaceChildren();
    return false;
  } finally {
    builder.release();
    idleBuilder = builder;
  }
}

let idleBuilder: DomBuilder | undefined;

class NotForTheBuilder extends Error {}

/** A line break written as HTML (`<br>`, `<br/>`, `<br />`): common in table cells, safe to build. */
const LINE_BREAK_TAG = /^<br\s*\/?>$/i;

/** An HTML character reference that marked leaves for the browser to decode (see `escapeLikeMarked`). */
const CHARACTER_REFERENCE = /&(?:#\d{1,7}|#[Xx][a-fA-F0-9]{1,6}|\w+);/;

/** A `language-…` class as the sanitiser keeps it: the language the code-block header shows. */
const LANGUAGE_CLASS = /^language-(.+)$/;

type Verdicts = Map<string, string | null>;

/**
 * Written for speed as much as for marked's likeness: it runs for every token of answers up to
 * megabytes long, and the panel's render of an answer is measured against `marked.parse` alone
 * (bench/figures/rendering.ts). So: indexed loops; the parent kept in a field and restored by the
 * caller, never read back from the DOM; one DOM call for an element's only text (`textContent`);
 * table cells cloned from prepared ones; an attribute value checked once per answer. And one
 * instance for every answer: V8 discards the optimised code of a class's methods once no object of
 * the class is left (its hidden class is collected), which would leave each answer to be built by
 * cold code after any full garbage collection.
 */
class DomBuilder {
  /** The page's document, read once: `document` is a getter of the window. */
  private readonly doc = document;
  /** What `parent` holds between builds: nothing of an answer is kept. */
  private readonly idle = this.doc.createDocumentFragment();
  private parent: Node = this.idle;
  /** True while `parent` has no child yet: its text, if that is all it holds, is one `textContent`. */
  private parentEmpty = true;
  /** Text not yet written: adjacent pieces become one text node, as in parsed HTML. */
  private pendingText = '';
  private inLink = false;
  private wrapCodeBlock: CodeBlockWrapper | undefined = undefined;
  /** The sanitiser's verdicts in this answer, per attribute: answers repeat their links and code languages. */
  private readonly hrefs: Verdicts = new Map();
  private readonly otherAttributes: Verdicts = new Map();
  /** Empty table cells to clone (see `cell`), their `align` set once. */
  private readonly cells: (HTMLTableCellElement | undefined)[] = [];

  start(parent: Element | DocumentFragment, wrapCodeBlock: CodeBlockWrapper | undefined): void {
    this.parent = parent;
    this.parentEmpty = true;
    this.pendingText = '';
    this.inLink = false;
    this.wrapCodeBlock = wrapCodeBlock;
  }

  release(): void {
    this.parent = this.idle;
    this.pendingText = '';
    this.wrapCodeBlock = undefined;
    this.hrefs.clear();
    this.otherAttributes.clear();
  }

  blocks(tokens: readonly Token[]): void {
    for (let index = 0; index < tokens.length; index++) this.block(tokens[index] as MarkedToken);
  }

  finish(): void {
    this.flushText();
  }

  private block(token: MarkedToken): void {
    switch (token.type) {
      case 'space':
      case 'def':
        return;
      case 'hr':
        this.leaf('hr');
        return;
      case 'heading': {
        const outer = this.open(this.doc.createElement(`h${token.depth}` as 'h1'));
        this.inline(token.tokens);
        this.close(outer);
        return;
      }
      case 'code':
        this.code(token);
        return;
      case 'table':
        this.table(token);
        return;
      case 'blockquote': {
        const outer = this.open(this.doc.createElement('blockquote'));
        this.blocks(token.tokens);
        this.close(outer);
        return;
      }
      case 'list':
        this.list(token);
        return;
      case 'checkbox':
        this.text(taskMarker(token.checked));
        return;
      case 'paragraph': {
        const outer = this.open(this.doc.createElement('p'));
        this.inline(token.tokens);
        this.close(outer);
        return;
      }
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
        case 'del': {
          const outer = this.open(this.doc.createElement(token.type));
          this.inline(token.tokens);
          this.close(outer);
          break;
        }
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
    // Plain property reads (no `in`): tokens come in many shapes.
    const inner = (token as Tokens.Text).tokens;
    if (inner) {
      this.inline(inner);
      return;
    }
    // Text marked marks as escaped already is raw HTML (inside an HTML block): the sanitiser's.
    if ((token as Tokens.Text).escaped) throw new NotForTheBuilder();
    this.text(decodedText(token.text));
  }

  private code(token: Tokens.Code): void {
    if (token.escaped) throw new NotForTheBuilder();
    const language = (token.lang || '').match(/^\S*/)?.[0];
    const pre = this.doc.createElement('pre');
    const code = this.doc.createElement('code');
    const kept = language ? this.attribute(code, 'code', 'class', decodedAttribute(`language-${language}`), this.otherAttributes) : null;
    // The code's one text node, set at once (text pending before the block goes in first, in `append`).
    if (token.text) code.textContent = `${token.text.replace(/\n$/, '')}\n`;
    pre.appendChild(code);
    this.append(this.wrapCodeBlock ? this.wrapCodeBlock(pre, kept ? (LANGUAGE_CLASS.exec(kept)?.[1] ?? '') : '') : pre);
  }

  private list(token: Tokens.List): void {
    const list = this.doc.createElement(token.ordered ? 'ol' : 'ul');
    // `start` and `align` come from marked's own parse (a number, an alignment keyword), not as text.
    if (token.ordered && token.start !== 1) list.setAttribute('start', String(token.start));
    const outer = this.open(list);
    for (let index = 0; index < token.items.length; index++) {
      const inList = this.open(this.doc.createElement('li'));
      this.blocks(token.items[index].tokens);
      this.close(inList);
    }
    this.close(outer);
  }

  private table(token: Tokens.Table): void {
    const outer = this.open(this.doc.createElement('table'));
    const inTable = this.open(this.doc.createElement('thead'));
    this.tableRow(token.header);
    this.close(inTable);
    if (token.rows.length > 0) {
      this.open(this.doc.createElement('tbody'));
      for (let index = 0; index < token.rows.length; index++) this.tableRow(token.rows[index]);
      this.close(inTable);
    }
    this.close(outer);
  }

  private tableRow(cells: readonly Tokens.TableCell[]): void {
    const outer = this.open(this.doc.createElement('tr'));
    for (let index = 0; index < cells.length; index++) {
      const cell = cells[index];
      const inRow = this.open(this.cell(cell.header, cell.align));
      this.inline(cell.tokens);
      this.close(inRow);
    }
    this.close(outer);
  }

  private cell(header: boolean, align: Tokens.TableCell['align']): HTMLTableCellElement {
    const index = (header ? 4 : 0) + (align === 'left' ? 1 : align === 'center' ? 2 : align === 'right' ? 3 : 0);
    let cell = this.cells[index];
    if (!cell) {
      cell = this.doc.createElement(header ? 'th' : 'td');
      if (align) cell.setAttribute('align', align);
      this.cells[index] = cell;
    }
    return cell.cloneNode(false) as HTMLTableCellElement;
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
    const link = this.doc.createElement('a');
    // Autolinks are literal; marked leaves character references in other destinations.
    const kept = this.attribute(link, 'a', 'href', token.autolink ? href : decodedAttribute(href), this.hrefs);
    if (token.title) this.attribute(link, 'a', 'title', decodedAttribute(token.title), this.otherAttributes);
    // As the sanitiser marks a link whose address it removed.
    if (kept === null) link.setAttribute('title', neutralisedLinkTitle());
    const outer = this.open(link);
    this.inLink = true;
    if (token.autolink) this.text(token.text);
    else this.inline(token.tokens);
    this.inLink = false;
    this.close(outer);
  }

  private image(token: Tokens.Image): void {
    const alt = token.tokens ? plainText(token.tokens) : token.text;
    const src = cleanUrl(token.href);
    if (src === null) {
      this.text(decodedText(alt));
      return;
    }
    const image = this.leaf('img');
    this.attribute(image, 'img', 'src', decodedAttribute(src), this.otherAttributes);
    this.attribute(image, 'img', 'alt', decodedAttribute(alt), this.otherAttributes);
    if (token.title) this.attribute(image, 'img', 'title', decodedAttribute(token.title), this.otherAttributes);
  }

  /**
   * Sets a server-supplied attribute of `element` (a `tag`) only as the sanitiser would keep it,
   * and returns what it set (null: nothing).
   */
  private attribute(element: Element, tag: string, name: string, value: string, verdicts: Verdicts): string | null {
    // The other attributes share one cache: their key names the element and attribute too.
    const key = verdicts === this.hrefs ? value : `${tag} ${name} ${value}`;
    let kept = verdicts.get(key);
    if (kept === undefined) {
      kept = keptAttribute(tag, name, value) ?? null;
      verdicts.set(key, kept);
    }
    if (kept !== null) element.setAttribute(name, kept);
    return kept;
  }

  private text(text: string): void {
    this.pendingText += text;
  }

  /** Appends `element` and makes it the parent; returns the parent before it, for `close`. */
  private open(element: Element): Node {
    const parent = this.parent;
    this.append(element);
    this.parent = element;
    this.parentEmpty = true;
    return parent;
  }

  /** Ends the element `open` started: `outer` is what it returned. */
  private close(outer: Node): void {
    this.flushText();
    this.parent = outer;
    this.parentEmpty = false;
  }

  private leaf<K extends keyof HTMLElementTagNameMap>(tag: K): HTMLElementTagNameMap[K] {
    const element = this.doc.createElement(tag);
    this.append(element);
    return element;
  }

  private append(node: Node): void {
    this.flushText();
    this.parent.appendChild(node);
    this.parentEmpty = false;
  }

  private flushText(): void {
    if (this.pendingText === '') return;
    if (this.parentEmpty) this.parent.textContent = this.pendingText;
    else this.parent.appendChild(this.doc.createTextNode(this.pendingText));
    this.parentEmpty = false;
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

/**
 * Only characters `encodeURI` leaves as they are, and `%`, which it encodes as `%25` and marked's
 * cleaning turns back: `cleanUrl` would return such a URL unchanged.
 */
const URI_AS_IS = /^[\w;,/?:@&=+$.!~*'()#%-]*$/;

/** marked's URL cleaning: percent-encoded, or null (shown without a link) when it cannot be. */
function cleanUrl(href: string): string | null {
  // Most links hold nothing `encodeURI` would change.
  if (URI_AS_IS.test(href)) return href;
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
  return text.replace(/[<>"']|&(?!(#\d{1,7}|#[Xx][a-fA-F0-9]{1,6}|\w+);)/g, (char) => ESCAPES[char]);
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
