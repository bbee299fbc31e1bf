/**
 * Turns an answer's links to a file and lines into numbered citations: each link keeps its text and
 * gets a small badge with its number, and the answer gets a "Citations" list (file, lines,
 * repository) under it. Hovering or focusing either shows the cited lines (`citationPreview.ts`).
 */
import { citationLabel, CitationNumbers, type Citation } from '../conversations/citations';
import { generatedFileName, isGeneratedFileLink } from '../conversations/generatedFiles';
import { button, element } from './dom';
import { strings } from './strings';

/** Marks the citations among the links of a rendered answer; returns them in number order. */
export function markCitations(answer: HTMLElement, instanceUrl: string | undefined): Citation[] {
  const numbers = new CitationNumbers(instanceUrl);
  for (const anchor of Array.from(answer.querySelectorAll<HTMLAnchorElement>('a[href]'))) {
    const citation = numbers.add(anchor.getAttribute('href') ?? '');
    if (!citation) continue;
    anchor.classList.add('citation');
    anchor.dataset.citation = String(citation.number);
    anchor.append(badge(citation.number));
  }
  return numbers.list;
}

/**
 * Gives each link to a file the answer generated (CSV, JSON, SVG) an Open and a Save As button
 * beside it; nothing is read before one is pressed.
 */
export function markGeneratedFiles(answer: HTMLElement, instanceUrl: string | undefined, act: (href: string, action: 'open' | 'saveAs') => void): void {
  for (const anchor of Array.from(answer.querySelectorAll<HTMLAnchorElement>('a[href]:not(.citation)'))) {
    const href = anchor.getAttribute('href') ?? '';
    if (!isGeneratedFileLink(href, instanceUrl)) continue;
    const name = generatedFileName(href);
    anchor.classList.add('generated-file');
    const actions = element('span', 'generated-file-actions');
    actions.append(
      button({ className: 'icon-button', icon: 'go-to-file', ariaLabel: strings.openGeneratedFile(name), onClick: () => act(href, 'open') }),
      button({ className: 'icon-button', icon: 'save-as', ariaLabel: strings.saveGeneratedFile(name), onClick: () => act(href, 'saveAs') }),
    );
    anchor.after(actions);
  }
}

/** The "Citations" list under an answer. */
export function citationList(citations: readonly Citation[], questionId: number): HTMLElement {
  const section = element('section', 'citations');
  const heading = element('h4', 'section-heading', strings.citations);
  heading.id = `question-${questionId}-citations`;
  section.setAttribute('aria-labelledby', heading.id);
  const list = element('ol', 'citation-list');
  for (const citation of citations) {
    const entry = element('a', 'citation citation-entry');
    entry.setAttribute('href', citation.href);
    entry.dataset.citation = String(citation.number);
    const repository = citation.revision ? `${citation.repoName}@${citation.revision.slice(0, 12)}` : citation.repoName;
    entry.append(badge(citation.number), element('span', 'citation-file', citationLabel(citation)), element('span', 'citation-repo', repository));
    const item = element('li', 'citation-item');
    item.append(entry);
    list.append(item);
  }
  section.append(heading, list);
  return section;
}

function badge(number: number): HTMLElement {
  const mark = element('span', 'citation-badge', String(number));
  // The link's own text names it; the number is for the eye, matching the list.
  mark.setAttribute('aria-hidden', 'true');
  return mark;
}
