/**
 * Which links of an answer are files it generated: a CSV table, JSON data or an SVG drawing on the
 * instance, not a repository's file (those are `/-/blob/` links, opened as code). Pure.
 */

const GENERATED_KINDS = /\.(csv|json|svg)$/i;
/** The same, on the link as written: most links are told apart without parsing them. */
const MAY_BE_GENERATED = /\.(csv|json|svg)(?:[?#]|$)/i;

/** True for a link to a file the answer generated (relative, or absolute on the instance). */
export function isGeneratedFileLink(href: string, instanceUrl: string | undefined): boolean {
  if (href.length > 4_000 || !MAY_BE_GENERATED.test(href) || href.includes('/-/')) return false;
  let url: URL;
  try {
    url = new URL(href, instanceUrl ? `${instanceUrl}/` : 'https://instance.invalid/');
  } catch {
    return false;
  }
  const relative = href.startsWith('/') && !href.startsWith('//');
  if (!relative && (!instanceUrl || url.origin !== new URL(instanceUrl).origin)) return false;
  return GENERATED_KINDS.test(url.pathname) && !url.pathname.includes('/-/');
}

/** The file's name from its link, safe as a file name: `table.csv`. */
export function generatedFileName(href: string): string {
  let last = href.split(/[?#]/)[0].split('/').pop() ?? '';
  try {
    last = decodeURIComponent(last);
  } catch {
    // Kept as written.
  }
  const safe = last
    .replace(/[^\w.-]/g, '_')
    .replace(/^\.+/, '')
    .slice(0, 128);
  return safe || 'generated-file';
}
