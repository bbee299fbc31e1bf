/**
 * The one domain model of conversations that every part of the extension works with. Whatever
 * variant a server sends (see `contract/legacyWire.ts`, `contract/connectWire.ts` and
 * `api/normalize*.ts`), it arrives here in this shape.
 */

/**
 * `failed` covers both the spec's `failed` status and real servers' `completed` + `error`;
 * `canceled` covers the `canceled` status and `completed` + an error of kind `Cancelled`.
 */
export type QuestionState = 'pending' | 'processing' | 'completed' | 'failed' | 'canceled';

export interface Turn {
  role: string;
  reasoning: string;
  /** Milliseconds since the epoch. */
  time: number;
}

export interface Source {
  type: string;
  /** Path relative to the instance (e.g. `/github.com/org/repo`) or an absolute URL. */
  link: string;
  label: string;
  repoName?: string;
  revision?: string;
  path?: string;
}

export interface Stats {
  timeMillis: number;
  toolCalls: number;
  totalInputTokens: number;
  cachedTokens: number;
  cacheCreationInputTokens: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  credits: number;
}

export interface QuestionError {
  /** e.g. `TokenLimitExceeded`, `Cancelled`, `RateLimitExceeded`, `InternalError`; '' when the server named none (nothing is invented). */
  kind: string;
  title: string;
  message: string;
  details?: string;
  /** When the user may ask again (a quota's `retryTime`, RFC 3339), if the server said. */
  retryAt?: string;
}

export interface Question {
  id: number;
  conversationId: number;
  text: string;
  createdAt: string;
  updatedAt: string;
  state: QuestionState;
  title?: string;
  answer?: string;
  sources: Source[];
  turns: Turn[];
  stats: Stats;
  suggestedFollowups: string[];
  error?: QuestionError;
}

export interface QuotaUsage {
  total: number;
  /** `undefined` when the server says -1 (unlimited). */
  limit?: number;
  resetTime?: string;
}

export interface Conversation {
  id: number;
  questions: Question[];
  createdAt: string;
  updatedAt: string;
  userId?: number;
  readToken?: string;
  shareUrl?: string;
  /** `false` only when the server says so: a read-only (shared) view. */
  isOwner?: boolean;
  quota?: QuotaUsage;
  starred?: boolean;
  /** The conversation's own title (7.x servers), beside its first question's. */
  title?: string;
  /** Its web page, when the server names one (7.x: `url`). */
  webUrl?: string;
  /**
   * A list entry of a server whose list has summaries only (7.x): its questions are not loaded,
   * so `questions` is empty and says nothing about its state.
   */
  summaryOnly?: boolean;
}

export interface ConversationPage {
  conversations: Conversation[];
  /** Pass as `pageAfter` to get the next page; absent when this page was the last. */
  nextCursor?: string;
}

export type SortOrder = 'id' | '-id' | 'created_at' | '-created_at' | 'updated_at' | '-updated_at';

export interface ListOptions {
  filterId?: number;
  filterUserId?: number;
  filterReadToken?: string;
  filterIsStarred?: boolean;
  pageFirst?: number;
  pageAfter?: string;
  sort?: SortOrder;
  /** Conversations whose questions or answers contain this text (7.x servers only). */
  contentQuery?: string;
}

export const TERMINAL_STATES: ReadonlySet<QuestionState> = new Set(['completed', 'failed', 'canceled']);

export function isFinished(question: Question): boolean {
  return TERMINAL_STATES.has(question.state);
}

/** The last question of a conversation: the one whose state the conversation shows. */
export function latestQuestion(conversation: Conversation): Question | undefined {
  return conversation.questions[conversation.questions.length - 1];
}

/**
 * The conversation with a question it was asked (a follow-up the server took): added at the end,
 * or in place of its own older copy. A copy that is newer already (fetched after the question was
 * sent) is kept. `conversation` absent: one made of that question alone.
 */
export function withQuestion(conversation: Conversation | undefined, conversationId: number, question: Question): Conversation {
  if (!conversation) return { id: conversationId, createdAt: question.createdAt, updatedAt: question.updatedAt, questions: [question] };
  const existing = conversation.questions.find((other) => other.id === question.id);
  if (existing && Date.parse(existing.updatedAt) > Date.parse(question.updatedAt)) return conversation;
  return {
    ...conversation,
    updatedAt: Date.parse(question.updatedAt) > Date.parse(conversation.updatedAt) ? question.updatedAt : conversation.updatedAt,
    questions: [...conversation.questions.filter((other) => other.id !== question.id), question],
  };
}

/** A conversation is unfinished while any of its questions is still pending or processing. */
export function isUnfinished(conversation: Conversation): boolean {
  return conversation.questions.some((question) => !isFinished(question));
}

export function emptyStats(): Stats {
  return {
    timeMillis: 0,
    toolCalls: 0,
    totalInputTokens: 0,
    cachedTokens: 0,
    cacheCreationInputTokens: 0,
    promptTokens: 0,
    completionTokens: 0,
    totalTokens: 0,
    credits: 0,
  };
}
