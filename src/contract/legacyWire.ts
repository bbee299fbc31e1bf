/**
 * The legacy Deep Search conversation API (`/.api/deepsearch/v1`) as it travels on the wire.
 *
 * These are the shapes real servers send (see `reference/deepsearch-api.md`), with every field that
 * some server omits marked optional. The client never hands these to the UI: `api/normalize.ts` turns
 * them into the domain model of `conversations/model.ts`. The local engine produces them.
 */
import { TOOL_SERVER_ENDPOINTS } from './toolServers';

export type WireQuestionStatus = 'pending' | 'processing' | 'completed' | 'failed' | 'canceled' | 'cancelled';

export interface WireTurn {
  reasoning: string;
  /** Unix seconds. */
  timestamp: number;
  role: string;
}

export interface WireSourceMetadata {
  abbreviatedRevision?: string;
  basePath?: string;
  repoName?: string;
  revision?: string;
}

export interface WireSource {
  type: string;
  /** Path relative to the instance, e.g. `/github.com/org/repo`. */
  link: string;
  label: string;
  /** Only older servers send this. */
  metadata?: WireSourceMetadata;
}

export interface WireStats {
  time_millis: number;
  tool_calls: number;
  total_input_tokens: number;
  cached_tokens: number;
  cache_creation_input_tokens: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  credits: number;
}

/** Known kinds: `TokenLimitExceeded`, `Cancelled`, `RateLimitExceeded`, `InternalError`. */
export interface WireQuestionError {
  title?: string;
  kind?: string;
  message?: string;
  details?: string;
}

export interface WireQuestion {
  id: number;
  conversation_id: number;
  question: string;
  created_at: string;
  updated_at: string;
  status: WireQuestionStatus;
  title?: string;
  answer?: string;
  sources?: WireSource[];
  turns?: WireTurn[];
  stats?: Partial<WireStats>;
  suggested_followups?: string[] | null;
  /** A failed (or cancelled) question is `completed` with this set on real servers. */
  error?: WireQuestionError | null;
}

export interface WireViewer {
  is_owner: boolean;
}

export interface WireQuotaUsage {
  total_quota: number;
  /** -1 most likely means unlimited. */
  quota_limit: number;
  reset_time: string;
}

export interface WireConversation {
  id: number;
  questions: WireQuestion[];
  created_at: string;
  updated_at: string;
  user_id?: number;
  read_token?: string;
  share_url?: string;
  /** Present in fetch responses of completed conversations. */
  viewer?: WireViewer;
  /** Present in fetch responses of completed conversations. */
  quota_usage?: WireQuotaUsage;
  /** Seen in one client's types only. */
  starred?: boolean;
}

/** The list call answers a bare array on real servers; some clients also accept this wrapper. */
export interface WireConversationList {
  conversations: WireConversation[];
  next_cursor?: string | null;
  page_info?: { end_cursor?: string | null; has_next_page?: boolean };
}

export interface WireCreateRequest {
  question: string;
}

export interface WireFollowupRequest {
  conversation_id: number;
  question: string;
}

/** Error bodies of the local engine (real servers may answer text or HTML instead). */
export interface WireErrorBody {
  error: string;
}

export type WireSort = 'id' | '-id' | 'created_at' | '-created_at' | 'updated_at' | '-updated_at';

export const WIRE_SORTS: readonly WireSort[] = ['id', '-id', 'created_at', '-created_at', 'updated_at', '-updated_at'];

export const API_PATH = '/.api/deepsearch/v1';
/** The deprecated v1 tool server (`sg_` names); every endpoint is in `contract/toolServers.ts`. */
export const MCP_PATH: string = TOOL_SERVER_ENDPOINTS.v1;

/** A question whose answer is final: neither waiting nor being answered. */
export function isFinished(question: Pick<WireQuestion, 'status'>): boolean {
  return question.status !== 'processing' && question.status !== 'pending';
}

/** The longest question the local engine takes, in characters (a selection's code included). */
export const MAX_QUESTION_LENGTH = 20_000;

/** Stats of nothing done yet. */
export function zeroStats(): WireStats {
  return {
    time_millis: 0,
    tool_calls: 0,
    total_input_tokens: 0,
    cached_tokens: 0,
    cache_creation_input_tokens: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    total_tokens: 0,
    credits: 0,
  };
}
