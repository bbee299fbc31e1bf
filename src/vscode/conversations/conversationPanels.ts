/**
 * Conversation panels: one webview panel per conversation, restored after a reload by the
 * serializer. Each panel observes the store; after the webview says `ready` it gets a snapshot,
 * then only the questions that changed. While hidden (its page is discarded) it gets nothing, and
 * a fresh snapshot when it shows again.
 */
import * as vscode from 'vscode';
import type { ConversationStore } from '../../conversations/conversationStore';
import { conversationLabel } from '../../model/conversationLabel';
import { errorMessage, isDeepSearchError } from '../../api/errors';
import type { Conversation } from '../../model/conversation';
import {
  changedQuestions,
  isWebviewMessage,
  type CitationPreview,
  type GeneratedFileAction,
  type HostMessage,
  type PanelAction,
  type PanelViewState,
  type RequestOutcome,
  type WebviewMessage,
} from '../../protocol';
import { Disposables } from '../disposables';
import { createNonce, panelHtml } from './panelHtml';

export const PANEL_VIEW_TYPE = 'deepSearch.conversation';
/** Citation previews kept per panel; the oldest go first. */
const MAX_CACHED_PREVIEWS = 300;
/**
 * Replies kept for a page discarded while they were on their way (one per request the page had in
 * flight when it was hidden, so a handful); past this the oldest go first.
 */
const MAX_UNDELIVERED_REPLIES = 20;

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

/**
 * What the panel's header buttons and links do: the commands' own functions, called directly, so a
 * failure rejects here and the panel says what failed (they show no error themselves).
 */
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

/** What every panel works with: given once to ConversationPanels, handed down to each panel. */
export interface PanelContext {
  extensionUri: vscode.Uri;
  store: ConversationStore;
  actions: PanelActions;
  instances: PanelInstances;
  /** Where a failed action is logged (its message is also shown to the user). */
  log: Pick<vscode.LogOutputChannel, 'error'>;
}

/** One panel's own part of its context. */
interface PanelHostContext extends PanelContext {
  id: number;
  webviewPanel: vscode.WebviewPanel;
  /** Called once when the panel closes for good (not when the extension host lets it go). */
  onDispose: () => void;
}

export class ConversationPanels extends Disposables implements vscode.Disposable {
  private readonly panels = new Map<number, PanelHost>();

  constructor(private readonly context: PanelContext) {
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
      webviewOptions(this.context.extensionUri),
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
    webviewPanel.webview.options = webviewOptions(this.context.extensionUri);
    const panel: PanelHost = new PanelHost({
      ...this.context,
      id,
      webviewPanel,
      onDispose: () => {
        if (this.panels.get(id) === panel) this.panels.delete(id);
        this.context.instances.record(id, undefined);
      },
    });
    this.panels.set(id, panel);
  }

  private titleFor(id: number): string {
    const conversation = this.context.store.get(id);
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

/** What the user is told when a header button's action fails: which action, and why. */
const ACTION_FAILED: Record<PanelAction, (reason: string) => string> = {
  copyShareLink: (reason) => vscode.l10n.t('Could not copy the share link: {0}', reason),
  openInBrowser: (reason) => vscode.l10n.t('Could not open the conversation in the browser: {0}', reason),
  export: (reason) => vscode.l10n.t('Could not export the conversation: {0}', reason),
  delete: (reason) => vscode.l10n.t('Could not delete the conversation: {0}', reason),
};

/** The host side of one conversation's webview panel (the page itself is webview/conversationPanel.ts). */
class PanelHost extends Disposables {
  readonly id: number;
  private readonly webviewPanel: vscode.WebviewPanel;
  private readonly store: ConversationStore;
  private readonly actions: PanelActions;
  private readonly instances: PanelInstances;
  private readonly log: PanelContext['log'];
  private readonly onDispose: () => void;
  private ready = false;
  /** What the webview shows now, to send only what changed. */
  private shown: Conversation | undefined;
  private shownCanEdit = true;
  /** Why the conversation cannot be shown (deleted, unreachable), kept until the page is ready. */
  private removedMessage: string | undefined;
  /** Replies that came while the page was hidden (and discarded), for its next load. */
  private readonly undeliveredReplies: HostMessage[] = [];
  private loadFailures = 0;
  /** Previews of this conversation's citations, by link: each read once while the panel is open. */
  private readonly previews = new Map<string, Promise<CitationPreview>>();

  constructor(context: PanelHostContext) {
    super();
    const { id, webviewPanel, extensionUri, store } = context;
    this.id = id;
    this.webviewPanel = webviewPanel;
    this.store = store;
    this.actions = context.actions;
    this.instances = context.instances;
    this.log = context.log;
    this.onDispose = context.onDispose;
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
    // Disposed last (children go newest first): the store stops polling for this panel.
    this.register({ dispose: () => store.setWatched(id, false) });
    this.register(
      webviewPanel.webview.onDidReceiveMessage((message: unknown) => {
        if (isWebviewMessage(message)) void this.handle(message);
      }),
    );
    this.register(webviewPanel.onDidChangeViewState(() => this.visibilityChanged()));
    this.register(webviewPanel.onDidDispose(() => this.dispose()));
    this.register(
      store.onDidChange((change) => {
        // Signed out or another account: this conversation is not theirs to see any more.
        if (change.reset) this.dispose();
        else if (change.removed.includes(id)) this.removed(vscode.l10n.t('This conversation was deleted.'));
        else if (change.changed.includes(id)) this.update();
      }),
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
      const waiting = this.register(
        this.store.onDidChange(() => {
          if (!this.store.signedIn || (recorded !== undefined && this.instances.current() !== recorded)) return;
          waiting.dispose();
          this.removedMessage = undefined;
          this.load();
        }),
      );
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
        this.register({ dispose: () => clearTimeout(retry) });
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
  override dispose(): void {
    if (this.disposed) return;
    this.onDispose();
    this.detach();
    this.webviewPanel.dispose();
  }

  /** Stops listening, leaving the webview panel to VS Code. */
  detach(): void {
    super.dispose();
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
        for (const reply of this.undeliveredReplies.splice(0)) this.post(reply);
        return;
      case 'askFollowup':
        return this.askFollowup(message.requestId, message.text);
      case 'cancel':
        try {
          await this.store.cancel(this.id, message.questionId);
          this.reply(message.requestId, { ok: true });
        } catch (error) {
          const said = errorMessage(error);
          // The webview's Cancel works again; the message says why this one did not.
          this.reply(message.requestId, { ok: false, message: said });
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
        // Not kept for a later page: a preview answers the hover of the page that asked, and a page
        // discarded meanwhile has no tooltip left to fill (the next one asks again when hovered).
        this.post({ type: 'preview', previewId: message.previewId, preview });
        return;
      }
      case 'action':
        return this.run(() => this.act(message.action), ACTION_FAILED[message.action]);
    }
  }

  private act(action: PanelAction): PromiseLike<unknown> {
    switch (action) {
      case 'copyShareLink':
        return this.actions.copyShareLink(this.id);
      case 'openInBrowser':
        return this.actions.openInBrowser(this.id);
      case 'export':
        return this.actions.exportMarkdown(this.id);
      case 'delete':
        return this.actions.deleteConversation(this.id);
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
      this.reply(requestId, { ok: false, message: vscode.l10n.t('Type a question first.') });
      return;
    }
    try {
      await this.store.addFollowup(this.id, text.trim());
      this.reply(requestId, { ok: true });
    } catch (error) {
      // Never retried automatically: the draft stays in the box for the user to send again.
      this.reply(requestId, { ok: false, message: errorMessage(error) });
    }
  }

  /**
   * Answers a request of the page: now, or after the next `ready` if the page was discarded (hidden)
   * while the request was being handled. Every reply goes through here.
   */
  private reply(requestId: number, outcome: RequestOutcome): void {
    const message: HostMessage = { type: 'reply', requestId, outcome };
    if (this.ready) {
      this.post(message);
      return;
    }
    if (this.undeliveredReplies.length >= MAX_UNDELIVERED_REPLIES) this.undeliveredReplies.shift();
    this.undeliveredReplies.push(message);
  }

  /**
   * Runs what the user asked for; a failure is shown here, once (the actions show none themselves),
   * in `failed`'s words when given, and logged.
   */
  private async run(action: () => PromiseLike<unknown>, failed: (reason: string) => string = (reason) => reason): Promise<void> {
    try {
      await action();
    } catch (error) {
      const message = failed(errorMessage(error));
      this.log.error(`Conversation ${this.id}: ${message}`);
      void vscode.window.showErrorMessage(message);
    }
  }

  /**
   * Sends to the page if it is there. Only for what is sent again in full at the next `ready`
   * (snapshot, questions, removed) and for transient answers (previews); replies use `reply()`.
   */
  private post(message: HostMessage): void {
    if (!this.disposed && this.ready) void this.webviewPanel.webview.postMessage(message);
  }
}
