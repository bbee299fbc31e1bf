/**
 * The webview never navigates: one delegated listener catches every link activation (answer links,
 * source links, by mouse or keyboard) and hands the raw href to the host, which decides what opens.
 */
export function interceptLinks(target: Document, openLink: (href: string) => void): void {
  const onActivate = (event: MouseEvent) => {
    const anchor = event.target instanceof Element ? event.target.closest('a') : null;
    if (!anchor) return;
    event.preventDefault();
    // Right-click opens no link (and its context menu is VS Code's); the middle button does.
    if (event.type === 'auxclick' && event.button !== 1) return;
    const href = anchor.getAttribute('href');
    if (href) openLink(href);
  };
  target.addEventListener('click', onActivate, true);
  target.addEventListener('auxclick', onActivate, true);
}
