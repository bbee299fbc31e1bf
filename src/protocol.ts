/**
 * The one typed protocol between the extension host and a conversation panel's webview. Both sides
 * import this file; the compiler checks every `switch` over `type`.
 *
 * Order: the webview posts `ready` once its script runs; only then does the host send, starting
 * with a full `snapshot`, followed by `questions` carrying only what changed. After a webview
 * reload, `ready` comes again and so does a fresh snapshot.
 */
import type { Conversation, Question } from './model/conversation';

/**
 * The id of the page's `<script type="application/json">` element that carries the translations
 * (`vscode.l10n.bundle`), which the host writes into the page and the webview reads at start.
 */
export const L10N_BUNDLE_ELEMENT_ID = 'l10n-bundle';

/** Conversation fields other than its questions, for headers and actions. */
export type ConversationSummary = Omit<Conversation, 'questions'>;

/** What the panel persists with `setState` (never tokens or answers). */
export interface PanelViewState {
  conversationId: number;
  draft: string;
  scrollTop: number;
  /** The follow-up sent and not yet answered, so its reply is understood after a reload of the page. */
  pendingFollowup?: { requestId: number; text: string };
}

/**
 * The cited lines of a citation, for its preview: from the workspace's checkout when it has the
 * repository, else from the instance's tool server. At most `MAX_PREVIEW_LINES` lines, each cut at
 * `MAX_PREVIEW_LINE_LENGTH` characters; `more` says how many cited lines are not shown.
 */
export type CitationPreview = { ok: true; from: 'workspace' | 'instance'; startLine: number; lines: string[]; more: number } | { ok: false; message: string };

export const MAX_PREVIEW_LINES = 40;
export const MAX_PREVIEW_LINE_LENGTH = 400;

/** What the user asked of a file an answer generated. */
export type GeneratedFileAction = 'open' | 'saveAs';

/** How a request of the webview ended: done, or not, with what to tell the user. */
export type RequestOutcome = { ok: true } | { ok: false; message: string };

export type HostMessage =
  /** Everything the panel shows; sent after every `ready`. */
  | {
      type: 'snapshot';
      conversation: Conversation;
      /** False for read-only (shared) views: no follow-ups, cancel or delete. */
      canEdit: boolean;
      /** Host clock in ms, so elapsed times agree with the host. */
      now: number;
      /** The instance the conversation lives on: absolute links on it can be citations. */
      instanceUrl?: string;
    }
  /** Questions that changed or were added since the last message, matched by id. */
  | { type: 'questions'; summary: ConversationSummary; questions: Question[]; now: number }
  /**
   * The answer to a request that needs one (`askFollowup`, `cancel`), by the webview's `requestId`:
   * a follow-up that failed keeps its draft and says why; a cancel that failed lets the user try again.
   */
  | { type: 'reply'; requestId: number; outcome: RequestOutcome }
  /** The conversation no longer exists on the server. */
  | { type: 'removed'; message: string }
  /** The lines a citation cites, answering the webview's `preview` of the same id. */
  | { type: 'preview'; previewId: number; preview: CitationPreview };

export type PanelAction = 'copyShareLink' | 'openInBrowser' | 'export' | 'delete';

export type WebviewMessage =
  | { type: 'ready' }
  /** `requestId`s are the webview's own, unique per page; the host echoes them in its `reply`. */
  | { type: 'askFollowup'; requestId: number; text: string }
  | { type: 'cancel'; requestId: number; questionId: number }
  /** Every click on a link: the host decides what opens, the webview never navigates. */
  | { type: 'openLink'; href: string }
  | { type: 'copyText'; text: string }
  | { type: 'action'; action: PanelAction }
  /** A new conversation whose question box holds `text`, to narrow it down before sending. */
  | { type: 'askNarrower'; text: string }
  /** Opens a file the answer generated in an editor, or saves it where the user picks. */
  | { type: 'generatedFile'; href: string; action: GeneratedFileAction }
  /** Opens one answer as a Markdown document in an editor. */
  | { type: 'openAnswer'; questionId: number }
  /** The cited lines of a citation the user hovered or focused (never asked otherwise). */
  | { type: 'preview'; previewId: number; href: string };

const WEBVIEW_MESSAGE_TYPES: ReadonlySet<string> = new Set<WebviewMessage['type']>([
  'ready',
  'askFollowup',
  'cancel',
  'openLink',
  'copyText',
  'action',
  'preview',
  'openAnswer',
  'askNarrower',
  'generatedFile',
]);
const PANEL_ACTIONS: ReadonlySet<string> = new Set<PanelAction>(['copyShareLink', 'openInBrowser', 'export', 'delete']);

/** The host trusts nothing from the webview: checks shape before acting. */
export function isWebviewMessage(value: unknown): value is WebviewMessage {
  if (typeof value !== 'object' || value === null) return false;
  const message = value as Record<string, unknown>;
  if (typeof message.type !== 'string' || !WEBVIEW_MESSAGE_TYPES.has(message.type)) return false;
  switch (message.type as WebviewMessage['type']) {
    case 'ready':
      return true;
    case 'askFollowup':
      return isRequestId(message.requestId) && typeof message.text === 'string';
    case 'cancel':
      return isRequestId(message.requestId) && typeof message.questionId === 'number';
    case 'openLink':
      return typeof message.href === 'string';
    case 'copyText':
      return typeof message.text === 'string';
    case 'action':
      return typeof message.action === 'string' && PANEL_ACTIONS.has(message.action);
    case 'openAnswer':
      return typeof message.questionId === 'number';
    case 'generatedFile':
      return typeof message.href === 'string' && message.href.length <= 4_000 && (message.action === 'open' || message.action === 'saveAs');
    case 'askNarrower':
      return typeof message.text === 'string' && message.text.length <= 100_000;
    case 'preview':
      return isRequestId(message.previewId) && typeof message.href === 'string' && message.href.length <= 4_000;
  }
}

function isRequestId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/**
 * The questions of `next` that differ from `previous` (added or changed), so the host sends only
 * those after the snapshot.
 */
export function changedQuestions(previous: Conversation | undefined, next: Conversation): Question[] {
  const before = new Map(previous?.questions.map((question) => [question.id, JSON.stringify(question)]));
  return next.questions.filter((question) => before.get(question.id) !== JSON.stringify(question));
}
