/**
 * One question of the conversation as DOM: its text, then either the live reasoning (pending or
 * processing: turns, ticking elapsed time, Cancel) or the outcome (answer with sources, stats and
 * follow-ups; or the failure; or the cancellation). The article element lives as long as the
 * question does; updates touch only what changed.
 */
import type { Citation } from '../conversations/citations';
import type { Question, Source, Turn } from '../model/conversation';
import type { GeneratedFileAction } from '../protocol';
import { citationList, markLinks } from './citationMarks';
import { drawDiagrams, isDiagramLanguage, prepareDiagramBlock } from './diagrams';
import { button, codicon, element, hasFocusWithin, hiddenLabel } from './dom';
import { elapsedSince, formatDuration, statsParts } from '../format';
import { isOpenableHref } from './linkPolicy';
import { renderMarkdownInto } from './markdown';
import { appendPlainText } from './plainText';
import { strings } from './strings';
import { ANSWER_RENDERED } from './timings';

export interface QuestionContext {
  /** The host's clock now, estimated from the last `now` it sent. */
  hostNow(): number;
  onCancel(questionId: number): void;
  onAskFollowup(text: string): void;
  onCopy(text: string): void;
  /** The instance the conversation lives on (absolute links on it can be citations). */
  instanceUrl(): string | undefined;
  onOpenAnswer(questionId: number): void;
  /** Open or save a file the answer generated. */
  onGeneratedFile(href: string, action: GeneratedFileAction): void;
  /** A new conversation, its question box holding `text` to narrow down. */
  onAskNarrower(text: string): void;
}

/** What can make buttons unavailable without the question itself changing. */
export interface ControlState {
  canEdit: boolean;
  /** A question is pending or processing, or a follow-up is on its way. */
  busy: boolean;
  removed: boolean;
}

export type UpdateResult = 'unchanged' | 'turnsAppended' | 'rebuilt';

const STATUS_ICONS: Record<Question['state'], string> = {
  pending: 'clock',
  processing: 'loading',
  completed: 'pass',
  failed: 'error',
  canceled: 'circle-slash',
};

export function isLive(question: Question): boolean {
  return question.state === 'pending' || question.state === 'processing';
}

export class QuestionView {
  readonly element: HTMLElement;
  private question: Question;
  private signature: string;
  private readonly textElement: HTMLElement;
  private readonly statusElement: HTMLElement;
  private readonly bodyElement: HTMLElement;
  private elapsedElement?: HTMLElement;
  /** A quota failure's "you can ask again in …", counting down. */
  private retryElement?: HTMLElement;
  private cancelButton?: HTMLButtonElement;
  private turnList?: HTMLOListElement;
  private renderedTurns: Turn[] = [];
  private followupButtons: HTMLButtonElement[] = [];
  /**
   * The answer as rendered, kept while the question stays completed: rebuilding the question for
   * any other change (title, stats, follow-ups) moves this very element instead of rendering the
   * Markdown again.
   */
  private renderedAnswer?: { markdown: string; element: HTMLElement; citations: Citation[] };
  private controls: ControlState;

  constructor(
    question: Question,
    private readonly context: QuestionContext,
    controls: ControlState,
  ) {
    this.question = question;
    this.signature = JSON.stringify(question);
    this.controls = controls;

    this.element = element('article', 'question');
    this.element.dataset.questionId = String(question.id);
    // Focus lands here when the control that had it is rebuilt away.
    this.element.tabIndex = -1;

    const prompt = element('div', 'question-prompt');
    prompt.append(codicon('account', 'prompt-icon'));
    this.textElement = element('h2', 'question-text', question.text);
    this.textElement.id = `question-${question.id}-text`;
    prompt.append(this.textElement);
    this.element.setAttribute('aria-labelledby', this.textElement.id);

    this.statusElement = element('div', 'question-status');
    this.bodyElement = element('div', 'question-body');
    this.element.append(prompt, this.statusElement, this.bodyElement);
    this.build();
  }

  get id(): number {
    return this.question.id;
  }

  get state(): Question['state'] {
    return this.question.state;
  }

  get live(): boolean {
    return isLive(this.question);
  }

  /** Something in it changes with time: a live question's clock, or a quota's countdown not yet over. */
  get ticking(): boolean {
    return this.live || (this.retryElement !== undefined && this.retryRemaining() > 0);
  }

  /** Applies a newer version of the question, touching the DOM only where it differs. */
  update(next: Question): UpdateResult {
    const signature = JSON.stringify(next);
    if (signature === this.signature) return 'unchanged';
    const previous = this.question;
    this.question = next;
    this.signature = signature;

    if (next.text !== previous.text) this.textElement.textContent = next.text;
    if (isLive(previous) && isLive(next) && this.appendTurns(next)) {
      if (previous.state !== next.state) {
        this.buildStatus();
        this.applyControls();
      }
      this.tick();
      return 'turnsAppended';
    }
    const hadFocus = hasFocusWithin(this.statusElement) || hasFocusWithin(this.bodyElement);
    this.build();
    if (hadFocus) this.element.focus();
    return 'rebuilt';
  }

  /** Refreshes the ticking elapsed time of a live question. */
  tick(): void {
    if (this.retryElement) {
      const remaining = this.retryRemaining();
      this.retryElement.textContent = remaining > 0 ? strings.retryIn(formatDuration(remaining + 999)) : strings.retryNow;
    }
    if (!this.elapsedElement) return;
    this.elapsedElement.textContent = formatDuration(elapsedSince(this.question.createdAt, this.context.hostNow()));
  }

  private retryRemaining(): number {
    const at = Date.parse(this.question.error?.retryAt ?? '');
    return Number.isNaN(at) ? 0 : at - this.context.hostNow();
  }

  setControls(controls: ControlState): void {
    const removedNow = controls.removed !== this.controls.removed;
    this.controls = controls;
    // A question of a conversation that is gone no longer runs: no spinner, clock or Cancel.
    if (removedNow && this.live) this.buildStatus();
    this.applyControls();
  }

  private build(): void {
    this.element.classList.remove('is-pending', 'is-processing', 'is-completed', 'is-failed', 'is-canceled');
    this.element.classList.add(`is-${this.question.state}`);
    this.elapsedElement = undefined;
    this.retryElement = undefined;
    this.cancelButton = undefined;
    this.turnList = undefined;
    this.renderedTurns = [];
    this.followupButtons = [];
    if (this.question.state !== 'completed') this.renderedAnswer = undefined;
    this.buildStatus();
    this.bodyElement.replaceChildren();
    switch (this.question.state) {
      case 'pending':
      case 'processing':
        this.bodyElement.append(this.liveTurns());
        break;
      case 'completed':
        this.buildCompleted();
        break;
      case 'failed':
        this.buildFailed();
        break;
      case 'canceled':
        this.buildCanceled();
        break;
    }
    this.applyControls();
  }

  private buildStatus(): void {
    const question = this.question;
    this.element.classList.remove('is-pending', 'is-processing');
    this.element.classList.add(`is-${question.state}`);
    if (isLive(question) && this.controls.removed) {
      this.statusElement.replaceChildren(codicon('circle-slash'), element('span', 'status-label', strings.state.gone));
      this.elapsedElement = undefined;
      this.cancelButton = undefined;
      return;
    }
    const icon = codicon(STATUS_ICONS[question.state], question.state === 'processing' ? 'codicon-modifier-spin' : undefined);
    const label = element('span', 'status-label', strings.state[question.state]);
    this.statusElement.replaceChildren(icon, label);
    if (!isLive(question)) {
      this.elapsedElement = undefined;
      this.cancelButton = undefined;
      return;
    }
    const elapsed = element('span', 'elapsed');
    elapsed.setAttribute('role', 'timer');
    elapsed.setAttribute('aria-label', strings.elapsed);
    this.elapsedElement = elapsed;
    this.statusElement.append(element('span', 'status-separator', '·'), elapsed);
    this.cancelButton = button({
      className: 'secondary-button cancel-button',
      icon: 'debug-stop',
      label: strings.cancel,
      ariaLabel: strings.cancelLabel,
      onClick: () => {
        if (!this.cancelButton || this.cancelButton.disabled) return;
        this.cancelButton.disabled = true;
        this.cancelButton.querySelector('.button-label')!.textContent = strings.canceling;
        this.context.onCancel(question.id);
      },
    });
    this.statusElement.append(this.cancelButton);
    this.tick();
  }

  /** The host could not cancel: the button works again. */
  cancelFailed(): void {
    if (!this.cancelButton) return;
    this.cancelButton.disabled = false;
    this.cancelButton.querySelector('.button-label')!.textContent = strings.cancel;
  }

  private liveTurns(): HTMLElement {
    const section = element('section', 'turns');
    section.setAttribute('aria-label', strings.reasoning);
    this.turnList = element('ol', 'turn-list');
    section.append(this.turnList);
    this.appendTurns(this.question);
    return section;
  }

  /** Adds the turns not yet shown; false when earlier turns changed and the list must be rebuilt. */
  private appendTurns(question: Question): boolean {
    const list = this.turnList;
    if (!list) return false;
    const turns = reasoningTurns(question.turns);
    const shown = this.renderedTurns;
    if (turns.length < shown.length || shown.some((turn, index) => !sameTurn(turn, turns[index]))) return false;
    if (turns.length > shown.length) list.querySelector('.turn-placeholder')?.remove();
    for (const turn of turns.slice(shown.length)) list.append(turnItem(turn));
    if (turns.length === 0 && list.childElementCount === 0) {
      list.append(element('li', 'turn-placeholder', strings.noReasoningYet));
    }
    this.renderedTurns = turns;
    return true;
  }

  private buildCompleted(): void {
    const question = this.question;
    const answer = element('section', 'answer');
    this.bodyElement.append(answer);
    if (question.title?.trim()) answer.append(element('h3', 'answer-title', question.title));
    if (question.answer?.trim()) {
      const citations = this.showAnswer(answer, question.answer);
      if (citations.length > 0) this.bodyElement.append(citationList(citations, question.id));
    } else {
      answer.append(element('p', 'empty-answer', strings.noAnswer));
    }
    this.appendFinishedTurns();
    if (question.sources.length > 0) this.bodyElement.append(sourceList(question.sources));
    this.appendStats();
    if (question.answer?.trim()) this.bodyElement.append(this.answerActions());
    if (question.suggestedFollowups.length > 0) this.bodyElement.append(this.followupList());
  }

  /**
   * Puts the answer in `section` (already in the question), rendering it only if it is new;
   * returns its citations.
   */
  private showAnswer(section: HTMLElement, markdown: string): Citation[] {
    if (this.renderedAnswer?.markdown === markdown) {
      section.append(this.renderedAnswer.element);
      return this.renderedAnswer.citations;
    }
    const started = performance.now();
    const container = element('div', 'markdown');
    // The only markup from the server that reaches the DOM, and only sanitised (markdown.ts).
    // Built apart, with its code-block headers, and put in the page at once.
    renderMarkdownInto(container, markdown, wrapCodeBlock);
    const citations = markLinks(container, this.context.instanceUrl(), (href, action) => this.context.onGeneratedFile(href, action));
    nestHeadings(container, section.querySelector('.answer-title') ? 3 : 2);
    container.addEventListener('click', (event) => onCopyClick(event, (text) => this.context.onCopy(text)));
    section.append(container);
    this.renderedAnswer = { markdown, element: container, citations };
    performance.measure(ANSWER_RENDERED, { start: started, detail: { questionId: this.question.id, length: markdown.length } });
    // Drawn after the answer shows (the library loads only for an answer with a diagram).
    void drawDiagrams(container);
    return citations;
  }

  private buildFailed(): void {
    const error = this.question.error;
    const callout = element('div', 'callout callout-error');
    callout.append(codicon('error', 'callout-icon'));
    const text = element('div', 'callout-text');
    text.append(element('strong', 'callout-title', error?.title?.trim() || strings.failedTitle));
    if (error?.message?.trim()) text.append(element('p', 'callout-message', error.message));
    // Over its token limit, the instance wrote a summary of its progress (in the answer, else the details).
    const tokenLimit = error?.kind === 'TokenLimitExceeded';
    const summary = tokenLimit ? this.question.answer?.trim() || error?.details?.trim() : undefined;
    if (error?.details?.trim() && error.details !== error.message && error.details.trim() !== summary) {
      text.append(element('p', 'callout-details', error.details));
    }
    if (error?.retryAt) {
      this.retryElement = text.appendChild(element('p', 'callout-retry'));
      this.retryElement.setAttribute('role', 'timer');
      this.tick();
    }
    if (error?.kind) text.append(element('p', 'callout-kind', strings.errorKind(error.kind)));
    callout.append(text);
    this.bodyElement.append(callout);
    if (summary) this.bodyElement.append(this.progressSummary(summary));
    if (tokenLimit) this.bodyElement.append(this.narrowerAction());
    this.appendFinishedTurns();
    this.appendStats();
  }

  private buildCanceled(): void {
    const error = this.question.error;
    const callout = element('div', 'callout callout-canceled');
    callout.append(codicon('circle-slash', 'callout-icon'));
    const text = element('div', 'callout-text');
    text.append(element('strong', 'callout-title', strings.canceledTitle));
    text.append(element('p', 'callout-message', error?.message?.trim() || strings.canceledDefault));
    callout.append(text);
    this.bodyElement.append(callout);
    this.appendFinishedTurns();
  }

  /** A finished question keeps its reasoning, folded away. */
  private appendFinishedTurns(): void {
    const turns = reasoningTurns(this.question.turns);
    if (turns.length === 0) return;
    const details = element('details', 'turns turns-finished');
    details.append(element('summary', undefined, strings.reasoningSteps(turns.length)));
    const list = element('ol', 'turn-list');
    for (const turn of turns) list.append(turnItem(turn));
    details.append(list);
    this.bodyElement.append(details);
  }

  private appendStats(): void {
    const parts = statsParts(this.question.stats);
    if (parts.length === 0) return;
    const list = element('ul', 'stats');
    list.setAttribute('aria-label', strings.stats);
    const icons = { time: 'watch', toolCalls: 'tools', tokens: 'symbol-numeric', credits: 'credit-card' } as const;
    for (const part of parts) {
      const item = element('li', `stat stat-${part.kind}`);
      item.title = strings.statsLabels[part.kind];
      item.append(codicon(icons[part.kind]));
      if (part.kind === 'time') item.append(hiddenLabel(`${strings.timeStatPrefix} `));
      item.append(element('span', 'stat-value', part.text));
      list.append(item);
    }
    this.bodyElement.append(list);
  }

  /** The progress summary of a question stopped at its token limit: Markdown, its links citations. */
  private progressSummary(markdown: string): HTMLElement {
    const section = element('section', 'progress-summary');
    const heading = element('h4', 'section-heading', strings.progressSummary);
    heading.id = `question-${this.question.id}-summary`;
    section.setAttribute('aria-labelledby', heading.id);
    const body = element('div', 'markdown');
    renderMarkdownInto(body, markdown, wrapCodeBlock);
    markLinks(body, this.context.instanceUrl(), (href, action) => this.context.onGeneratedFile(href, action));
    nestHeadings(body, 4);
    section.append(heading, body);
    return section;
  }

  private narrowerAction(): HTMLElement {
    const actions = element('div', 'answer-actions narrower-actions');
    const narrower = button({
      className: 'secondary-button ask-narrower',
      icon: 'filter',
      label: strings.askNarrower,
      onClick: () => this.context.onAskNarrower(this.question.text),
    });
    narrower.title = strings.askNarrowerTitle;
    actions.append(narrower);
    return actions;
  }

  private answerActions(): HTMLElement {
    const actions = element('div', 'answer-actions');
    actions.append(
      button({
        className: 'secondary-button open-answer',
        icon: 'open-preview',
        label: strings.openAnswerAsMarkdown,
        onClick: () => this.context.onOpenAnswer(this.question.id),
      }),
    );
    actions.lastElementChild?.setAttribute('title', strings.openAnswerAsMarkdownTitle);
    return actions;
  }

  private followupList(): HTMLElement {
    const section = element('section', 'followups');
    const heading = element('h4', 'section-heading', strings.followups);
    heading.id = `question-${this.question.id}-followups`;
    section.setAttribute('aria-labelledby', heading.id);
    const list = element('div', 'followup-list');
    for (const text of this.question.suggestedFollowups) {
      const suggestion = button({
        className: 'followup-suggestion',
        icon: 'comment-discussion',
        label: text,
        ariaLabel: strings.askSuggested(text),
        onClick: () => {
          if (!suggestion.disabled) this.context.onAskFollowup(text);
        },
      });
      this.followupButtons.push(suggestion);
      list.append(suggestion);
    }
    section.append(heading, list);
    return section;
  }

  private applyControls(): void {
    const { canEdit, busy, removed } = this.controls;
    if (this.cancelButton) {
      this.cancelButton.hidden = !canEdit;
      if (removed) this.cancelButton.disabled = true;
    }
    const followups = this.bodyElement.querySelector<HTMLElement>('.followups');
    if (followups) followups.hidden = !canEdit;
    const narrower = this.bodyElement.querySelector<HTMLElement>('.narrower-actions');
    if (narrower) narrower.hidden = !canEdit;
    for (const suggestion of this.followupButtons) suggestion.disabled = removed || busy || !canEdit;
  }
}

/**
 * An answer's own headings nest under the question and the answer's title for assistive
 * technology: its highest heading comes right below `parentLevel`, the others keep their distance
 * from it, at most level 6. Their look stays.
 */
function nestHeadings(answer: HTMLElement, parentLevel: number): void {
  const headings: Element[] = [];
  for (const level of ['h1', 'h2', 'h3', 'h4', 'h5', 'h6']) headings.push(...Array.from(answer.getElementsByTagName(level)));
  if (headings.length === 0) return;
  const levelOf = (heading: Element) => Number(heading.tagName[1]);
  const shift = parentLevel + 1 - Math.min(...headings.map(levelOf));
  for (const heading of headings) heading.setAttribute('aria-level', String(Math.min(6, levelOf(heading) + shift)));
}

/** The agent's turns: the `user` turn only repeats the question. */
function reasoningTurns(turns: readonly Turn[]): Turn[] {
  return turns.filter((turn) => turn.role.toLowerCase() !== 'user');
}

function sameTurn(a: Turn, b: Turn): boolean {
  return a.role === b.role && a.reasoning === b.reasoning && a.time === b.time;
}

function turnItem(turn: Turn): HTMLLIElement {
  const item = element('li', 'turn');
  item.append(element('span', 'turn-role', turn.role || '?'));
  // Plain text, never Markdown; a long one in parts, as a long plain answer (plainText.ts).
  appendPlainText(item, turn.reasoning, () => element('div', 'turn-text'));
  return item;
}

function sourceList(sources: readonly Source[]): HTMLElement {
  const section = element('section', 'sources');
  const heading = element('h4', 'section-heading', strings.sources);
  const list = element('ul', 'source-list');
  for (const source of sources) {
    const item = element('li', 'source');
    const label = source.label?.trim() || source.path || source.link;
    const target = source.link && isOpenableHref(source.link) ? element('a', 'source-link') : element('span', 'source-link');
    if (target instanceof HTMLAnchorElement) {
      target.setAttribute('href', source.link);
      target.title = source.link;
    } else if (source.link) {
      target.title = strings.linkNotOpened;
    }
    target.append(codicon(sourceIcon(source)), element('span', 'source-label', label));
    item.append(target);
    if (source.type && !/^(repository|repo|file)$/i.test(source.type)) {
      item.append(element('span', 'source-type', source.type));
    }
    list.append(item);
  }
  section.append(heading, list);
  return section;
}

function sourceIcon(source: Source): string {
  const type = source.type.toLowerCase();
  if (type.includes('repo')) return 'repo';
  if (type.includes('file') || source.path) return 'file';
  if (type.includes('commit') || type.includes('diff')) return 'git-commit';
  if (type.includes('symbol')) return 'symbol-method';
  return 'link';
}

/**
 * Gives a code block a header with its language and a copy button: a clone of one prepared header
 * (an answer may hold hundreds of blocks), its buttons served by one listener per answer
 * (`onCopyClick`). Prepared on first use, once `main.ts` has loaded the panel's translations.
 */
function wrapCodeBlock(pre: HTMLPreElement, language: string): HTMLElement {
  codeBlockTemplate ??= codeBlockHeader();
  const block = codeBlockTemplate.cloneNode(true) as HTMLElement;
  if (language) block.firstChild!.firstChild!.textContent = language;
  block.appendChild(pre);
  if (isDiagramLanguage(language)) prepareDiagramBlock(block);
  return block;
}

let codeBlockTemplate: HTMLElement | undefined;

function codeBlockHeader(): HTMLElement {
  const block = element('div', 'code-block');
  const header = element('div', 'code-header');
  const copy = element('button', 'icon-button copy-code');
  copy.type = 'button';
  copy.append(codicon('copy'));
  copy.setAttribute('aria-label', strings.copyCode);
  copy.title = strings.copyCode;
  header.append(element('span', 'code-language'), copy);
  block.append(header);
  return block;
}

/** A click on a code block's copy button (see `wrapCodeBlock`): copies the block's code. */
function onCopyClick(event: MouseEvent, onCopy: (text: string) => void): void {
  const copy = event.target instanceof Element ? event.target.closest<HTMLButtonElement>('button.copy-code') : null;
  // Only the panel's own buttons: the sanitiser leaves answer markup no class but a code's language.
  const block = copy?.parentElement?.parentElement;
  if (!copy || !block?.classList.contains('code-block')) return;
  const pre = block.lastElementChild;
  if (!(pre instanceof HTMLPreElement)) return;
  onCopy((pre.querySelector('code') ?? pre).textContent ?? '');
  showCopied(copy);
}

function showCopied(copy: HTMLButtonElement): void {
  const icon = copy.querySelector('.codicon');
  icon?.classList.replace('codicon-copy', 'codicon-check');
  copy.setAttribute('aria-label', strings.copied);
  copy.title = strings.copied;
  setTimeout(() => {
    icon?.classList.replace('codicon-check', 'codicon-copy');
    copy.setAttribute('aria-label', strings.copyCode);
    copy.title = strings.copyCode;
  }, 1500);
}
