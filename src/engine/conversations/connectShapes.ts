/**
 * The engine's conversations in the shapes of the 7.x conversation API (`connectWire.ts`): one store
 * serves both APIs, so these turn the legacy wire conversation the service renders into a Connect
 * Conversation, Question or ConversationSummary. The resource name's number is the legacy id.
 */
import type { WireConversation, WireQuestion, WireQuestionError } from '../../contract/legacyWire';
import {
  conversationName,
  type ConnectConversation,
  type ConnectConversationSummary,
  type ConnectQuestion,
  type ConnectSource,
  type ConnectState,
  type ConnectStateErrorCode,
  type ConnectStats,
  type ConnectTurn,
} from '../../contract/connectWire';

/** `rich`: also the fields the public documentation does not confirm; `minimal`: input, answer, createTime. */
export type ConnectQuestionShape = 'rich' | 'minimal';

/** How long a title made from the question's text may be. */
const TITLE_LIMIT = 100;

export function toConnectConversation(conversation: WireConversation, shape: ConnectQuestionShape): ConnectConversation {
  const result: ConnectConversation = {
    name: conversationName(conversation.id),
    state: conversationState(conversation.questions),
    createTime: conversation.created_at,
    updateTime: conversation.updated_at,
    questions: conversation.questions.map((question) => toConnectQuestion(question, shape)),
  };
  const title = conversationTitle(conversation);
  if (title !== undefined) result.title = title;
  if (conversation.share_url !== undefined) result.url = conversation.share_url;
  return result;
}

export function toConnectSummary(conversation: WireConversation): ConnectConversationSummary {
  const summary: ConnectConversationSummary = {
    name: conversationName(conversation.id),
    createTime: conversation.created_at,
    updateTime: conversation.updated_at,
  };
  const title = conversationTitle(conversation);
  if (title !== undefined) summary.title = title;
  if (conversation.share_url !== undefined) summary.url = conversation.share_url;
  return summary;
}

export function toConnectQuestion(question: WireQuestion, shape: ConnectQuestionShape): ConnectQuestion {
  const result: ConnectQuestion = { input: [{ question: { text: question.question } }] };
  if (typeof question.answer === 'string') result.answer = [{ markdown: { text: question.answer } }];
  result.createTime = question.created_at;
  if (shape === 'minimal') return result;

  result.updateTime = question.updated_at;
  result.state = questionState(question);
  if (question.title !== undefined) result.title = question.title;
  if (question.sources) {
    result.sources = question.sources.map((source): ConnectSource => ({ type: source.type, link: source.link, label: source.label }));
  }
  if (question.turns) {
    result.turns = question.turns.map((turn): ConnectTurn => ({
      role: turn.role,
      reasoning: turn.reasoning,
      time: new Date(turn.timestamp * 1000).toISOString(),
    }));
  }
  if (Array.isArray(question.suggested_followups)) result.suggestedFollowups = [...question.suggested_followups];
  if (question.stats) {
    const stats: ConnectStats = {};
    if (typeof question.stats.time_millis === 'number') stats.timeMillis = question.stats.time_millis;
    if (typeof question.stats.tool_calls === 'number') stats.toolCalls = question.stats.tool_calls;
    if (typeof question.stats.total_tokens === 'number') stats.totalTokens = question.stats.total_tokens;
    if (typeof question.stats.credits === 'number') stats.credits = question.stats.credits;
    result.stats = stats;
  }
  return result;
}

/** Processing while any question runs; otherwise how the latest question ended. */
export function conversationState(questions: readonly WireQuestion[]): ConnectState {
  if (questions.some(isRunning)) return { processing: {} };
  const latest = questions[questions.length - 1];
  return latest ? questionState(latest) : { completed: {} };
}

/**
 * One question's state. A legacy failure is `completed` (or `failed`) with an error whose kind
 * names it; a cancellation is kind `Cancelled` or status `canceled`.
 */
export function questionState(question: WireQuestion): ConnectState {
  if (isRunning(question)) return { processing: {} };
  const error = question.error ?? undefined;
  if (question.status === 'canceled' || question.status === 'cancelled' || (error?.kind !== undefined && /^cancel+ed$/i.test(error.kind))) {
    return { canceled: {} };
  }
  if (error || question.status === 'failed') return { error: stateError(error) };
  return { completed: {} };
}

/** The error of a failed question, as the one-of's `error`. */
export function stateError(error: WireQuestionError | undefined): { code: ConnectStateErrorCode; message: string; retryTime?: string } {
  const code = errorCode(error?.kind);
  const message = error?.message ?? error?.title ?? 'The engine could not answer this question.';
  const retryTime = retryTimeOf(error);
  return retryTime === undefined ? { code, message } : { code, message, retryTime };
}

/**
 * The engine's error kinds on the new API's codes: quota and rate limits → quota exceeded, token
 * limit → token limit exceeded, entitlements → entitlement exceeded, anything else (internal
 * errors, a full disk) → internal.
 */
export function errorCode(kind: string | undefined): ConnectStateErrorCode {
  const normalized = (kind ?? '').toLowerCase().replace(/[^a-z]/g, '');
  if (normalized.includes('tokenlimit')) return 'ERROR_TOKEN_LIMIT_EXCEEDED';
  if (normalized.includes('ratelimit') || normalized.includes('quota')) return 'ERROR_QUOTA_EXCEEDED';
  if (normalized.includes('entitlement')) return 'ERROR_ENTITLEMENT_EXCEEDED';
  return 'ERROR_INTERNAL';
}

/** When the error says the next question may be asked (`retry_time`, RFC 3339), if it says so validly. */
function retryTimeOf(error: WireQuestionError | undefined): string | undefined {
  const raw = (error as { retry_time?: unknown; retryTime?: unknown } | undefined)?.retry_time ?? (error as { retryTime?: unknown } | undefined)?.retryTime;
  if (typeof raw !== 'string') return undefined;
  const time = Date.parse(raw);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

function isRunning(question: WireQuestion): boolean {
  return question.status === 'processing' || question.status === 'pending';
}

/** The first question's title once answered, else the start of its text. */
function conversationTitle(conversation: WireConversation): string | undefined {
  const first = conversation.questions[0];
  if (!first) return undefined;
  if (first.title !== undefined && first.title.trim() !== '') return first.title;
  const text = first.question.trim().replace(/\s+/g, ' ');
  return text.length > TITLE_LIMIT ? `${text.slice(0, TITLE_LIMIT - 1).trimEnd()}…` : text;
}
