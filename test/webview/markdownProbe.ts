/**
 * Page-side probe for the Markdown tests, built into a script of its own (see `probeEntry` in
 * panelHarness.ts), so the shipped bundle exposes nothing. It renders Markdown with the panel's own
 * modules in the real page, both ways.
 */
import { renderMarkdown, renderMarkdownInto, renderMarkdownSanitised } from '../../src/webview/markdown';

export interface MarkdownDom {
  html: string;
  /** Counted apart: markup alone would not show two adjacent text nodes where parsing makes one. */
  textNodes: number;
}

export interface MarkdownRendering extends MarkdownDom {
  /** False when `renderMarkdown` handed the answer to the sanitiser (its DOM is the sanitiser's). */
  built: boolean;
}

export interface MarkdownProbe {
  /** What the panel shows: `renderMarkdown`. */
  render(markdown: string): MarkdownRendering;
  /** What the panel puts in an answer's container: `renderMarkdownInto`, without code-block headers. */
  renderInto(markdown: string): MarkdownDom;
  /** marked's HTML through the sanitiser, as every answer was rendered before the DOM builder. */
  sanitised(markdown: string): MarkdownDom;
  /** The same less the newlines marked writes between blocks: they render as nothing, and the builder leaves them out. */
  sanitisedWithoutBlockNewlines(markdown: string): MarkdownDom;
  /** Where every element of the answer lands when shown with the panel's styles, either way. */
  layout(markdown: string, way: 'rendered' | 'sanitised'): string[];
}

declare global {
  interface Window {
    __markdownProbe: MarkdownProbe;
  }
}

const BLOCKS = new Set(['P', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'UL', 'OL', 'LI', 'PRE', 'BLOCKQUOTE', 'HR', 'TABLE', 'THEAD', 'TBODY', 'TR', 'TH', 'TD']);
/** Containers whose children marked writes only as blocks, after a newline. */
const BLOCK_CONTAINERS = new Set(['UL', 'OL', 'BLOCKQUOTE', 'TABLE', 'THEAD', 'TBODY', 'TR']);

/** Removes the newlines that start a text node right after a block, or first in a block container. */
function withoutBlockNewlines(fragment: DocumentFragment): DocumentFragment {
  const walker = document.createTreeWalker(fragment, NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  while (walker.nextNode()) texts.push(walker.currentNode as Text);
  for (const text of texts) {
    const previous = text.previousSibling;
    const afterBlock = previous ? BLOCKS.has(previous.nodeName) : BLOCK_CONTAINERS.has(text.parentNode?.nodeName ?? '') || text.parentNode === fragment;
    if (!afterBlock) continue;
    text.data = text.data.replace(/^\n+/, '');
    if (text.data === '') text.remove();
  }
  return fragment;
}

function serialise(fragment: DocumentFragment): MarkdownDom {
  const container = document.createElement('div');
  container.append(fragment);
  let textNodes = 0;
  const walker = document.createTreeWalker(container, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) textNodes++;
  return { html: container.innerHTML, textNodes };
}

window.__markdownProbe = {
  render(markdown) {
    const fragment = renderMarkdown(markdown);
    // The DOM builder works in the page's document; the sanitiser parses in an inert one.
    const built = fragment.ownerDocument === document;
    return { ...serialise(fragment), built };
  },
  renderInto(markdown) {
    const container = document.createElement('div');
    renderMarkdownInto(container, markdown);
    const fragment = document.createDocumentFragment();
    fragment.append(...Array.from(container.childNodes));
    return serialise(fragment);
  },
  sanitised(markdown) {
    return serialise(renderMarkdownSanitised(markdown));
  },
  sanitisedWithoutBlockNewlines(markdown) {
    return serialise(withoutBlockNewlines(renderMarkdownSanitised(markdown)));
  },
  layout(markdown, way) {
    const container = document.createElement('div');
    container.className = 'markdown';
    container.append(way === 'rendered' ? renderMarkdown(markdown) : renderMarkdownSanitised(markdown));
    document.body.append(container);
    const origin = container.getBoundingClientRect();
    const boxes = Array.from(container.querySelectorAll('*'), (element) => {
      const box = element.getBoundingClientRect();
      const position = [box.left - origin.left, box.top - origin.top, box.width, box.height].map((value) => value.toFixed(2));
      return `${element.nodeName} ${position.join(',')}`;
    });
    container.remove();
    return boxes;
  },
};
