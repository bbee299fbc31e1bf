/**
 * The conversation API of 7.x servers (`/api/deepsearch.v1.Service/<Method>`, Connect protocol,
 * unary JSON): the shapes the extension's client reads and the local engine writes. Output names
 * are lowerCamelCase (protobuf JSON); servers also accept snake_case on input. Fields the public
 * documentation does not confirm are optional here, and readers must not fail without them.
 */

export const CONNECT_SERVICE_PATH = '/api/deepsearch.v1.Service';

export const CONNECT_METHODS = [
  'CreateConversation',
  'GetConversation',
  'ListConversationSummaries',
  'AddConversationQuestion',
  'CancelConversation',
  'DeleteConversation',
] as const;
export type ConnectMethod = (typeof CONNECT_METHODS)[number];

/** The caller, as a parent resource. */
export const SELF_PARENT = 'users/~self';

/** `users/~self/conversations/140` for conversation 140. */
export function conversationName(id: number): string {
  return `${SELF_PARENT}/conversations/${id}`;
}

/** The number of a conversation's resource name (any user segment), or undefined. */
export function conversationIdOfName(name: string): number | undefined {
  const match = /^users\/[^/]{1,100}\/conversations\/(\d{1,15})$/.exec(name);
  const id = match ? Number(match[1]) : NaN;
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

export type ConnectInputBlock = { question: { text: string } } | { image: { uri: string } };
export type ConnectAnswerBlock = { markdown: { text: string } };

export const CONNECT_ERROR_CODES = ['ERROR_INTERNAL', 'ERROR_QUOTA_EXCEEDED', 'ERROR_ENTITLEMENT_EXCEEDED', 'ERROR_TOKEN_LIMIT_EXCEEDED'] as const;
export type ConnectStateErrorCode = (typeof CONNECT_ERROR_CODES)[number];

export interface ConnectStateError {
  /** One of `CONNECT_ERROR_CODES`, or a code newer than this client. */
  code: string;
  message?: string;
  /** When a quota lets the user ask again (RFC 3339). The docs' example spells it `retry_time`. */
  retryTime?: string;
  retry_time?: string;
}

/** A one-of: exactly one key is present. */
export type ConnectState = { processing: object } | { completed: object } | { canceled: object } | { error: ConnectStateError };

export interface ConnectSource {
  type?: string;
  link?: string;
  label?: string;
}

export interface ConnectTurn {
  role?: string;
  reasoning?: string;
  /** RFC 3339. */
  time?: string;
}

export interface ConnectStats {
  timeMillis?: number;
  toolCalls?: number;
  totalTokens?: number;
  credits?: number;
}

export interface ConnectQuestion {
  input: ConnectInputBlock[];
  answer?: ConnectAnswerBlock[];
  createTime?: string;
  /** Unconfirmed fields (accepted when present). */
  updateTime?: string;
  state?: ConnectState;
  title?: string;
  sources?: ConnectSource[];
  turns?: ConnectTurn[];
  suggestedFollowups?: string[];
  stats?: ConnectStats;
}

export interface ConnectConversation {
  name: string;
  state: ConnectState;
  createTime: string;
  updateTime: string;
  title?: string;
  questions: ConnectQuestion[];
  /** The conversation's web page. */
  url?: string;
}

export interface ConnectConversationSummary {
  name: string;
  title?: string;
  createTime: string;
  updateTime: string;
  url?: string;
}

export type ConnectListFilter = { starred: boolean } | { contentQuery: string };

export interface ConnectCreateRequest {
  parent: string;
  conversation: { questions: Array<{ input: ConnectInputBlock[] }> };
}

export interface ConnectNameRequest {
  name: string;
}

export interface ConnectListRequest {
  parent: string;
  pageSize?: number;
  pageToken?: string;
  filters?: ConnectListFilter[];
}

export interface ConnectListResponse {
  conversationSummaries: ConnectConversationSummary[];
  nextPageToken?: string;
}

export interface ConnectAddQuestionRequest {
  parent: string;
  question: { input: ConnectInputBlock[] };
}

/** Connect's error codes (the ones these servers use, and the rest of the protocol's set). */
export type ConnectErrorCode =
  | 'canceled'
  | 'unknown'
  | 'invalid_argument'
  | 'deadline_exceeded'
  | 'not_found'
  | 'already_exists'
  | 'permission_denied'
  | 'resource_exhausted'
  | 'failed_precondition'
  | 'aborted'
  | 'out_of_range'
  | 'unimplemented'
  | 'internal'
  | 'unavailable'
  | 'data_loss'
  | 'unauthenticated';

/** The body of every non-2xx answer. */
export interface ConnectErrorBody {
  code: ConnectErrorCode;
  message: string;
}

/** The HTTP status Connect gives each code. */
export const CONNECT_HTTP_STATUS: Readonly<Record<ConnectErrorCode, number>> = {
  canceled: 499,
  unknown: 500,
  invalid_argument: 400,
  deadline_exceeded: 504,
  not_found: 404,
  already_exists: 409,
  permission_denied: 403,
  resource_exhausted: 429,
  failed_precondition: 400,
  aborted: 409,
  out_of_range: 400,
  unimplemented: 501,
  internal: 500,
  unavailable: 503,
  data_loss: 500,
  unauthenticated: 401,
};
