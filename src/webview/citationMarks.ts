/**
 * Turns an answer's links to a file and lines into numbered citations: each link keeps its text and
 * gets a small badge with its number, and the answer gets a "Citations" list (file, lines,
 * repository) under it. Hovering or focusing either shows the cited lines (`citationPreview.ts`).
 * Links to files the answer generated get their Open and Save As buttons in the same pass.
 */
import { citationLabel, CitationNumbers, type Citation } from '../conversations/citations';
import { generatedFileName, isGeneratedFileLink } from '../conversations/generatedFiles';
import type { GeneratedFileAction } from '../protocol';
import { button, element } from './dom';
import { strings } from './strings';

/**
 * Marks the links of a rendered answer, in one pass: its citations get their numbered badge (the
 * citations are returned in number order), and its links to files the answer generated (CSV, JSON,
 * SVG) get an Open and a Save As button beside them, which read nothing before they are pressed.
 */
export function markLinks(
  answer: HTMLElement,
  instanceUrl: string | undefined,
  onGeneratedFile: (href: string, action: GeneratedFileAction) => void,
): Citation[] {
  const numbers = new CitationNumbers(instanceUrl);
  const generated: HTMLAnchorElement[] = [];
  for (const anchor of Array.from(answer.getElementsByTagName('a'))) {
    const href = anchor.getAttribute('href');
    if (!href) continue;
    const citation = numbers.add(href);
    if (citation) {
      anchor.classList.add('citation');
      anchor.dataset.citation = String(citation.number);
      anchor.append(badge(citation.number));
    } else if (isGeneratedFileLink(href, instanceUrl)) {
      generated.push(anchor);
    }
  }
  for (const anchor of generated) anchor.after(generatedFileActions(anchor.getAttribute('href') ?? '', onGeneratedFile));
  return numbers.list;
}

function generatedFileActions(href: string, act: (href: string, action: GeneratedFileAction) => void): HTMLElement {
  const name = generatedFileName(href);
  const actions = element('span', 'generated-file-actions');
  actions.append(
    button({ className: 'icon-button', icon: 'go-to-file', ariaLabel: strings.openGeneratedFile(name), onClick: () => act(href, 'open') }),
    button({ className: 'icon-button', icon: 'save-as', ariaLabel: strings.saveGeneratedFile(name), onClick: () => act(href, 'saveAs') }),
  );
  return actions;
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

/** A clone of one prepared badge: an answer may hold hundreds. */
function badge(number: number): Node {
  if (!badgeTemplate) {
    badgeTemplate = element('span', 'citation-badge');
    // The link's own text names it; the number is for the eye, matching the list.
    badgeTemplate.setAttribute('aria-hidden', 'true');
  }
  const mark = badgeTemplate.cloneNode(false);
  mark.textContent = String(number);
  return mark;
}

let badgeTemplate: HTMLElement | undefined;
