/**
 * The preview of a citation: hovering a citation (its badge, its link, or its entry in the
 * "Citations" list) or focusing it with the keyboard shows the cited lines with syntax colours, in
 * one tooltip the link is described by. The lines come from the host only when the user hovers or
 * focuses (hover waits a moment, so passing over a link asks nothing), once per link per page.
 */
import { citedLines } from '../conversations/citations';
import type { CitationPreview } from '../protocol';
import { element } from './dom';
import { strings } from './strings';
import type { ColouredPiece } from './syntaxColours';

const HOVER_DELAY = 300;
const HIDE_DELAY = 200;
const PREVIEW_ID = 'citation-preview';

export type PreviewRequest = (href: string) => Promise<CitationPreview>;

export class CitationPreviewer {
  private readonly tooltip: HTMLElement;
  private readonly cache = new Map<string, Promise<CitationPreview>>();
  private anchor?: HTMLElement;
  private showTimer?: number;
  private hideTimer?: number;
  /** Bumped whenever the tooltip shows another citation or hides, so a late reply changes nothing. */
  private generation = 0;

  constructor(
    root: HTMLElement,
    private readonly request: PreviewRequest,
    private readonly instanceUrl: () => string | undefined,
  ) {
    this.tooltip = element('div', 'citation-preview');
    this.tooltip.id = PREVIEW_ID;
    this.tooltip.setAttribute('role', 'tooltip');
    this.tooltip.hidden = true;
    document.body.append(this.tooltip);

    root.addEventListener('mouseover', (event) => {
      const anchor = citationOf(event.target);
      if (anchor) this.schedule(anchor, HOVER_DELAY);
    });
    root.addEventListener('mouseout', (event) => {
      const anchor = citationOf(event.target);
      if (anchor && !anchor.contains(event.relatedTarget as Node | null)) this.scheduleHide();
    });
    root.addEventListener('focusin', (event) => {
      const anchor = citationOf(event.target);
      if (anchor) this.schedule(anchor, 0);
    });
    root.addEventListener('focusout', (event) => {
      if (citationOf(event.target)) this.hide();
    });
    // The tooltip stays while the pointer is on it (to read or select its lines).
    this.tooltip.addEventListener('mouseenter', () => window.clearTimeout(this.hideTimer));
    this.tooltip.addEventListener('mouseleave', () => this.scheduleHide());
    document.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && !this.tooltip.hidden) this.hide();
    });
    // Focus scrolls a citation into view, the reader may scroll, and the page may change under it
    // (a diagram drawn, a question updated) with the tooltip open: it follows its citation.
    const follow = () => this.anchor?.isConnected && !this.tooltip.hidden && this.place(this.anchor);
    window.addEventListener('scroll', follow, { passive: true });
    new ResizeObserver(follow).observe(root);
  }

  /** A new conversation: its previews are asked again. */
  clear(): void {
    this.cache.clear();
    this.hide();
  }

  private schedule(anchor: HTMLElement, delay: number): void {
    window.clearTimeout(this.hideTimer);
    window.clearTimeout(this.showTimer);
    if (anchor === this.anchor && !this.tooltip.hidden) return;
    this.showTimer = window.setTimeout(() => void this.show(anchor), delay);
  }

  private scheduleHide(): void {
    window.clearTimeout(this.showTimer);
    window.clearTimeout(this.hideTimer);
    this.hideTimer = window.setTimeout(() => this.hide(), HIDE_DELAY);
  }

  hide(): void {
    window.clearTimeout(this.showTimer);
    window.clearTimeout(this.hideTimer);
    this.generation++;
    this.anchor?.removeAttribute('aria-describedby');
    this.anchor = undefined;
    this.tooltip.hidden = true;
  }

  private async show(anchor: HTMLElement): Promise<void> {
    const href = anchor.getAttribute('href') ?? '';
    const cited = citedLines(href, this.instanceUrl());
    if (!cited || !anchor.isConnected) return;
    this.anchor?.removeAttribute('aria-describedby');
    this.anchor = anchor;
    anchor.setAttribute('aria-describedby', PREVIEW_ID);
    const generation = ++this.generation;
    const header = element('div', 'preview-header');
    header.append(
      element('span', 'citation-badge', anchor.dataset.citation ?? ''),
      element('span', 'preview-path', cited.path),
      element('span', 'preview-repo', cited.repoName),
    );
    this.tooltip.replaceChildren(header, element('p', 'preview-note', strings.previewLoading));
    this.tooltip.hidden = false;
    this.place(anchor);

    let preview = this.cache.get(href);
    if (!preview) {
      preview = this.request(href);
      this.cache.set(href, preview);
    }
    const result = await preview;
    if (generation !== this.generation) return;
    if (!result.ok) {
      // Not kept: hovering again asks again (the host may be reachable by then).
      this.cache.delete(href);
      this.tooltip.replaceChildren(header, element('p', 'preview-note preview-error', result.message));
      this.place(anchor);
      return;
    }
    header.append(element('span', 'preview-from', strings.previewFrom(result.from)));
    const code = element('code', 'preview-code');
    const pre = element('pre', 'preview-lines');
    pre.append(code);
    fillLines(
      code,
      result.startLine,
      result.lines.map((line) => [{ text: line }]),
    );
    this.tooltip.replaceChildren(header, pre);
    if (result.more > 0) this.tooltip.append(element('p', 'preview-note', strings.previewMore(result.more)));
    this.place(anchor);
    try {
      // The highlighter is a chunk of its own, loaded with the first preview.
      const { colourLines } = await import('./syntaxColours');
      if (generation === this.generation) fillLines(code, result.startLine, colourLines(result.lines, cited.path));
    } catch {
      // Plain lines stay.
    }
  }

  /** Below the citation, or above it when there is no room below; within the window. */
  private place(anchor: HTMLElement): void {
    const box = anchor.getBoundingClientRect();
    const style = this.tooltip.style;
    style.left = `${Math.max(4, Math.min(box.left, window.innerWidth - this.tooltip.offsetWidth - 4))}px`;
    const below = box.bottom + 4;
    const fitsBelow = below + this.tooltip.offsetHeight <= window.innerHeight || box.top < window.innerHeight / 2;
    style.top = `${fitsBelow ? below : Math.max(4, box.top - 4 - this.tooltip.offsetHeight)}px`;
  }
}

/** The citation link an event happened in, if any. */
function citationOf(target: EventTarget | null): HTMLElement | undefined {
  return (target instanceof Element ? target.closest<HTMLElement>('a.citation') : null) ?? undefined;
}

/** One row per line: its number, then its text (coloured pieces as spans with a scope class). */
function fillLines(code: HTMLElement, startLine: number, lines: readonly (readonly ColouredPiece[])[]): void {
  const rows = lines.map((pieces, index) => {
    const row = element('span', 'preview-line');
    const number = element('span', 'preview-line-number', String(startLine + index));
    number.setAttribute('aria-hidden', 'true');
    row.append(number);
    for (const piece of pieces) row.append(piece.scope ? element('span', `tok tok-${piece.scope}`, piece.text) : document.createTextNode(piece.text));
    row.append('\n');
    return row;
  });
  code.replaceChildren(...rows);
}
