/**
 * Conversation panels: one webview panel per conversation, restored after a reload by the
 * serializer. Each panel observes the store; after the webview says `ready` it gets a snapshot,
 * then only the questions that changed. While hidden (its page is discarded) it gets nothing, and
 * a fresh snapshot when it shows again.
 */
import * as vscode from 'vscode';
import type { ConversationStore } from '../conversations/conversationStore';
import { conversationLabel } from '../model/conversationLabel';
import { errorMessage, isDeepSearchError } from '../api/errors';
import type { Conversation } from '../model/conversation';
import { changedQuestions, isWebviewMessage, type CitationPreview, type GeneratedFileAction, type HostMessage, type PanelViewState, type WebviewMessage } from '../protocol';
import { Disposables } from './disposables';
import { createNonce, panelHtml } from './panelHtml';

export const PANEL_VIEW_TYPE = 'deepSearch.conversation';
/** Citation previews kept per panel; the oldest go first. */
const MAX_CACHED_PREVIEWS = 300;

/**
 * Which instance an open panel's conversation lives on, kept across reloads: ids are only unique
 * per instance, so a panel restored while signed in elsewhere must not load that other instance's
 * conversation with the same id.
 */
export interface PanelInstances {
  /** The current connection, e.g. an instance URL or `local`; undefined when signed out. */
  current(): string | undefined;
  recorded(id: number): string | undefined;
  record(id: number, instance: string | undefined): void;
}

/** What the panel's header buttons and links do; implemented by the commands. */
export interface PanelActions {
  openLink(href: string): PromiseLike<unknown>;
  /** The cited lines of a link, for its preview; never rejects. */
  previewCitation(href: string): Promise<CitationPreview>;
  copyShareLink(id: number): PromiseLike<unknown>;
  openInBrowser(id: number): PromiseLike<unknown>;
  exportMarkdown(id: number): PromiseLike<unknown>;
  openAnswerAsMarkdown(id: number, questionId: number): PromiseLike<unknown>;
  /** Opens or saves a file an answer generated. */
  generatedFile(href: string, action: GeneratedFileAction): PromiseLike<unknown>;
  /** Ask, with `draft` in the question box. */
  askWithDraft(draft: string): PromiseLike<unknown>;
  deleteConversation(id: number): PromiseLike<unknown>;
}

export class ConversationPanels extends Disposables implements vscode.Disposable {
  private readonly panels = new Map<number, PanelHost>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly store: ConversationStore,
    private readonly actions: PanelActions,
    private readonly instances: PanelInstances,
  ) {
    super();
    // The extension host is going away: let go of the panels, which VS Code restores next time.
    this.register({
      dispose: () => {
        for (const panel of [...this.panels.values()]) panel.detach();
        this.panels.clear();
      },
    });
    this.register(
      vscode.window.registerWebviewPanelSerializer(PANEL_VIEW_TYPE, {
        deserializeWebviewPanel: async (webviewPanel, state: unknown) => {
          const id = (state as Partial<PanelViewState> | undefined)?.conversationId;
          if (typeof id !== 'number') {
            webviewPanel.dispose();
            return;
          }
          this.adopt(id, webviewPanel);
        },
      }),
    );
  }

  /** Shows the conversation's panel, creating it if needed (asking for an open one reveals it). */
  open(id: number, options: { preserveFocus?: boolean } = {}): void {
    const existing = this.panels.get(id);
    if (existing) {
      existing.reveal(options.preserveFocus);
      return;
    }
    const webviewPanel = vscode.window.createWebviewPanel(
      PANEL_VIEW_TYPE,
      this.titleFor(id),
      { viewColumn: vscode.ViewColumn.Active, preserveFocus: options.preserveFocus },
      webviewOptions(this.extensionUri),
    );
    this.adopt(id, webviewPanel);
  }

  /** The conversation of the panel that has focus, if one has. */
  activeId(): number | undefined {
    return [...this.panels.values()].find((panel) => panel.active)?.id;
  }

  isVisible(id: number): boolean {
    return this.panels.get(id)?.visible ?? false;
  }

  /** What the conversation's webview was last sent (undefined before it said `ready`). */
  shownConversation(id: number): Conversation | undefined {
    return this.panels.get(id)?.shownConversation;
  }

  close(id: number): void {
    this.panels.get(id)?.dispose();
  }

  get openIds(): number[] {
    return [...this.panels.keys()];
  }

  private adopt(id: number, webviewPanel: vscode.WebviewPanel): void {
    const existing = this.panels.get(id);
    if (existing) {
      // A background tab restored after the conversation was opened again: keep one panel.
      webviewPanel.dispose();
      existing.reveal(true);
      return;
    }
    webviewPanel.webview.options = webviewOptions(this.extensionUri);
    const panel: PanelHost = new PanelHost(id, webviewPanel, this.extensionUri, this.store, this.actions, this.instances, () => {
      if (this.panels.get(id) === panel) this.panels.delete(id);
      this.instances.record(id, undefined);
    });
    this.panels.set(id, panel);
  }

  private titleFor(id: number): string {
    const conversation = this.store.get(id);
    return conversation ? conversationLabel(conversation, { maxLength: TAB_TITLE_LENGTH }) : vscode.l10n.t('Deep Search');
  }
}

function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions & vscode.WebviewPanelOptions {
  return {
    enableScripts: true,
    enableCommandUris: false,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist', 'webview')],
  };
}

/** A tab shows a short label: the one rule of every name, cut shorter. */
const TAB_TITLE_LENGTH = 41;

/** The host side of one conversation's webview panel (the page itself is webview/conversationPanel.ts). */
class PanelHost {
  private ready = false;
  /** What the webview shows now, to send only what changed. */
  private shown: Conversation | undefined;
  private shownCanEdit = true;
  /** Why the conversation cannot be shown (deleted, unreachable), kept until the page is ready. */
  private removedMessage: string | undefined;
  /** The outcome of a follow-up sent while the page was hidden (and discarded), for its next load. */
  private pendingOutcome: HostMessage | undefined;
  private loadFailures = 0;
  /** Previews of this conversation's citations, by link: each read once while the panel is open. */
  private readonly previews = new Map<string, Promise<CitationPreview>>();
  private readonly disposables: vscode.Disposable[] = [];
  private disposed = false;

  constructor(
    readonly id: number,
    private readonly webviewPanel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    private readonly store: ConversationStore,
    private readonly actions: PanelActions,
    private readonly instances: PanelInstances,
    private readonly onDispose: () => void,
  ) {
    const assets = vscode.Uri.joinPath(extensionUri, 'dist', 'webview');
    const asset = (name: string) => webviewPanel.webview.asWebviewUri(vscode.Uri.joinPath(assets, name)).toString();
    webviewPanel.iconPath = {
      light: vscode.Uri.joinPath(extensionUri, 'media', 'deep-search-light.svg'),
      dark: vscode.Uri.joinPath(extensionUri, 'media', 'deep-search-dark.svg'),
    };
    webviewPanel.webview.html = panelHtml({
      cspSource: webviewPanel.webview.cspSource,
      nonce: createNonce(),
      scriptUri: asset('webview.js'),
      styleUris: [asset('codicon.css'), asset('panel.css')],
      title: webviewPanel.title,
      l10nBundle: vscode.l10n.bundle,
    });
    this.disposables.push(
      webviewPanel.webview.onDidReceiveMessage((message: unknown) => {
        if (isWebviewMessage(message)) void this.handle(message);
      }),
      webviewPanel.onDidChangeViewState(() => this.visibilityChanged()),
      webviewPanel.onDidDispose(() => this.dispose()),
      toDisposable(store.onDidChange((change) => {
        // Signed out or another account: this conversation is not theirs to see any more.
        if (change.reset) this.dispose();
        else if (change.removed.includes(id)) this.removed(vscode.l10n.t('This conversation was deleted.'));
        else if (change.changed.includes(id)) this.update();
      })),
    );
    store.setWatched(id, webviewPanel.visible);
    this.load();
  }

  /** Loads now, or once signed in (a panel restored after a reload may come before the session). */
  private load(): void {
    const recorded = this.instances.recorded(this.id);
    const current = this.instances.current();
    if (!this.store.signedIn || (recorded !== undefined && recorded !== current)) {
      this.removed(
        recorded !== undefined && current !== undefined
          ? vscode.l10n.t('This conversation is on {0}: sign in there to see it.', recorded === 'local' ? vscode.l10n.t('the local engine') : recorded)
          : vscode.l10n.t('Sign in to Deep Search to see this conversation.'),
      );
      const waiting = this.store.onDidChange(() => {
        if (!this.store.signedIn || (recorded !== undefined && this.instances.current() !== recorded)) return;
        waiting.dispose();
        this.removedMessage = undefined;
        this.load();
      });
      this.disposables.push(toDisposable(waiting));
      return;
    }
    this.instances.record(this.id, current);
    this.store.load(this.id).then(
      () => this.update(),
      (error: unknown) => {
        if (isDeepSearchError(error) && error.kind === 'notFound') {
          this.removed(errorMessage(error));
          return;
        }
        // Unreachable or failing for now: not gone. Try again, less and less often.
        this.loadFailures++;
        const delay = Math.min(60_000, 2_000 * 2 ** (this.loadFailures - 1));
        const retry = setTimeout(() => !this.disposed && this.load(), delay);
        this.disposables.push(new vscode.Disposable(() => clearTimeout(retry)));
      },
    );
  }

  get visible(): boolean {
    return !this.disposed && this.webviewPanel.visible;
  }

  get active(): boolean {
    return !this.disposed && this.webviewPanel.active;
  }

  get shownConversation(): Conversation | undefined {
    return this.shown;
  }

  reveal(preserveFocus = false): void {
    this.webviewPanel.reveal(undefined, preserveFocus);
  }

  /** Closes the panel for good. */
  dispose(): void {
    if (this.disposed) return;
    this.onDispose();
    this.detach();
    this.webviewPanel.dispose();
  }

  /** Stops listening, leaving the webview panel to VS Code. */
  detach(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.store.setWatched(this.id, false);
    for (const disposable of this.disposables) disposable.dispose();
  }

  private visibilityChanged(): void {
    this.store.setWatched(this.id, this.webviewPanel.visible);
    if (!this.webviewPanel.visible) {
      // The page is discarded while hidden; it says `ready` again when shown.
      this.ready = false;
      this.shown = undefined;
    }
  }

  private update(): void {
    const conversation = this.store.get(this.id);
    if (!conversation || this.disposed) return;
    this.removedMessage = undefined;
    this.webviewPanel.title = conversationLabel(conversation, { maxLength: TAB_TITLE_LENGTH });
    if (!this.ready) return;
    const canEdit = !this.store.isReadOnly(this.id);
    if (!this.shown || canEdit !== this.shownCanEdit) {
      this.post({ type: 'snapshot', conversation, canEdit, now: Date.now(), instanceUrl: this.store.instanceUrl });
      this.shownCanEdit = canEdit;
    } else {
      const questions = changedQuestions(this.shown, conversation);
      const { questions: _questions, ...summary } = conversation;
      this.post({ type: 'questions', summary, questions, now: Date.now() });
    }
    this.shown = conversation;
  }

  private removed(message: string): void {
    this.removedMessage = message;
    // Should it come back (signed in again, reachable again), the page needs a whole snapshot.
    this.shown = undefined;
    this.post({ type: 'removed', message });
  }

  private async handle(message: WebviewMessage): Promise<void> {
    switch (message.type) {
      case 'ready':
        this.ready = true;
        this.shown = undefined;
        if (this.removedMessage) this.post({ type: 'removed', message: this.removedMessage });
        else this.update();
        if (this.pendingOutcome) this.post(this.pendingOutcome);
        this.pendingOutcome = undefined;
        return;
      case 'askFollowup':
        return this.askFollowup(message.requestId, message.text);
      case 'cancel':
        try {
          await this.store.cancel(this.id, message.questionId);
          this.post({ type: 'reply', requestId: message.requestId, outcome: { ok: true } });
        } catch (error) {
          const said = errorMessage(error);
          // The webview's Cancel works again; the message says why this one did not.
          this.post({ type: 'reply', requestId: message.requestId, outcome: { ok: false, message: said } });
          void vscode.window.showErrorMessage(said);
        }
        return;
      case 'openLink':
        return this.run(() => this.actions.openLink(message.href));
      case 'copyText':
        return this.run(() => vscode.env.clipboard.writeText(message.text));
      case 'generatedFile':
        return this.run(() => this.actions.generatedFile(message.href, message.action));
      case 'askNarrower':
        return this.run(() => this.actions.askWithDraft(message.text));
      case 'openAnswer':
        return this.run(() => this.actions.openAnswerAsMarkdown(this.id, message.questionId));
      case 'preview': {
        const preview = await this.preview(message.href);
        this.post({ type: 'preview', previewId: message.previewId, preview });
        return;
      }
      case 'action':
        switch (message.action) {
          case 'copyShareLink':
            return this.run(() => this.actions.copyShareLink(this.id));
          case 'openInBrowser':
            return this.run(() => this.actions.openInBrowser(this.id));
          case 'export':
            return this.run(() => this.actions.exportMarkdown(this.id));
          case 'delete':
            return this.run(() => this.actions.deleteConversation(this.id));
        }
    }
  }

  private preview(href: string): Promise<CitationPreview> {
    let preview = this.previews.get(href);
    if (!preview) {
      preview = this.actions.previewCitation(href);
      if (this.previews.size >= MAX_CACHED_PREVIEWS) this.previews.delete(this.previews.keys().next().value!);
      this.previews.set(href, preview);
      // A failure (unreachable, signed out) is not kept: the next hover asks again.
      void preview.then((result) => !result.ok && this.previews.get(href) === preview && this.previews.delete(href));
    }
    return preview;
  }

  private async askFollowup(requestId: number, text: string): Promise<void> {
    if (!text.trim()) {
      this.post({ type: 'reply', requestId, outcome: { ok: false, message: vscode.l10n.t('Type a question first.') } });
      return;
    }
    try {
      await this.store.addFollowup(this.id, text.trim());
      this.postOutcome({ type: 'reply', requestId, outcome: { ok: true } });
    } catch (error) {
      // Never retried automatically: the draft stays in the box for the user to send again.
      this.postOutcome({ type: 'reply', requestId, outcome: { ok: false, message: errorMessage(error) } });
    }
  }

  /** Delivered now, or after the next `ready` if the page was discarded while it was being sent. */
  private postOutcome(message: HostMessage): void {
    if (this.ready) this.post(message);
    else this.pendingOutcome = message;
  }

  private async run(action: () => PromiseLike<unknown>): Promise<void> {
    try {
      await action();
    } catch (error) {
      void vscode.window.showErrorMessage(errorMessage(error));
    }
  }

  private post(message: HostMessage): void {
    if (!this.disposed && this.ready) void this.webviewPanel.webview.postMessage(message);
  }
}

function toDisposable(subscription: { dispose(): void }): vscode.Disposable {
  return new vscode.Disposable(() => subscription.dispose());
}
