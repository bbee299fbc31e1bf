/**
 * How running questions show outside their panel: a status-bar item with the count, and a
 * notification with "Open" when one finishes while its panel is not visible.
 */
import * as vscode from 'vscode';
import type { ConversationStore } from '../../conversations/conversationStore';
import { conversationLabel } from '../../model/conversationLabel';
import { latestQuestion, type Conversation } from '../../model/conversation';
import { VIEW_ID } from './conversationTree';
import { Disposables } from '../disposables';

export class RunningIndicator extends Disposables implements vscode.Disposable {
  private readonly item = this.register(vscode.window.createStatusBarItem('deepSearch.running', vscode.StatusBarAlignment.Left, 50));

  constructor(
    private readonly store: ConversationStore,
    private readonly isPanelVisible: (id: number) => boolean,
    private readonly openConversation: (id: number) => void,
  ) {
    super();
    this.item.name = vscode.l10n.t('Deep Search: running questions');
    this.item.command = `${VIEW_ID}.focus`;
    this.register(store.onDidChange(() => this.render()));
    this.register(store.onDidFinish((conversation) => void this.finished(conversation)));
    this.render();
  }

  private render(): void {
    const running = this.store.runningCount;
    if (running === 0) {
      this.item.hide();
      return;
    }
    this.item.text = `$(loading~spin) ${running}`;
    this.item.tooltip = running === 1 ? vscode.l10n.t('1 Deep Search question is running') : vscode.l10n.t('{0} Deep Search questions are running', running);
    this.item.accessibilityInformation = { label: String(this.item.tooltip) };
    this.item.show();
  }

  private async finished(conversation: Conversation): Promise<void> {
    const question = latestQuestion(conversation);
    // A cancellation is the user's own doing: nothing to announce.
    if (this.isPanelVisible(conversation.id) || question?.state === 'canceled') return;
    const label = conversationLabel(conversation);
    const message =
      question?.state === 'failed'
        ? vscode.l10n.t('Deep Search could not answer "{0}": {1}', label, question.error?.message ?? '')
        : vscode.l10n.t('Deep Search answered "{0}"', label);
    const open = vscode.l10n.t('Open');
    const show = question?.state === 'failed' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    if ((await show(message, open)) === open) this.openConversation(conversation.id);
  }
}
