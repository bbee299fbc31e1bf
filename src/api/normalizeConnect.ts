/**
 * 7.x conversation API answers (`connectWire.ts`) into the one domain model. Questions there have
 * no ids: a question's id is its position in the conversation (1, 2, …), which is stable because
 * questions are only ever appended. Fields the documentation does not confirm (a question's own
 * state, title, sources, turns, follow-ups, stats) are used when present and never required.
 */
import { conversationIdOfName, type ConnectStateErrorCode } from '../contract/connectWire';
import * as l10n from '@vscode/l10n';
import { invalidResponseError } from './errors';
import { isRecord, list, record, text } from './jsonValues';
import {
  emptyStats,
  type Conversation,
  type ConversationPage,
  type Question,
  type QuestionError,
  type QuestionState,
  type Source,
  type Stats,
  type Turn,
} from '../model/conversation';

/** The most questions, blocks or sources read from one answer: a bound on what a server can make us hold. */
const MAX_ITEMS = 1000;

export function normalizeConnectConversation(value: unknown): Conversation {
  const wire = record(value, l10n.t('a conversation'));
  const id = idOfName(wire.name);
  const questionsWire = list(wire.questions);
  const latestState = connectState(wire.state);
  const questions = questionsWire
    .slice(0, MAX_ITEMS)
    .map((question, index) =>
      index === questionsWire.length - 1
        ? normalizeConnectQuestion(question, id, index + 1, latestState)
        : normalizeConnectQuestion(question, id, index + 1, undefined, true),
    );
  const conversation: Conversation = {
    id,
    questions,
    createdAt: text(wire.createTime) ?? text(wire.create_time) ?? '',
    updatedAt: text(wire.updateTime) ?? text(wire.update_time) ?? text(wire.createTime) ?? '',
  };
  const title = text(wire.title);
  if (title) conversation.title = title;
  const url = webUrl(wire.url);
  if (url) conversation.webUrl = url;
  // The new API has no read tokens: only the owner's own conversations are reachable through it.
  conversation.isOwner = true;
  return conversation;
}

/**
 * A question at `position` (1-based). `conversationState` is the conversation's state, which is
 * the latest question's when the question does not carry its own.
 */
export function normalizeConnectQuestion(
  value: unknown,
  conversationId: number,
  position: number,
  conversationState?: ConnectStateReading,
  isEarlier = false,
): Question {
  const wire = record(value, l10n.t('a question'));
  const own = wire.state === undefined ? undefined : connectState(wire.state);
  const reading = own ?? conversationState ?? (isEarlier ? earlierReading(wire.answer) : { state: answerText(wire.answer) ? 'completed' : 'processing' });
  const createdAt = text(wire.createTime) ?? text(wire.create_time) ?? '';
  const question: Question = {
    id: position,
    conversationId,
    text: inputText(wire.input),
    createdAt,
    updatedAt: text(wire.updateTime) ?? text(wire.update_time) ?? createdAt,
    state: reading.state,
    sources: list(wire.sources)
      .slice(0, MAX_ITEMS)
      .map(normalizeSource)
      .filter((source): source is Source => source !== undefined),
    turns: list(wire.turns)
      .slice(0, MAX_ITEMS)
      .map(normalizeTurn)
      .filter((turn): turn is Turn => turn !== undefined),
    stats: normalizeStats(wire.stats),
    suggestedFollowups: list(wire.suggestedFollowups ?? wire.suggested_followups)
      .slice(0, MAX_ITEMS)
      .filter((followup): followup is string => typeof followup === 'string' && followup.trim() !== ''),
  };
  const title = text(wire.title);
  if (title) question.title = title;
  const answer = answerText(wire.answer);
  if (answer) question.answer = answer;
  if (reading.error) question.error = reading.error;
  return question;
}

export function normalizeConnectSummaryPage(value: unknown): ConversationPage {
  const wire = record(value, l10n.t('a list of conversations'));
  const summaries = list(wire.conversationSummaries ?? wire.conversation_summaries);
  const conversations = summaries.slice(0, MAX_ITEMS).map((summary) => {
    const entry = record(summary, l10n.t('a conversation summary'));
    const conversation: Conversation = {
      id: idOfName(entry.name),
      questions: [],
      createdAt: text(entry.createTime) ?? text(entry.create_time) ?? '',
      updatedAt: text(entry.updateTime) ?? text(entry.update_time) ?? '',
      isOwner: true,
      summaryOnly: true,
    };
    const title = text(entry.title);
    if (title) conversation.title = title;
    const url = webUrl(entry.url);
    if (url) conversation.webUrl = url;
    return conversation;
  });
  const page: ConversationPage = { conversations };
  const next = text(wire.nextPageToken) ?? text(wire.next_page_token);
  if (next) page.nextCursor = next;
  return page;
}

/**
 * A question before the latest has ended (only the latest can run: a server takes no question while
 * one runs). Without a state of its own: answered, or ended without an answer.
 */
function earlierReading(answer: unknown): ConnectStateReading {
  if (answerText(answer)) return { state: 'completed' };
  return { state: 'failed', error: { kind: '', title: l10n.t('This question ended without an answer'), message: '' } };
}

export interface ConnectStateReading {
  state: QuestionState;
  error?: QuestionError;
}

/** The error codes of a failed state (titles read when used, after the translations are configured). */
const STATE_ERRORS: Readonly<Record<ConnectStateErrorCode, { kind: string; title: () => string }>> = {
  ERROR_QUOTA_EXCEEDED: { kind: 'QuotaExceeded', title: () => l10n.t('Your Deep Search quota is used up') },
  ERROR_ENTITLEMENT_EXCEEDED: { kind: 'EntitlementExceeded', title: () => l10n.t('Your plan does not allow more Deep Search questions') },
  ERROR_TOKEN_LIMIT_EXCEEDED: { kind: 'TokenLimitExceeded', title: () => l10n.t('The question needed more tokens than allowed') },
  ERROR_INTERNAL: { kind: 'InternalError', title: () => l10n.t('The instance had an internal error') },
};

/** The one-of `state`: exactly one of processing, completed, canceled, error. */
export function connectState(value: unknown): ConnectStateReading {
  if (!isRecord(value)) throw invalidResponseError(l10n.t('a conversation without a state'));
  if ('error' in value) {
    const error = isRecord(value.error) ? value.error : {};
    const code = text(error.code) ?? '';
    const known = Object.hasOwn(STATE_ERRORS, code) ? STATE_ERRORS[code as ConnectStateErrorCode] : undefined;
    const questionError: QuestionError = {
      kind: known?.kind ?? code,
      title: known?.title() ?? l10n.t('The question failed'),
      message: text(error.message) ?? '',
    };
    const retryAt = text(error.retryTime) ?? text(error.retry_time);
    if (retryAt && !Number.isNaN(Date.parse(retryAt))) questionError.retryAt = retryAt;
    return { state: 'failed', error: questionError };
  }
  if ('canceled' in value || 'cancelled' in value) return { state: 'canceled' };
  if ('completed' in value) return { state: 'completed' };
  // `processing`, or a state this client does not know yet: keep polling rather than show half an answer.
  return { state: 'processing' };
}

function idOfName(value: unknown): number {
  const id = typeof value === 'string' ? conversationIdOfName(value) : undefined;
  if (id === undefined) throw invalidResponseError(l10n.t('a conversation name that is not users/…/conversations/<number>'));
  return id;
}

/** The question's text blocks, joined (an image block is named, not shown). */
function inputText(value: unknown): string {
  return list(value)
    .slice(0, MAX_ITEMS)
    .map((block) => {
      if (!isRecord(block)) return '';
      if (isRecord(block.question)) return text(block.question.text) ?? '';
      if (isRecord(block.image)) return l10n.t('[image]');
      return '';
    })
    .filter(Boolean)
    .join('\n\n');
}

/** Markdown blocks joined with a blank line. */
function answerText(value: unknown): string | undefined {
  const parts = list(value)
    .slice(0, MAX_ITEMS)
    .map((block) => (isRecord(block) && isRecord(block.markdown) ? (text(block.markdown.text) ?? '') : ''))
    .filter(Boolean);
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}

function webUrl(value: unknown): string | undefined {
  const url = text(value);
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.toString() : undefined;
  } catch {
    return undefined;
  }
}

function normalizeSource(value: unknown): Source | undefined {
  if (!isRecord(value)) return undefined;
  const link = text(value.link) ?? text(value.url) ?? '';
  const label = text(value.label) ?? link;
  if (!link && !label) return undefined;
  return { type: text(value.type) ?? 'Unknown', link, label };
}

function normalizeTurn(value: unknown): Turn | undefined {
  if (!isRecord(value)) return undefined;
  const time = Date.parse(text(value.time) ?? '');
  return { role: text(value.role) ?? 'assistant', reasoning: typeof value.reasoning === 'string' ? value.reasoning : '', time: Number.isNaN(time) ? 0 : time };
}

function normalizeStats(value: unknown): Stats {
  const stats = emptyStats();
  if (!isRecord(value)) return stats;
  for (const field of Object.keys(stats) as Array<keyof Stats>) {
    const number = value[field];
    if (typeof number === 'number' && Number.isFinite(number)) stats[field] = number;
  }
  return stats;
}
