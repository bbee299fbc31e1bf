/**
 * The webview never navigates: one delegated listener catches every link activation (answer links,
 * source links, by mouse or keyboard) and hands the raw href to the host, which decides what opens.
 *
 * VS Code's webview host listens for clicks on the page's window (bubble phase) and opens any
 * `<a href>` itself, whatever `preventDefault` says: a link would then open twice (once through the
 * host's decision, once as a browser tab). So the listener sits on the document in the bubble
 * phase, after the page's own handlers and before the window's, and stops link clicks there.
 */
export function interceptLinks(target: Document, openLink: (href: string) => void): void {
  const onActivate = (event: MouseEvent) => {
    const anchor = event.target instanceof Element ? event.target.closest('a') : null;
    if (!anchor) return;
    event.preventDefault();
    event.stopPropagation();
    // Right-click opens no link (and its context menu is VS Code's); the middle button does.
    if (event.type === 'auxclick' && event.button !== 1) return;
    const href = anchor.getAttribute('href');
    if (href) openLink(href);
  };
  target.addEventListener('click', onActivate);
  target.addEventListener('auxclick', onActivate);
}
