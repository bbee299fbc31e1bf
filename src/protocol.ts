/**
 * The one typed protocol between the extension host and a conversation panel's webview. Both sides
 * import this file; the compiler checks every `switch` over `type`.
 *
 * Order: the webview posts `ready` once its script runs; only then does the host send, starting
 * with a full `snapshot`, followed by `questions` carrying only what changed. After a webview
 * reload, `ready` comes again and so does a fresh snapshot.
 */
import type { Conversation, Question } from './conversations/model';

/** Conversation fields other than its questions, for headers and actions. */
export type ConversationSummary = Omit<Conversation, 'questions'>;

/** What the panel persists with `setState` (never tokens or answers). */
export interface PanelViewState {
  conversationId: number;
  draft: string;
  scrollTop: number;
}

export type HostMessage =
  /** Everything the panel shows; sent after every `ready`. */
  | {
      type: 'snapshot';
      conversation: Conversation;
      /** False for read-only (shared) views: no follow-ups, cancel or delete. */
      canEdit: boolean;
      /** Host clock in ms, so elapsed times agree with the host. */
      now: number;
    }
  /** Questions that changed or were added since the last message, matched by id. */
  | { type: 'questions'; summary: ConversationSummary; questions: Question[]; now: number }
  /** A follow-up could not be sent; the webview keeps the draft and shows why. */
  | { type: 'followupFailed'; message: string }
  /**
   * The follow-up `text` was accepted: the webview clears its draft if that is what the draft
   * holds (after a reload of the page, only the draft tells what was being sent).
   */
  | { type: 'followupSent'; text: string }
  /** The conversation no longer exists on the server. */
  | { type: 'removed'; message: string };

export type PanelAction = 'copyShareLink' | 'openInBrowser' | 'export' | 'delete';

export type WebviewMessage =
  | { type: 'ready' }
  | { type: 'askFollowup'; text: string }
  | { type: 'cancel'; questionId: number }
  /** Every click on a link: the host decides what opens, the webview never navigates. */
  | { type: 'openLink'; href: string }
  | { type: 'copyText'; text: string }
  | { type: 'action'; action: PanelAction };

const WEBVIEW_MESSAGE_TYPES: ReadonlySet<string> = new Set<WebviewMessage['type']>([
  'ready',
  'askFollowup',
  'cancel',
  'openLink',
  'copyText',
  'action',
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
      return typeof message.text === 'string';
    case 'cancel':
      return typeof message.questionId === 'number';
    case 'openLink':
      return typeof message.href === 'string';
    case 'copyText':
      return typeof message.text === 'string';
    case 'action':
      return typeof message.action === 'string' && PANEL_ACTIONS.has(message.action);
  }
}

/**
 * The questions of `next` that differ from `previous` (added or changed), so the host sends only
 * those after the snapshot.
 */
export function changedQuestions(previous: Conversation | undefined, next: Conversation): Question[] {
  const before = new Map(previous?.questions.map((question) => [question.id, JSON.stringify(question)]));
  return next.questions.filter((question) => before.get(question.id) !== JSON.stringify(question));
}
