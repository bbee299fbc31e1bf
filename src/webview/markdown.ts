/**
 * Answers are Markdown from the server: marked turns them into HTML, DOMPurify removes everything
 * that could run, load or restyle (scripts, handlers, `javascript:`/`data:` links, SVG, MathML,
 * forms, frames, `style`). The output is the only HTML string the panel ever puts in the DOM.
 */
import DOMPurify, { type Config } from 'dompurify';
import { Marked } from 'marked';

const marked = new Marked({ gfm: true, breaks: false, async: false });
marked.use({
  renderer: {
    // Task-list checkboxes would be <input>s, which the sanitiser drops: show them as text instead.
    checkbox({ checked }) {
      return checked ? '☑ ' : '☐ ';
    },
  },
});

/** http(s), mailto and relative links (instance paths such as `/github.com/org/repo`); nothing else. */
const SAFE_URI = /^(?:(?:https?|mailto):|[^a-z]|[a-z+.-]+(?:[^a-z+.:-]|$))/i;

const PURIFY_CONFIG: Config = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: [
    'style', 'link', 'meta', 'base', 'form', 'input', 'button', 'textarea', 'select', 'option', 'iframe',
    'frame', 'frameset', 'object', 'embed', 'template', 'dialog', 'audio', 'video', 'source', 'track',
    'picture', 'map', 'area',
  ],
  FORBID_ATTR: ['style', 'srcset', 'action', 'formaction', 'target', 'ping', 'background', 'usemap'],
  ALLOWED_URI_REGEXP: SAFE_URI,
  ALLOW_DATA_ATTR: false,
  SANITIZE_NAMED_PROPS: true,
};

// Server classes could imitate the panel's own UI; keep only a code block's `language-…` class.
DOMPurify.addHook('uponSanitizeAttribute', (node, data) => {
  if (data.attrName === 'class') {
    data.keepAttr = node.nodeName === 'CODE' && /^language-[\w+#.-]{1,40}$/.test(data.attrValue);
  }
});

// Images show only as inline raster data (what the CSP allows): a remote image would tell its host
// that the answer was read, and its URL could carry quoted code away. Without a src, the browser
// shows the alt text.
const SAFE_IMAGE_SRC = /^data:image\/(?:png|gif|jpeg|webp);/i;
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.nodeName === 'IMG' && !SAFE_IMAGE_SRC.test(node.getAttribute('src') ?? '')) node.removeAttribute('src');
});

/** Markdown → sanitised HTML. Never throws: unreadable Markdown is shown as escaped text. */
export function renderMarkdown(markdown: string): string {
  let html: string;
  try {
    html = marked.parse(markdown, { async: false });
  } catch {
    html = `<pre>${escapeHtml(markdown)}</pre>`;
  }
  return DOMPurify.sanitize(html, PURIFY_CONFIG);
}

/** True for an href the panel may show as a link (the host still validates what it opens). */
export function isSafeHref(href: string): boolean {
  // Same control-character and whitespace stripping as the sanitiser applies before its check.
  const trimmed = href.replace(/[\u0000-\u0020\u00A0\u1680\u180E\u2000-\u2029\u205F\u3000]/g, '');
  return trimmed.length > 0 && SAFE_URI.test(trimmed);
}

/** Rendered answers by question id; a question's HTML is rebuilt only when its answer text changes. */
export class AnswerCache {
  private readonly entries = new Map<number, { markdown: string; html: string }>();

  html(questionId: number, markdown: string): string {
    const cached = this.entries.get(questionId);
    if (cached && cached.markdown === markdown) return cached.html;
    const html = renderMarkdown(markdown);
    this.entries.set(questionId, { markdown, html });
    return html;
  }

  forget(questionId: number): void {
    this.entries.delete(questionId);
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
