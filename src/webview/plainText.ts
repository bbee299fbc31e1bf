/**
 * Long text shown as it is, without freezing the panel: an answer too costly to render as Markdown
 * (or one marked could not read), a reasoning turn. Laying text out costs per line (125,000 short
 * lines: over a second), so a long text comes in parts of at most `PART_LINES` lines and
 * `PART_CHARS` characters, each in an element of its own: the first at once, each next one when
 * the reader asks for it with the button after them.
 */
import { button, element } from './dom';
import { strings } from './strings';

export const PART_LINES = 5_000;
export const PART_CHARS = 256 * 1024;

/** Appends `text` to `parent` in parts, each in a new element from `part`. */
export function appendPlainText(parent: ParentNode, text: string, part: () => HTMLElement): void {
  const firstEnd = partEnd(text, 0);
  const first = part();
  first.textContent = text.slice(0, firstEnd);
  parent.append(first);
  if (firstEnd < text.length) parent.append(moreButton(text, firstEnd, part));
}

/** An answer as its text, in `<pre>` parts, after a note saying why (when given). */
export function plainText(text: string, note?: string): DocumentFragment {
  const fragment = document.createDocumentFragment();
  if (note !== undefined) fragment.append(element('p', 'markdown-plain-note', note));
  appendPlainText(fragment, text, () => element('pre'));
  return fragment;
}

function moreButton(text: string, shownUpTo: number, part: () => HTMLElement): HTMLButtonElement {
  let shown = shownUpTo;
  const more: HTMLButtonElement = button({
    className: 'secondary-button plain-text-more',
    label: strings.plainTextMore(percent(shown, text.length)),
    onClick: () => {
      const end = partEnd(text, shown);
      const next = part();
      next.textContent = text.slice(shown, end);
      more.before(next);
      shown = end;
      if (shown < text.length) {
        more.querySelector('.button-label')!.textContent = strings.plainTextMore(percent(shown, text.length));
        return;
      }
      // All shown: the button goes, and its focus to the part it showed last.
      const hadFocus = document.activeElement === more;
      more.remove();
      if (hadFocus) {
        next.tabIndex = -1;
        next.focus();
      }
    },
  });
  return more;
}

/** Where the part of `text` starting at `from` ends: after whole lines where it can. */
export function partEnd(text: string, from: number): number {
  let end = from;
  for (let lines = 0; lines < PART_LINES; lines++) {
    const newline = text.indexOf('\n', end);
    const next = newline < 0 ? text.length : newline + 1;
    if (next - from > PART_CHARS) break;
    end = next;
    if (end === text.length) return end;
  }
  if (end > from) return end;
  // One line longer than a part: cut it, though not inside a surrogate pair.
  end = Math.min(text.length, from + PART_CHARS);
  const last = text.charCodeAt(end - 1);
  return end < text.length && last >= 0xd800 && last <= 0xdbff ? end - 1 : end;
}

function percent(part: number, whole: number): number {
  return Math.floor((part / whole) * 100);
}
