/**
 * Pure conversion of what a server sent (unknown JSON, any documented variant) into the domain
 * model. Missing optional fields get defaults, unknown fields are ignored, and anything that is
 * not a conversation at all becomes an `invalidResponse` error.
 */
import * as l10n from '@vscode/l10n';
import { invalidResponseError } from './errors';
import { isRecord, list, record, text, type Json } from './jsonValues';
import { parseRepoLink } from '../model/repoLinks';
import {
  emptyStats,
  type Conversation,
  type ConversationPage,
  type Question,
  type QuestionError,
  type QuestionState,
  type QuotaUsage,
  type Source,
  type Stats,
  type Turn,
} from '../model/conversation';

export function normalizeConversation(value: unknown): Conversation {
  const wire = record(value, l10n.t('a conversation'));
  const id = identifier(wire.id, 'conversation');
  if (wire.questions !== undefined && wire.questions !== null && !Array.isArray(wire.questions)) {
    throw invalidResponseError(l10n.t('the questions of a conversation are not a list'));
  }
  const questions = ((wire.questions as unknown[] | null | undefined) ?? []).map((question) => normalizeQuestion(question, id));
  const conversation: Conversation = {
    id,
    questions,
    createdAt: text(wire.created_at) ?? '',
    updatedAt: text(wire.updated_at) ?? text(wire.created_at) ?? '',
  };
  const userId = optionalIdentifier(wire.user_id);
  if (userId !== undefined) conversation.userId = userId;
  const readToken = text(wire.read_token);
  if (readToken) conversation.readToken = readToken;
  const shareUrl = text(wire.share_url);
  if (shareUrl) conversation.shareUrl = shareUrl;
  const viewer = isRecord(wire.viewer) ? wire.viewer : undefined;
  if (typeof viewer?.is_owner === 'boolean') conversation.isOwner = viewer.is_owner;
  const quota = normalizeQuota(wire.quota_usage);
  if (quota) conversation.quota = quota;
  if (typeof wire.starred === 'boolean') conversation.starred = wire.starred;
  return conversation;
}

/** `conversationId` fills in a question that does not name its conversation. */
export function normalizeQuestion(value: unknown, conversationId?: number): Question {
  const wire = record(value, l10n.t('a question'));
  const id = identifier(wire.id, 'question');
  const ownerId = optionalIdentifier(wire.conversation_id) ?? conversationId;
  if (ownerId === undefined) {
    throw invalidResponseError(l10n.t('a question without its conversation id'));
  }
  const error = normalizeQuestionError(wire.error);
  const question: Question = {
    id,
    conversationId: ownerId,
    text: text(wire.question) ?? '',
    createdAt: text(wire.created_at) ?? '',
    updatedAt: text(wire.updated_at) ?? text(wire.created_at) ?? '',
    state: questionState(wire.status, error),
    sources: list(wire.sources)
      .map(normalizeSource)
      .filter((source): source is Source => !!source),
    turns: list(wire.turns)
      .map(normalizeTurn)
      .filter((turn): turn is Turn => !!turn),
    stats: normalizeStats(wire.stats),
    suggestedFollowups: list(wire.suggested_followups).filter((followup): followup is string => typeof followup === 'string' && followup.trim() !== ''),
  };
  const title = text(wire.title);
  if (title) question.title = title;
  const answer = text(wire.answer);
  if (answer) question.answer = answer;
  if (error) {
    question.error = error;
  } else if (question.state === 'failed') {
    question.error = { kind: '', title: l10n.t('The question failed'), message: '' };
  }
  return question;
}

/**
 * A page of the list call: a bare array or `{conversations, <cursor>}`. Without a cursor in the
 * body, the next cursor is the last item's id when the page was full (`pageFirst` items).
 */
export function normalizeConversationPage(value: unknown, pageFirst?: number): ConversationPage {
  let items: unknown[];
  let cursor: string | null | undefined;
  if (Array.isArray(value)) {
    items = value;
  } else if (isRecord(value) && Array.isArray(value.conversations)) {
    items = value.conversations;
    cursor = responseCursor(value);
  } else {
    throw invalidResponseError(l10n.t('the conversation list is neither a list nor {conversations: [...]}'));
  }
  const conversations = items.map(normalizeConversation);
  const page: ConversationPage = { conversations };
  if (typeof cursor === 'string' && cursor !== '') {
    page.nextCursor = cursor;
  } else if (cursor === undefined && pageFirst !== undefined && pageFirst > 0 && conversations.length >= pageFirst) {
    page.nextCursor = String(conversations[conversations.length - 1].id);
  }
  return page;
}

/** `string` = a cursor; `null` = the server said there are no more pages; `undefined` = not said. */
function responseCursor(wire: Json): string | null | undefined {
  for (const key of ['next_cursor', 'nextCursor', 'cursor']) {
    if (key in wire) {
      return cursorValue(wire[key]);
    }
  }
  for (const infoKey of ['page_info', 'pageInfo']) {
    const info = wire[infoKey];
    if (isRecord(info)) {
      if (info.has_next_page === false || info.hasNextPage === false) {
        return null;
      }
      for (const key of ['end_cursor', 'endCursor']) {
        if (key in info) {
          return cursorValue(info[key]);
        }
      }
    }
  }
  return undefined;
}

function cursorValue(value: unknown): string | null {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : null;
}

export type FollowupResponse = { kind: 'conversation'; conversation: Conversation } | { kind: 'question'; question: Question };

/** A follow-up answers the new Question alone on some servers and the whole Conversation on others. */
export function normalizeFollowupResponse(value: unknown, conversationId: number): FollowupResponse {
  const wire = record(value, l10n.t('a follow-up answer'));
  if (Array.isArray(wire.questions)) {
    return { kind: 'conversation', conversation: normalizeConversation(wire) };
  }
  const question = normalizeQuestion(wire, conversationId);
  if (question.conversationId !== conversationId) {
    throw invalidResponseError(l10n.t('the follow-up was added to conversation {0}, not {1}', question.conversationId, conversationId));
  }
  return { kind: 'question', question };
}

function questionState(status: unknown, error: QuestionError | undefined): QuestionState {
  const known = typeof status === 'string' ? status.toLowerCase() : '';
  if (known === 'canceled' || known === 'cancelled') {
    return 'canceled';
  }
  if (error && (known === 'completed' || known === 'failed' || !isKnownStatus(known))) {
    return isCancellation(error.kind) ? 'canceled' : 'failed';
  }
  if (known === 'pending' || known === 'processing' || known === 'completed' || known === 'failed') {
    return known;
  }
  if (typeof status !== 'string' && status !== undefined) {
    throw invalidResponseError(l10n.t('a question status that is not text'));
  }
  // An unknown or missing status without an error: keep polling rather than show a half answer.
  return 'processing';
}

function isKnownStatus(status: string): boolean {
  return ['pending', 'processing', 'completed', 'failed'].includes(status);
}

function isCancellation(kind: string): boolean {
  return /^cancel+ed$/i.test(kind);
}

/** Titles for the error kinds a server may send without one (read when used: see errors.ts). */
const DEFAULT_ERROR_TITLES: Readonly<Record<string, () => string>> = {
  TokenLimitExceeded: () => l10n.t('The question needed more tokens than allowed'),
  Cancelled: () => l10n.t('The question was cancelled'),
  RateLimitExceeded: () => l10n.t('The rate limit was exceeded'),
  InternalError: () => l10n.t('The instance had an internal error'),
};

function normalizeQuestionError(value: unknown): QuestionError | undefined {
  if (typeof value === 'string' && value.trim()) {
    return { kind: '', title: value.trim(), message: value.trim() };
  }
  if (!isRecord(value)) {
    return undefined;
  }
  const kind = text(value.kind) ?? text(value.code);
  const title = text(value.title);
  const message = text(value.message);
  const details = text(value.details);
  if (!kind && !title && !message && !details) {
    return undefined;
  }
  const error: QuestionError = {
    kind: kind ?? '',
    title:
      title ?? (Object.hasOwn(DEFAULT_ERROR_TITLES, kind ?? '') ? DEFAULT_ERROR_TITLES[kind ?? '']() : undefined) ?? message ?? l10n.t('The question failed'),
    message: message ?? '',
  };
  if (details) error.details = details;
  return error;
}

function normalizeSource(value: unknown): Source | undefined {
  if (!isRecord(value)) {
    return undefined;
  }
  const link = text(value.link) ?? text(value.url) ?? '';
  const label = text(value.label) ?? text(value.name) ?? link;
  if (!link && !label) {
    return undefined;
  }
  const source: Source = { type: text(value.type) ?? 'Unknown', link, label };
  const metadata = isRecord(value.metadata) ? value.metadata : {};
  const parsed = link ? parseRepoLink(link) : undefined;
  const repoName = text(metadata.repoName) ?? parsed?.repoName;
  const revision = text(metadata.revision) ?? text(metadata.abbreviatedRevision) ?? parsed?.revision;
  const path = text(metadata.basePath) ?? parsed?.path;
  if (repoName) source.repoName = repoName;
  if (revision) source.revision = revision;
  if (path) source.path = path;
  return source;
}

function normalizeTurn(value: unknown): Turn | undefined {
  if (!isRecord(value)) {
    return undefined;
  }
  return {
    role: text(value.role) ?? 'assistant',
    reasoning: typeof value.reasoning === 'string' ? value.reasoning : '',
    time: timestampMs(value.timestamp),
  };
}

/** Turns carry Unix seconds; tolerate milliseconds and ISO strings from other servers. */
function timestampMs(value: unknown): number {
  const numeric = typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
  if (typeof numeric === 'number' && Number.isFinite(numeric)) {
    return Math.round(numeric > 1e11 ? numeric : numeric * 1000);
  }
  if (typeof value === 'string') {
    const parsed = Date.parse(value);
    if (!Number.isNaN(parsed)) {
      return parsed;
    }
  }
  return 0;
}

const STAT_FIELDS: ReadonlyArray<[keyof Stats, string]> = [
  ['timeMillis', 'time_millis'],
  ['toolCalls', 'tool_calls'],
  ['totalInputTokens', 'total_input_tokens'],
  ['cachedTokens', 'cached_tokens'],
  ['cacheCreationInputTokens', 'cache_creation_input_tokens'],
  ['promptTokens', 'prompt_tokens'],
  ['completionTokens', 'completion_tokens'],
  ['totalTokens', 'total_tokens'],
  ['credits', 'credits'],
];

function normalizeStats(value: unknown): Stats {
  const stats = emptyStats();
  if (isRecord(value)) {
    for (const [field, wireField] of STAT_FIELDS) {
      stats[field] = number(value[wireField]) ?? 0;
    }
  }
  return stats;
}

function normalizeQuota(value: unknown): QuotaUsage | undefined {
  if (!isRecord(value)) {
    return undefined;
  }
  const quota: QuotaUsage = { total: number(value.total_quota) ?? 0 };
  const limit = number(value.quota_limit);
  // -1 (and any negative) means the instance sets no limit.
  if (limit !== undefined && limit >= 0) quota.limit = limit;
  const resetTime = text(value.reset_time);
  if (resetTime) quota.resetTime = resetTime;
  return quota;
}

// ---------------------------------------------------------------------------------------------
// Small validators

/** Ids are integers; some servers and proxies send them as numeric strings. */
function identifier(value: unknown, of: 'conversation' | 'question'): number {
  const id = optionalIdentifier(value);
  if (id === undefined) {
    throw invalidResponseError(of === 'conversation' ? l10n.t('missing or malformed conversation id') : l10n.t('missing or malformed question id'));
  }
  return id;
}

function optionalIdentifier(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) {
    return value;
  }
  if (typeof value === 'string' && /^\d+$/.test(value.trim())) {
    const id = Number(value.trim());
    return Number.isSafeInteger(id) ? id : undefined;
  }
  return undefined;
}

function number(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) {
    return value;
  }
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) {
    return Number(value);
  }
  return undefined;
}
