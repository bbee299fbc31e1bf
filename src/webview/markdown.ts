/**
 * Answers are Markdown from the server. marked parses them; an answer without raw HTML is built
 * into DOM directly from marked's tokens (`markdownDom.ts`: server text only as text nodes, every
 * attribute through the sanitiser's rules), and any other answer is rendered to HTML by marked and
 * sanitised by DOMPurify (`sanitiser.ts`). Either way the panel receives DOM, never HTML to parse.
 */
import { Marked, type Token } from 'marked';
import { markdownFragment, taskMarker } from './markdownDom';
import { SAFE_URI, sanitisedFragment } from './sanitiser';

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
  const tokens = lex(markdown);
  if (!tokens) return preformatted(markdown);
  // NUL is the one character an HTML parser drops from text, so only the sanitiser's path shows
  // such an answer exactly as before.
  const built = markdown.includes('\0') ? undefined : markdownFragment(tokens);
  return built ?? sanitised(tokens, markdown);
}

/**
 * Always marked's HTML through the sanitiser, the way every answer used to be rendered: what
 * `renderMarkdown` must equal (the webview tests compare the two).
 */
export function renderMarkdownSanitised(markdown: string): DocumentFragment {
  const tokens = lex(markdown);
  return tokens ? sanitised(tokens, markdown) : preformatted(markdown);
}

/** True for an href the panel may show as a link (the host still validates what it opens). */
export function isSafeHref(href: string): boolean {
  // Same control-character and whitespace stripping as the sanitiser applies before its check.
  const trimmed = href.replace(/[\u0000-\u0020\u00A0\u1680\u180E\u2000-\u2029\u205F\u3000]/g, '');
  return trimmed.length > 0 && SAFE_URI.test(trimmed);
}

function lex(markdown: string): Token[] | undefined {
  try {
    return marked.lexer(markdown);
  } catch {
    return undefined;
  }
}

function sanitised(tokens: Token[], markdown: string): DocumentFragment {
  let html: string;
  try {
    html = marked.parser(tokens);
  } catch {
    return preformatted(markdown);
  }
  return sanitisedFragment(html);
}

function preformatted(markdown: string): DocumentFragment {
  const fragment = document.createDocumentFragment();
  const pre = document.createElement('pre');
  pre.textContent = markdown;
  fragment.append(pre);
  return fragment;
}
