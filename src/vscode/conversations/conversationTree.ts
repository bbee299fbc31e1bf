/**
 * The Conversations view: the store's list, newest update first, paged with a "Load more" row
 * (and, once paging on has let the newest pages go, a row that brings them back). It keeps no state
 * of its own: every render reads the store.
 */
import * as vscode from 'vscode';
import type { ConversationStore } from '../../conversations/conversationStore';
import { conversationLabel } from '../../model/conversationLabel';
import { latestQuestion, type Conversation, type Question } from '../../model/conversation';
import { Disposables } from '../disposables';
import { formatRelativeTime, formatStats } from '../hostFormat';
import { errorMessage } from '../../api/errors';

export const VIEW_ID = 'deepSearch.conversations';

export type TreeNode = { kind: 'conversation'; id: number } | { kind: 'loadMore' } | { kind: 'showNewest' } | { kind: 'message'; text: string };

export class ConversationTree extends Disposables implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private readonly changeEmitter = this.register(new vscode.EventEmitter<TreeNode | TreeNode[] | undefined>());
  readonly onDidChangeTreeData = this.changeEmitter.event;
  private loadError: string | undefined;
  private reloading: Promise<void> | undefined;
  private readonly nodes = new Map<number, TreeNode>();

  constructor(private readonly store: ConversationStore) {
    super();
    this.register(
      store.onDidChange((change) => {
        if (change.reset || change.listChanged || change.removed.length > 0) {
          void vscode.commands.executeCommand('setContext', 'deepSearch.hasConversations', store.listed.length > 0);
          this.changeEmitter.fire(undefined);
          return;
        }
        // A poll that changed some conversations repaints their rows only, not the whole list.
        const rows = change.changed.flatMap((id) => this.nodes.get(id) ?? []);
        if (rows.length > 0) this.changeEmitter.fire(rows);
      }),
    );
  }

  /** Reloads the first page; failures show as a row rather than a silent empty list. */
  reload(): Promise<void> {
    if (!this.store.signedIn) return Promise.resolve();
    this.loadError = undefined;
    this.reloading ??= this.store
      .refreshList()
      .then(
        () => undefined,
        (error: unknown) => {
          this.loadError = errorMessage(error);
          this.changeEmitter.fire(undefined);
        },
      )
      .finally(() => (this.reloading = undefined));
    return this.reloading.then(() => undefined);
  }

  nodeFor(id: number): TreeNode {
    let node = this.nodes.get(id);
    if (!node) {
      node = { kind: 'conversation', id };
      this.nodes.set(id, node);
    }
    return node;
  }

  getChildren(parent?: TreeNode): TreeNode[] {
    if (parent || !this.store.signedIn) return [];
    if (!this.store.isListLoaded) {
      if (this.loadError) return [{ kind: 'message', text: this.loadError }];
      void this.reload();
      return [];
    }
    const listed = new Set(this.store.listed.map((conversation) => conversation.id));
    // Nodes of conversations paged past go with them (the store lets them go too).
    for (const id of this.nodes.keys()) if (!listed.has(id)) this.nodes.delete(id);
    const rows: TreeNode[] = [...listed].map((id) => this.nodeFor(id));
    if (this.store.hasNewer) rows.unshift({ kind: 'showNewest' });
    if (this.loadError) rows.push({ kind: 'message', text: this.loadError });
    if (this.store.hasMore) rows.push({ kind: 'loadMore' });
    return rows;
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    switch (node.kind) {
      case 'loadMore': {
        const item = new vscode.TreeItem(vscode.l10n.t('Load more…'));
        item.iconPath = new vscode.ThemeIcon('more');
        item.command = { command: 'deepSearch.loadMore', title: vscode.l10n.t('Load More Conversations') };
        return item;
      }
      case 'showNewest': {
        const item = new vscode.TreeItem(vscode.l10n.t('Show newest conversations'));
        item.iconPath = new vscode.ThemeIcon('arrow-up');
        item.tooltip = vscode.l10n.t('Newer conversations were let go while loading older ones; this loads the first page again.');
        item.command = { command: 'deepSearch.refresh', title: vscode.l10n.t('Refresh') };
        return item;
      }
      case 'message': {
        const item = new vscode.TreeItem(node.text);
        item.iconPath = new vscode.ThemeIcon('warning');
        item.tooltip = node.text;
        return item;
      }
      case 'conversation': {
        const conversation = this.store.get(node.id);
        return conversation ? conversationItem(conversation, !this.store.isReadOnly(node.id)) : new vscode.TreeItem(vscode.l10n.t('(deleted)'));
      }
    }
  }
}

function conversationItem(conversation: Conversation, owned: boolean): vscode.TreeItem {
  const item = new vscode.TreeItem(conversationLabel(conversation));
  const question = latestQuestion(conversation);
  item.id = `conversation:${conversation.id}`;
  item.description = formatRelativeTime(conversation.updatedAt);
  item.iconPath = stateIcon(question);
  item.tooltip = tooltip(conversation, question);
  const running = question?.state === 'pending' || question?.state === 'processing';
  item.contextValue = ['conversation', owned ? 'owned' : 'shared', question?.state ?? 'empty', ...(running ? ['running'] : [])].join(' ');
  item.command = { command: 'deepSearch.openConversation', title: vscode.l10n.t('Open Conversation'), arguments: [conversation.id] };
  item.accessibilityInformation = { label: `${conversationLabel(conversation)}, ${stateLabel(question)}` };
  return item;
}

function stateIcon(question: Question | undefined): vscode.ThemeIcon {
  switch (question?.state) {
    case 'pending':
    case 'processing':
      return new vscode.ThemeIcon('loading~spin');
    case 'failed':
      return new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'));
    case 'canceled':
      return new vscode.ThemeIcon('circle-slash');
    default:
      return new vscode.ThemeIcon('comment-discussion');
  }
}

function stateLabel(question: Question | undefined): string {
  switch (question?.state) {
    case 'pending':
    case 'processing':
      return vscode.l10n.t('running');
    case 'failed':
      return vscode.l10n.t('failed');
    case 'canceled':
      return vscode.l10n.t('cancelled');
    default:
      return vscode.l10n.t('answered');
  }
}

function tooltip(conversation: Conversation, question: Question | undefined): vscode.MarkdownString {
  const markdown = new vscode.MarkdownString(undefined, true);
  markdown.isTrusted = false;
  markdown.supportHtml = false;
  markdown.appendText(conversationLabel(conversation));
  markdown.appendMarkdown('\n\n');
  for (const asked of conversation.questions) {
    markdown.appendMarkdown('$(comment) ');
    markdown.appendText(asked.text.length > 300 ? `${asked.text.slice(0, 300)}…` : asked.text);
    markdown.appendMarkdown('\n\n');
  }
  if (question) {
    markdown.appendText(`${stateLabel(question)} · ${formatStats(question.stats)}`);
  }
  return markdown;
}
