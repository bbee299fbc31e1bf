/**
 * Small DOM builders. Server strings only ever go in through `textContent` here; the one exception
 * is sanitised answer HTML in `questionView.ts`. No inline styles: the CSP forbids them.
 */

export function element<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A decorative codicon; screen readers skip it, the surrounding text or aria-label speaks. */
export function codicon(name: string, extraClass?: string): HTMLSpanElement {
  const icon = element('span', `codicon codicon-${name}${extraClass ? ` ${extraClass}` : ''}`);
  icon.setAttribute('aria-hidden', 'true');
  return icon;
}

/** Text only assistive technology reads (the visible UI shows an icon instead). */
export function hiddenLabel(text: string): HTMLSpanElement {
  return element('span', 'visually-hidden', text);
}

export interface ButtonOptions {
  icon?: string;
  label?: string;
  /** Accessible name and tooltip, for icon-only buttons or to say more than the visible label. */
  ariaLabel?: string;
  className?: string;
  onClick: (event: MouseEvent) => void;
}

export function button(options: ButtonOptions): HTMLButtonElement {
  const node = element('button', options.className);
  node.type = 'button';
  if (options.icon) node.append(codicon(options.icon));
  if (options.label !== undefined) node.append(element('span', 'button-label', options.label));
  if (options.ariaLabel) {
    node.setAttribute('aria-label', options.ariaLabel);
    node.title = options.ariaLabel;
  }
  node.addEventListener('click', options.onClick);
  return node;
}

/** Focus that was inside `container` before it is rebuilt, so it can be put back nearby. */
export function hasFocusWithin(container: Element): boolean {
  const active = document.activeElement;
  return active !== null && active !== document.body && container.contains(active);
}
