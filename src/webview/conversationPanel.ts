/**
 * The whole conversation panel: header, questions, follow-up box, notices and the live region.
 * It applies host messages to the DOM, rebuilding only the questions that changed, and keeps the
 * small view state (draft, scroll) the page persists with `setState`.
 */
import type { Conversation, Question } from '../model/conversation';
import { conversationLabel } from '../model/conversationLabel';
import type { CitationPreview, ConversationSummary, PanelAction, PanelViewState, RequestOutcome } from '../protocol';
import { CitationPreviewer } from './citationPreview';
import { ConversationHeader } from './conversationHeader';
import { codicon, element } from './dom';
import { FollowupBox } from './followupBox';
import { isLive, QuestionView, type ControlState, type QuestionContext } from './questionView';
import { strings } from './strings';
import type { HostBridge } from './vscodeApi';

/** Within this many pixels of the end, the reader is "at the bottom" and follows new content. */
const BOTTOM_SLACK = 24;
const SCROLL_SAVE_DELAY = 150;
const TICK_INTERVAL = 1000;

type SendSource = 'box' | 'suggestion';

/** What a request posted to the host asked, kept until its reply. */
type PendingRequest = { kind: 'followup'; text: string } | { kind: 'cancel'; questionId: number };

export class ConversationPanel {
  private readonly header: ConversationHeader;
  private readonly notice: HTMLElement;
  private readonly questionList: HTMLElement;
  private readonly footer: HTMLElement;
  private readonly announcer: HTMLElement;
  private views = new Map<number, QuestionView>();
  private readonly questions = new Map<number, Question>();
  private readonly questionContext: QuestionContext;
  private box?: FollowupBox;
  private conversationId?: number;
  /** The conversation's own title, where the server gives one (7.x). */
  private conversationTitle?: string;
  private canEdit = true;
  private removed = false;
  private sending?: SendSource;
  /** Host clock minus ours, so elapsed times agree with the host. */
  private clockOffset = 0;
  private ticker?: number;
  private scrollSaveTimer?: number;
  private scrollFrame?: number;
  /** Restored draft until the first snapshot shows the box. */
  private savedState?: PanelViewState;
  /** Requests posted and not yet answered, by id. */
  private readonly pending = new Map<number, PendingRequest>();
  private nextRequestId: number;
  private instanceUrl?: string;
  private readonly previewer: CitationPreviewer;
  /** Previews asked of the host and not yet answered, by id. */
  private readonly previewReplies = new Map<number, (preview: CitationPreview) => void>();
  private nextPreviewId = 1;

  constructor(
    private readonly root: HTMLElement,
    private readonly host: HostBridge,
    savedState: PanelViewState | undefined,
    private readonly mac: boolean,
  ) {
    this.savedState = savedState;
    // A follow-up sent before a reload of the page may still be answered: its id stays taken.
    const inFlight = savedState?.pendingFollowup;
    if (inFlight) this.pending.set(inFlight.requestId, { kind: 'followup', text: inFlight.text });
    this.nextRequestId = (inFlight?.requestId ?? 0) + 1;
    this.questionContext = {
      hostNow: () => Date.now() + this.clockOffset,
      onCancel: (questionId) => this.host.postMessage({ type: 'cancel', requestId: this.request({ kind: 'cancel', questionId }), questionId }),
      onAskFollowup: (text) => this.askFollowup(text, 'suggestion'),
      onCopy: (text) => this.host.postMessage({ type: 'copyText', text }),
      instanceUrl: () => this.instanceUrl,
      onOpenAnswer: (questionId) => this.host.postMessage({ type: 'openAnswer', questionId }),
      onAskNarrower: (text) => this.host.postMessage({ type: 'askNarrower', text }),
      onGeneratedFile: (href, action) => this.host.postMessage({ type: 'generatedFile', href, action }),
    };
    this.previewer = new CitationPreviewer(
      root,
      (href) => this.askPreview(href),
      () => this.instanceUrl,
    );
    this.header = new ConversationHeader((action: PanelAction) => this.host.postMessage({ type: 'action', action }));
    this.notice = element('div', 'notice');
    this.notice.setAttribute('role', 'alert');
    this.notice.hidden = true;
    this.questionList = element('div', 'question-list');
    this.footer = element('footer', 'panel-footer');
    this.announcer = element('div', 'visually-hidden');
    this.announcer.setAttribute('role', 'status');
    this.announcer.setAttribute('aria-live', 'polite');
    window.addEventListener('scroll', () => this.scheduleScrollSave(), { passive: true });
  }

  /**
   * A full snapshot: shows exactly its questions, restoring draft and scroll the first time. Views
   * of questions already shown are updated in place, so their answers are not rendered again.
   */
  showSnapshot(conversation: Conversation, canEdit: boolean, now: number, instanceUrl?: string): void {
    const firstSnapshot = this.conversationId === undefined;
    if (conversation.id !== this.conversationId || instanceUrl !== this.instanceUrl) this.previewer.clear();
    this.instanceUrl = instanceUrl;
    const shown = conversation.id === this.conversationId ? this.views : new Map<number, QuestionView>();
    const keptDraft = this.box?.draft;
    this.clockOffset = now - Date.now();
    this.conversationId = conversation.id;
    this.conversationTitle = conversation.title;
    this.canEdit = canEdit;
    this.removed = false;
    this.sending = undefined;
    this.views = new Map();
    this.questions.clear();
    for (const question of sortById(conversation.questions)) {
      const view = shown.get(question.id);
      if (view) view.update(question);
      this.views.set(question.id, view ?? new QuestionView(question, this.questionContext, this.controls()));
      this.questions.set(question.id, question);
    }
    this.questionList.replaceChildren(...Array.from(this.views.values(), (view) => view.element));

    this.header.setCanEdit(canEdit);
    this.header.setRemoved(false);
    this.notice.hidden = true;
    this.buildFooter();
    const saved = this.savedState?.conversationId === conversation.id ? this.savedState : undefined;
    this.savedState = undefined;
    this.box?.setDraft(keptDraft ?? saved?.draft ?? '');

    this.root.replaceChildren(this.header.element, this.notice, this.questionList, this.footer, this.announcer);
    this.root.removeAttribute('aria-busy');
    this.root.classList.remove('is-removed');
    this.refresh();

    if (firstSnapshot && saved) {
      scroller().scrollTop = saved.scrollTop;
    } else if (firstSnapshot && this.views.size > 1) {
      // Open a long conversation at its latest question, as a chat does.
      this.questionList.lastElementChild?.scrollIntoView({ block: 'start' });
    }
    this.saveState();
  }

  /** The host's answer to a `preview`. */
  previewArrived(previewId: number, preview: CitationPreview): void {
    this.previewReplies.get(previewId)?.(preview);
    this.previewReplies.delete(previewId);
  }

  private askPreview(href: string): Promise<CitationPreview> {
    const previewId = this.nextPreviewId++;
    return new Promise((resolve) => {
      this.previewReplies.set(previewId, resolve);
      this.host.postMessage({ type: 'preview', previewId, href });
    });
  }

  /** Questions that changed or were added since the last message. */
  applyQuestions(summary: ConversationSummary, questions: Question[], now: number): void {
    if (this.conversationId === undefined || summary.id !== this.conversationId) return;
    this.clockOffset = now - Date.now();
    this.conversationTitle = summary.title;
    const followBottom = isAtBottom();
    for (const question of sortById(questions)) {
      const view = this.views.get(question.id);
      if (!view) {
        this.addQuestion(question);
        if (isLive(question)) this.announce(strings.announce.started);
        continue;
      }
      const before = view.state;
      this.questions.set(question.id, question);
      if (view.update(question) !== 'unchanged' && before !== question.state) this.announceOutcome(question);
    }
    this.refresh();
    if (followBottom) this.scrollToBottomSoon();
  }

  /** The host's answer to a request: matched by its id, never by its text. */
  reply(requestId: number, outcome: RequestOutcome): void {
    const request = this.pending.get(requestId);
    if (!request) return;
    this.pending.delete(requestId);
    if (request.kind === 'cancel') {
      if (!outcome.ok) this.views.get(request.questionId)?.cancelFailed();
      return;
    }
    if (outcome.ok) this.followupSent(request.text);
    else this.followupFailed(outcome.message);
    this.saveState();
  }

  private followupSent(text: string): void {
    this.sending = undefined;
    // Only the text that was sent leaves the box: a suggestion sent meanwhile keeps the user's draft.
    if (this.box && this.box.draft.trim() === text.trim()) this.box.clearDraft();
    this.box?.clearError();
    this.announce(strings.announce.followupSent);
    this.refresh();
  }

  private followupFailed(message: string): void {
    this.sending = undefined;
    this.box?.showError(message);
    if (!this.box) this.announce(strings.announce.followupFailed(message));
    this.refresh();
  }

  showRemoved(message: string): void {
    this.removed = true;
    this.sending = undefined;
    this.notice.replaceChildren(codicon('warning', 'notice-icon'), element('span', 'notice-text', message || strings.removedNote));
    this.notice.hidden = false;
    this.root.classList.add('is-removed');
    this.header.setRemoved(true);
    this.box?.setRemoved();
    this.refresh();
  }

  private addQuestion(question: Question): void {
    const view = new QuestionView(question, this.questionContext, this.controls());
    this.views.set(question.id, view);
    this.questions.set(question.id, question);
    // Keep id order even if a question arrives late.
    const next = Array.from(this.views.values())
      .filter((other) => other.id > question.id)
      .sort((a, b) => a.id - b.id)[0];
    this.questionList.insertBefore(view.element, next?.element ?? null);
  }

  private buildFooter(): void {
    this.box = undefined;
    if (!this.canEdit) {
      const note = element('p', 'readonly-note');
      note.append(codicon('lock'), element('span', undefined, strings.readOnlyNote));
      this.footer.replaceChildren(note);
      return;
    }
    this.box = new FollowupBox({
      mac: this.mac,
      onSend: (text) => this.askFollowup(text, 'box'),
      onDraftChange: () => this.saveState(),
    });
    this.footer.replaceChildren(this.box.element);
  }

  private askFollowup(text: string, source: SendSource): void {
    if (!this.canEdit || this.removed || this.sending || this.anyLive()) return;
    this.sending = source;
    this.host.postMessage({ type: 'askFollowup', requestId: this.request({ kind: 'followup', text }), text });
    this.saveState();
    this.refresh();
  }

  /** A new request id, remembered with what it asks until the host replies. */
  private request(request: PendingRequest): number {
    const id = this.nextRequestId++;
    if (request.kind === 'followup') {
      for (const [other, pending] of this.pending) if (pending.kind === 'followup') this.pending.delete(other);
    }
    this.pending.set(id, request);
    return id;
  }

  /** Re-derives everything that depends on more than one question. */
  private refresh(): void {
    this.header.setTitle(
      conversationLabel({ id: this.conversationId ?? 0, title: this.conversationTitle, questions: this.questions.values() }, { fallback: strings.untitled }),
    );
    const controls = this.controls();
    for (const view of this.views.values()) view.setControls(controls);
    this.box?.setBusy(this.anyLive());
    this.box?.setSending(this.sending !== undefined);
    this.updateTicker();
  }

  private controls(): ControlState {
    return { canEdit: this.canEdit, busy: this.anyLive() || this.sending !== undefined, removed: this.removed };
  }

  private anyLive(): boolean {
    for (const view of this.views.values()) if (view.live) return true;
    return false;
  }

  private updateTicker(): void {
    const needed = !this.removed && [...this.views.values()].some((view) => view.ticking);
    if (needed && this.ticker === undefined) {
      this.ticker = window.setInterval(() => {
        for (const view of this.views.values()) view.tick();
        // A countdown that just ended needs no more ticks.
        this.updateTicker();
      }, TICK_INTERVAL);
    } else if (!needed && this.ticker !== undefined) {
      window.clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }

  private announceOutcome(question: Question): void {
    switch (question.state) {
      case 'completed':
        this.announce(strings.announce.completed(question.title || question.text));
        break;
      case 'failed':
        this.announce(strings.announce.failed(question.error?.message || question.error?.title || strings.failedTitle));
        break;
      case 'canceled':
        this.announce(strings.announce.canceled);
        break;
      case 'pending':
      case 'processing':
        break;
    }
  }

  private announce(text: string): void {
    // Emptying first makes a repeated message count as a change.
    this.announcer.textContent = '';
    window.setTimeout(() => {
      this.announcer.textContent = text;
    }, 50);
  }

  /**
   * Follows new content in the next frame: reading the page's height right after an answer went in
   * would force the browser to lay it out inside the message handler, and again for every message
   * that arrives before the frame; it lays out once per frame anyway.
   */
  private scrollToBottomSoon(): void {
    if (this.scrollFrame !== undefined) return;
    this.scrollFrame = window.requestAnimationFrame(() => {
      this.scrollFrame = undefined;
      scrollToBottom();
    });
  }

  private scheduleScrollSave(): void {
    if (this.scrollSaveTimer !== undefined) return;
    this.scrollSaveTimer = window.setTimeout(() => {
      this.scrollSaveTimer = undefined;
      this.saveState();
    }, SCROLL_SAVE_DELAY);
  }

  private saveState(): void {
    if (this.conversationId === undefined) return;
    const followup = [...this.pending].find(([, request]) => request.kind === 'followup');
    this.host.setState({
      conversationId: this.conversationId,
      draft: this.box?.draft ?? '',
      scrollTop: Math.round(scroller().scrollTop),
      ...(followup && followup[1].kind === 'followup' ? { pendingFollowup: { requestId: followup[0], text: followup[1].text } } : {}),
    });
  }
}

function sortById(questions: readonly Question[]): Question[] {
  return [...questions].sort((a, b) => a.id - b.id);
}

function scroller(): Element {
  return document.scrollingElement ?? document.documentElement;
}

function isAtBottom(): boolean {
  const page = scroller();
  return page.scrollHeight - page.scrollTop - page.clientHeight <= BOTTOM_SLACK;
}

function scrollToBottom(): void {
  const page = scroller();
  page.scrollTop = page.scrollHeight;
}
