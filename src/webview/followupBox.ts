/**
 * The follow-up box at the bottom of the panel: a textarea that sends on Ctrl/Cmd+Enter, unavailable
 * (and saying why) while a question is still running, a follow-up is on its way, or the
 * conversation is gone. The draft survives a failed send; the host's reply that it was sent clears it.
 */
import { button, element } from './dom';
import { strings } from './strings';

export interface FollowupBoxOptions {
  /** Show ⌘ rather than Ctrl in the hint. */
  mac: boolean;
  onSend(text: string): void;
  onDraftChange(draft: string): void;
}

export class FollowupBox {
  readonly element: HTMLElement;
  private readonly textarea: HTMLTextAreaElement;
  private readonly sendButton: HTMLButtonElement;
  private readonly note: HTMLElement;
  private readonly error: HTMLElement;
  private busy = false;
  private sending = false;
  private removed = false;
  /** The box had focus when it became unavailable: give focus back when it is available again. */
  private refocus = false;

  constructor(private readonly options: FollowupBoxOptions) {
    this.element = element('div', 'followup-box');

    this.textarea = element('textarea', 'followup-input');
    this.textarea.id = 'followup-input';
    this.textarea.rows = 3;
    this.textarea.placeholder = strings.followupPlaceholder;
    this.textarea.setAttribute('aria-label', strings.followupLabel);
    this.textarea.addEventListener('input', () => {
      this.clearError();
      this.options.onDraftChange(this.textarea.value);
    });
    this.textarea.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey) && !event.isComposing) {
        event.preventDefault();
        this.send();
      }
    });

    const hint = element('span', 'followup-hint', strings.sendHint(options.mac));
    hint.id = 'followup-hint';
    this.note = element('p', 'followup-note');
    this.note.id = 'followup-note';
    this.note.hidden = true;
    this.error = element('p', 'followup-error');
    this.error.id = 'followup-error';
    this.error.setAttribute('role', 'alert');
    this.error.hidden = true;
    this.textarea.setAttribute('aria-describedby', 'followup-note followup-error followup-hint');

    this.sendButton = button({
      className: 'primary-button send-button',
      icon: 'send',
      label: strings.send,
      onClick: () => this.send(),
    });

    const footer = element('div', 'followup-footer');
    footer.append(hint, this.sendButton);
    this.element.append(this.note, this.textarea, footer, this.error);
    this.applyAvailability();
  }

  get draft(): string {
    return this.textarea.value;
  }

  setDraft(text: string): void {
    this.textarea.value = text;
  }

  /** While any question is pending or processing, no follow-up can be asked. */
  setBusy(busy: boolean): void {
    this.busy = busy;
    this.applyAvailability();
  }

  /** Between posting `askFollowup` and the host's answer: one question must not be sent twice. */
  setSending(sending: boolean): void {
    this.sending = sending;
    this.applyAvailability();
  }

  setRemoved(): void {
    this.removed = true;
    this.applyAvailability();
  }

  /** The host accepted the follow-up this box sent. */
  clearDraft(): void {
    this.textarea.value = '';
    this.options.onDraftChange('');
  }

  showError(message: string): void {
    this.error.textContent = message;
    this.error.hidden = false;
  }

  clearError(): void {
    this.error.textContent = '';
    this.error.hidden = true;
  }

  private send(): void {
    if (this.unavailable) return;
    const text = this.textarea.value.trim();
    if (!text) {
      this.textarea.focus();
      return;
    }
    this.clearError();
    this.options.onSend(text);
  }

  private get unavailable(): boolean {
    return this.busy || this.sending || this.removed;
  }

  private applyAvailability(): void {
    const active = document.activeElement;
    if (this.unavailable && (active === this.textarea || active === this.sendButton)) this.refocus = true;
    this.textarea.disabled = this.unavailable;
    this.sendButton.disabled = this.unavailable;
    const reason = this.removed ? strings.removedNote : this.sending ? strings.sending : this.busy ? strings.busyNote : '';
    this.note.textContent = reason;
    this.note.hidden = reason === '';
    this.element.classList.toggle('is-unavailable', this.unavailable);
    if (!this.unavailable && this.refocus) {
      this.refocus = false;
      // Only when focus went nowhere in between: never steal it from where the user moved it.
      if (!document.activeElement || document.activeElement === document.body) this.textarea.focus();
    }
  }
}
