/**
 * The panel header: the conversation's title and its actions (share link, browser, export, delete).
 * Delete is only offered to whoever may edit; a read-only view says so.
 */
import type { PanelAction } from '../protocol';
import { button, codicon, element } from './dom';
import { strings } from './strings';

// Labels are looked up when the header is built, not at import: the translations load after that.
const ACTIONS: readonly { action: PanelAction; icon: string; label: () => string }[] = [
  { action: 'copyShareLink', icon: 'link', label: () => strings.actions.copyShareLink },
  { action: 'openInBrowser', icon: 'link-external', label: () => strings.actions.openInBrowser },
  { action: 'export', icon: 'markdown', label: () => strings.actions.export },
  { action: 'delete', icon: 'trash', label: () => strings.actions.delete },
];

export class ConversationHeader {
  readonly element: HTMLElement;
  private readonly titleElement: HTMLElement;
  private readonly readOnlyBadge: HTMLElement;
  private readonly buttons = new Map<PanelAction, HTMLButtonElement>();

  constructor(onAction: (action: PanelAction) => void) {
    this.element = element('header', 'conversation-header');
    const titleRow = element('div', 'conversation-title-row');
    this.titleElement = element('h1', 'conversation-title');
    this.readOnlyBadge = element('span', 'badge readonly-badge');
    this.readOnlyBadge.append(codicon('lock'), element('span', undefined, strings.readOnly));
    this.readOnlyBadge.title = strings.readOnlyNote;
    this.readOnlyBadge.hidden = true;
    titleRow.append(this.titleElement, this.readOnlyBadge);

    const actions = element('div', 'conversation-actions');
    actions.setAttribute('role', 'group');
    actions.setAttribute('aria-label', strings.actionsLabel);
    for (const { action, icon, label } of ACTIONS) {
      const actionButton = button({
        className: `icon-button action-${action}`,
        icon,
        ariaLabel: label(),
        onClick: () => onAction(action),
      });
      actionButton.dataset.action = action;
      this.buttons.set(action, actionButton);
      actions.append(actionButton);
    }
    this.element.append(titleRow, actions);
  }

  setTitle(title: string): void {
    if (this.titleElement.textContent !== title) this.titleElement.textContent = title;
  }

  setCanEdit(canEdit: boolean): void {
    this.readOnlyBadge.hidden = canEdit;
    this.buttons.get('delete')!.hidden = !canEdit;
  }

  setRemoved(removed: boolean): void {
    for (const actionButton of this.buttons.values()) actionButton.disabled = removed;
  }
}
