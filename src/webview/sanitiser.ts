/**
 * The one sanitiser of server HTML (DOMPurify) and its rules: it removes everything that could
 * run, load or restyle (scripts, handlers, `javascript:`/`data:` links, SVG, MathML, forms, frames,
 * `style`). Its output is a DOM fragment parsed in an inert document, never HTML to parse again.
 * A link whose address the panel does not open (`linkPolicy.ts`) loses it, and says so in its tooltip.
 *
 * The Markdown DOM builder (`markdownDom.ts`) asks the same rules, through `keptAttribute`, about
 * every attribute value it takes from the server, so both paths keep exactly the same attributes.
 */
import DOMPurify, { type Config } from 'dompurify';
import { isOpenableHref, SAFE_URI } from './linkPolicy';
import { strings } from './strings';

/**
 * Images show only as inline raster data (what the CSP allows): a remote image would tell its host
 * that the answer was read, and its URL could carry quoted code away. Without a src, the browser
 * shows the alt text.
 */
const SAFE_IMAGE_SRC = /^data:image\/(?:png|gif|jpeg|webp);/i;

/** Server classes could imitate the panel's own UI; only a code block's `language-…` class stays. */
const SAFE_CODE_CLASS = /^language-[\w+#.-]{1,40}$/;

const PURIFY_CONFIG = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: [
    'style',
    'link',
    'meta',
    'base',
    'form',
    'input',
    'button',
    'textarea',
    'select',
    'option',
    'iframe',
    'frame',
    'frameset',
    'object',
    'embed',
    'template',
    'dialog',
    'audio',
    'video',
    'source',
    'track',
    'picture',
    'map',
    'area',
  ],
  FORBID_ATTR: ['style', 'srcset', 'action', 'formaction', 'target', 'ping', 'background', 'usemap'],
  ALLOWED_URI_REGEXP: SAFE_URI,
  ALLOW_DATA_ATTR: false,
  SANITIZE_NAMED_PROPS: true,
  // No serialising and parsing again: cheaper, and no room for mutation XSS between the two.
  RETURN_DOM_FRAGMENT: true as const,
} satisfies Config;

/**
 * The panel's own DOMPurify, apart from the shared default instance: the diagram library uses that
 * one with its own configuration and hooks, and neither may change what the other keeps.
 */
const purifier = DOMPurify(window);

// Set once for every call: `isValidAttribute` (see `keptAttribute`) checks against the last config
// set, and would otherwise use DOMPurify's defaults until the first `sanitize`. (`sanitize` then
// ignores the config it is given; it is passed for the return type only.)
purifier.setConfig(PURIFY_CONFIG);

/** Links whose address the hook below removed, in the document being sanitised. */
const neutralisedLinks = new WeakSet<Node>();

purifier.addHook('uponSanitizeAttribute', (node, data) => {
  if (data.attrName === 'class') data.keepAttr = node.nodeName === 'CODE' && SAFE_CODE_CLASS.test(data.attrValue);
  if (data.attrName === 'href' && node.nodeName === 'A' && !isOpenableHref(data.attrValue)) {
    data.keepAttr = false;
    neutralisedLinks.add(node);
  }
});

purifier.addHook('afterSanitizeAttributes', (node) => {
  if (node.nodeName === 'IMG' && !SAFE_IMAGE_SRC.test(node.getAttribute('src') ?? '')) node.removeAttribute('src');
  if (neutralisedLinks.has(node)) node.setAttribute('title', neutralisedLinkTitle());
});

/** The tooltip of a link that lost its address (the DOM builder gives it the same). */
export function neutralisedLinkTitle(): string {
  return strings.linkNotOpened;
}

/**
 * Sanitised DOM of untrusted HTML, owned by an inert document until it is inserted; undefined when
 * DOMPurify gives no fragment (HTML that parses to a document without a body, such as a frameset).
 */
export function sanitisedFragment(html: string): DocumentFragment | undefined {
  const fragment: unknown = purifier.sanitize(html, PURIFY_CONFIG);
  return fragment instanceof Node && fragment.nodeType === Node.DOCUMENT_FRAGMENT_NODE ? (fragment as DocumentFragment) : undefined;
}

/**
 * The value the sanitiser keeps for attribute `name="value"` on an HTML element `tag` (lower case),
 * or undefined when it would remove it: the same checks as `sanitisedFragment`, hooks included, on
 * the same trimmed value it would keep.
 */
export function keptAttribute(tag: string, name: string, value: string): string | undefined {
  const trimmed = value.trim();
  if (!purifier.isValidAttribute(tag, name, trimmed)) return undefined;
  if (tag === 'a' && name === 'href' && !isOpenableHref(trimmed)) return undefined;
  if (name === 'class' && !(tag === 'code' && SAFE_CODE_CLASS.test(trimmed))) return undefined;
  if (tag === 'img' && name === 'src' && !SAFE_IMAGE_SRC.test(trimmed)) return undefined;
  return trimmed;
}
