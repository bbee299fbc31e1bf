/**
 * Decides what a click on a link in an answer or a source means. The webview never navigates: the
 * host asks this function, then opens a file, a browser, or nothing.
 */
import * as l10n from '@vscode/l10n';
import { parseRepoLink } from './repoLinks';

export type LinkTarget =
  /** A file of a repository on the instance: open the workspace's own copy when there is one. */
  | { kind: 'file'; repoName: string; revision?: string; path: string; startLine?: number; endLine?: number; url: string }
  /**
   * Any other http(s) page, on the instance or elsewhere, or a mail address (the system opens it). `repoName` when it may be a repository's
   * page (what `Repository` sources link to): a local checkout of it can be shown instead.
   */
  | { kind: 'browser'; url: string; repoName?: string }
  | { kind: 'refused'; reason: string };

/** `href` may be relative to the instance (`/repo/-/blob/…`) or absolute. */
export function linkTarget(href: string, instanceUrl: string): LinkTarget {
  const trimmed = href.trim();
  let url: URL;
  try {
    // Relative links are relative to the instance, path prefix included.
    const relative = trimmed.startsWith('/') && !trimmed.startsWith('//');
    url = new URL(relative ? `${instanceUrl}${trimmed}` : trimmed);
  } catch {
    return { kind: 'refused', reason: l10n.t('"{0}" is not a link that can be opened.', shorten(trimmed)) };
  }
  // A mail address goes to the mail client, as in any editor.
  if (url.protocol === 'mailto:') return { kind: 'browser', url: url.href };
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { kind: 'refused', reason: l10n.t('Links of the kind "{0}" are not opened from answers.', url.protocol) };
  }
  if (url.username || url.password) {
    return { kind: 'refused', reason: l10n.t('Links that carry credentials are not opened from answers.') };
  }
  const parsed = url.origin === new URL(instanceUrl).origin ? parseRepoLink(url.href, instanceUrl) : undefined;
  if (parsed?.target === 'file' && parsed.path) {
    return {
      kind: 'file',
      repoName: parsed.repoName,
      revision: parsed.revision,
      path: parsed.path,
      startLine: parsed.startLine,
      endLine: parsed.endLine,
      url: url.href,
    };
  }
  // With a query it is a page such as /search?q=…, not a repository.
  if (parsed?.target === 'repository' && !url.search) return { kind: 'browser', url: url.href, repoName: parsed.repoName };
  return { kind: 'browser', url: url.href };
}

function shorten(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
