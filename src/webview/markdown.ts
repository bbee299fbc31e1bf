/**
 * Answers are Markdown from the server. marked parses them; an answer without raw HTML is built
 * into DOM directly from marked's tokens (`markdownDom.ts`: server text only as text nodes, every
 * attribute through the sanitiser's rules), and any other answer is rendered to HTML by marked and
 * sanitised by DOMPurify (`sanitiser.ts`). Either way the panel receives DOM, never HTML to parse.
 */
import { Marked, type Token } from 'marked';
import { markdownVerdict, type PlainTextReason } from './markdownBudget';
import { buildMarkdown, taskMarker, type CodeBlockWrapper } from './markdownDom';
import { plainText } from './plainText';
import { sanitisedFragment } from './sanitiser';
import { strings } from './strings';

const marked = new Marked({ gfm: true, breaks: false, async: false });
marked.use({
  renderer: {
    // Task-list checkboxes would be <input>s, which the sanitiser drops: show them as text instead.
    checkbox({ checked }) {
      return taskMarker(checked);
    },
  },
});

/** Markdown → sanitised DOM. Never throws: unreadable Markdown is shown as its text. */
export function renderMarkdown(markdown: string): DocumentFragment {
  const verdict = markdownVerdict(markdown);
  if (!verdict.render) return overBudget(markdown, verdict.reason);
  try {
    const tokens = lex(markdown);
    const fragment = document.createDocumentFragment();
    if (tokens && buildable(markdown) && buildMarkdown(tokens, fragment)) return fragment;
    return notBuilt(tokens, markdown);
  } catch {
    return preformatted(markdown);
  }
}

/**
 * `renderMarkdown` into `container` (empty), as the panel shows an answer: built in place when it
 * can be, with no fragment to move over after; with `wrapCodeBlock`, every code block (`<pre>`) is
 * put in the node it returns, on either path.
 */
export function renderMarkdownInto(container: Element, markdown: string, wrapCodeBlock?: CodeBlockWrapper): void {
  const verdict = markdownVerdict(markdown);
  if (!verdict.render) {
    container.append(overBudget(markdown, verdict.reason));
    return;
  }
  try {
    const tokens = lex(markdown);
    if (tokens && buildable(markdown) && buildMarkdown(tokens, container, wrapCodeBlock)) return;
    // The sanitiser's fragment belongs to its inert document until it is taken into the page's.
    const fragment = document.adoptNode(notBuilt(tokens, markdown));
    if (wrapCodeBlock) wrapCodeBlocks(fragment, wrapCodeBlock);
    container.append(fragment);
  } catch {
    // Whatever the parser, the builder or the sanitiser did, this answer shows as its text.
    container.replaceChildren(preformatted(markdown));
  }
}

/**
 * Always marked's HTML through the sanitiser, the way every answer used to be rendered: what
 * `renderMarkdown` must equal (the webview tests compare the two).
 */
export function renderMarkdownSanitised(markdown: string): DocumentFragment {
  return notBuilt(lex(markdown), markdown);
}

function lex(markdown: string): Token[] | undefined {
  try {
    return marked.lexer(markdown);
  } catch {
    return undefined;
  }
}

/**
 * NUL is the one character an HTML parser drops from text, so only the sanitiser's path shows such
 * an answer exactly as before.
 */
function buildable(markdown: string): boolean {
  return !markdown.includes('\0');
}

/** The sanitiser's DOM of `tokens`, or the text as it is when marked could not read it. */
function notBuilt(tokens: Token[] | undefined, markdown: string): DocumentFragment {
  return tokens ? sanitised(tokens, markdown) : preformatted(markdown);
}

function sanitised(tokens: Token[], markdown: string): DocumentFragment {
  let html: string;
  try {
    html = marked.parser(tokens);
  } catch {
    return preformatted(markdown);
  }
  // DOMPurify returns no fragment for some documents (one that opens with <frameset> has no body).
  return sanitisedFragment(html) ?? preformatted(markdown);
}

/** The sanitiser's code blocks, wrapped as the builder wraps its own. */
function wrapCodeBlocks(fragment: DocumentFragment, wrap: CodeBlockWrapper): void {
  for (const pre of Array.from(fragment.querySelectorAll('pre'))) {
    const language = /(?:^|\s)language-([\w+#.-]+)/.exec(pre.querySelector('code')?.className ?? '')?.[1] ?? '';
    const parent = pre.parentNode!;
    const next = pre.nextSibling;
    parent.insertBefore(wrap(pre, language), next);
  }
}

/** The text as it is, after a line that says why it is not rendered. */
function overBudget(markdown: string, reason: PlainTextReason): DocumentFragment {
  return plainText(markdown, strings.plainTextAnswer[reason]);
}

function preformatted(markdown: string): DocumentFragment {
  return plainText(markdown);
}
