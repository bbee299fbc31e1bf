/**
 * Mermaid blocks of an answer drawn as diagrams. The block keeps its code header (with a toggle
 * between the diagram and its source, and the copy button) and its source; the diagram library is
 * imported only when an answer has such a block. The SVG is shown as an image (`data:` URL), where
 * nothing can run, link or load; a diagram that cannot be drawn shows its source and why.
 */
import { button, element } from './dom';
import { strings } from './strings';

/** More diagrams than this in one answer stay as their source. */
const MAX_DIAGRAMS = 20;
/** The image is never wider than the diagram as drawn (nor than the answer). */
const VIEW_BOX = /viewBox="[-\d.e]+ [-\d.e]+ ([\d.e]+) ([\d.e]+)"/;

let nextDiagram = 1;

/** Whether a code block's language says it is a Mermaid diagram. */
export function isDiagramLanguage(language: string): boolean {
  return language.toLowerCase() === 'mermaid';
}

/**
 * Prepares a Mermaid code block (already wrapped with its header) as a diagram block: a place for
 * the diagram before the source, which hides once the diagram is drawn.
 */
export function prepareDiagramBlock(block: HTMLElement): void {
  block.classList.add('diagram-block', 'is-drawing');
  const view = element('div', 'diagram-view');
  view.append(element('p', 'diagram-status', strings.drawingDiagram));
  block.lastElementChild?.before(view);
}

/** Draws every prepared diagram of `answer` (at most `MAX_DIAGRAMS`), one after the other. */
export async function drawDiagrams(answer: HTMLElement): Promise<void> {
  const blocks = Array.from(answer.querySelectorAll<HTMLElement>('.diagram-block.is-drawing')).slice(0, MAX_DIAGRAMS);
  if (blocks.length === 0) return;
  let renderDiagram: typeof import('./diagramRenderer').renderDiagram;
  try {
    ({ renderDiagram } = await import('./diagramRenderer'));
  } catch (error) {
    for (const block of blocks) failed(block, reasonOf(error));
    return;
  }
  const dark = document.body.classList.contains('vscode-dark') || document.body.classList.contains('vscode-high-contrast');
  for (const block of blocks) {
    const source = block.querySelector('pre')?.textContent ?? '';
    try {
      drawn(block, await renderDiagram(`deep-search-diagram-${nextDiagram++}`, source, dark), source);
    } catch (error) {
      failed(block, reasonOf(error));
    }
  }
}

function drawn(block: HTMLElement, svg: string, source: string): void {
  const view = block.querySelector<HTMLElement>('.diagram-view');
  if (!view) return;
  const image = element('img', 'diagram-image');
  image.alt = strings.diagramAlt(source.trim().split('\n')[0].slice(0, 100));
  const size = VIEW_BOX.exec(svg);
  if (size) image.width = Math.ceil(Number(size[1]));
  image.src = `data:image/svg+xml;base64,${base64(svg)}`;
  view.replaceChildren(image);
  block.classList.replace('is-drawing', 'is-drawn');
  const toggle = button({
    className: 'icon-button diagram-toggle',
    icon: 'code',
    ariaLabel: strings.showDiagramSource,
    onClick: () => {
      const showingSource = block.classList.toggle('is-showing-source');
      toggle.setAttribute('aria-pressed', String(showingSource));
      toggle.title = showingSource ? strings.showDiagram : strings.showDiagramSource;
    },
  });
  toggle.setAttribute('aria-pressed', 'false');
  toggle.title = strings.showDiagramSource;
  block.querySelector('.code-header .copy-code')?.before(toggle);
}

function failed(block: HTMLElement, reason: string): void {
  block.classList.replace('is-drawing', 'is-failed');
  const view = block.querySelector<HTMLElement>('.diagram-view');
  view?.replaceChildren(element('p', 'diagram-status diagram-error', strings.diagramFailed(reason)));
}

function reasonOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\s+/g, ' ').trim().slice(0, 300) || 'unknown error';
}

function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (let index = 0; index < bytes.length; index += 0x8000) binary += String.fromCharCode(...bytes.subarray(index, index + 0x8000));
  return btoa(binary);
}
