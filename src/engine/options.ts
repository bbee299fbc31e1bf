/**
 * How the local engine is configured and what a running engine offers. The CLI (`cli.ts`), the
 * extension's "Use Local Engine" and every test start it through `startEngine(options)` in
 * `server.ts` with these types.
 */
import type { WireQuestionError } from '../contract/legacyWire';
import type { InvestigationLimits, ModelSource } from './models/chatModel';
import type { OAuthOptions } from './oauth/authorizationServer';
import type { EngineUser } from './http/auth';
import type { RepoCaches } from './repo/repoCaches';
import type { RegexWorker } from './search/regex';
import type { ProcessLauncher } from './git/processLauncher';

export type { EngineUser } from './http/auth';

/** The documented ways real servers differ; the engine can speak each, so clients are tested on all. */
export interface EngineVariant {
  /** Status of a successful create: real servers answer 200 or 202. Default 200. */
  createStatus?: 200 | 202;
  /** A bare JSON array (real servers) or `{conversations, next_cursor}`. Default `array`. */
  listShape?: 'array' | 'wrapped';
  /** What a follow-up POST answers: the new Question alone, or the whole Conversation. Default `question`. */
  followupReturns?: 'question' | 'conversation';
  /** How a cancelled question ends: `completed` + error kind `Cancelled`, or status `canceled`. Default `error`. */
  cancelStyle?: 'error' | 'status';
  /** How a failed question ends: `completed` + error, or status `failed`. Default `error`. */
  failureStyle?: 'error' | 'status';
  /** Status of a successful delete: 200 with a JSON body or 204 without one. Default 204. */
  deleteStatus?: 200 | 204;
  /**
   * Which tool server endpoints exist (contract/toolServers.ts): `both` (7.x today: 2026's family
   * `/.api/mcp/all`, `/.api/mcp`, `/.api/mcp/deepsearch`, and the deprecated `/.api/mcp/v1` with
   * `sg_` names), `v1` (6.8–6.x: `/.api/mcp/v1` only), `current` (a future server: the 2026 family
   * without v1) or `none` (before 6.8, or `mcp.enabled: false`: 404). Default `both`.
   */
  toolServer?: 'both' | 'v1' | 'current' | 'none';
  /**
   * Which lanes of MCP the tool server endpoints speak: `both` (the 2025 handshake and the
   * 2026-07-28 stateless revision, on the same endpoints, as servers do while clients move), `2025`
   * (the handshake only, as every server before the revision) or `2026` (the revision only, as a
   * server that dropped the handshake). Default `both`.
   */
  toolProtocol?: '2025' | '2026' | 'both';
  /**
   * Tools an admin disabled (`mcp.tools.disabled`), by their 2026 names (`nls_search`): absent from
   * tools/list on every endpoint, and a tool error "not found" when called. Default none.
   */
  disabledTools?: string[];
  /**
   * `denied`: the users lack the `MCP#ACCESS` permission, and every tool server endpoint answers
   * 403 (after the token check). Default `allowed`.
   */
  mcpAccess?: 'allowed' | 'denied';
  /**
   * Which conversation APIs exist: `both` (7.x: the legacy `/.api/deepsearch/v1` and the Connect
   * `/api/deepsearch.v1.Service/*`, one store behind them), `legacy` (6.x: the Connect paths answer
   * a plain 404) or `connect` (a server without the legacy API: it answers 404). Default `both`.
   */
  conversationApis?: 'legacy' | 'both' | 'connect';
  /**
   * The Connect API's questions: `rich` (also the fields the docs do not confirm: `updateTime`,
   * `state`, `title`, `sources`, `turns`, `suggestedFollowups`, `stats`) or `minimal` (only the
   * documented `input`, `answer`, `createTime`). Default `rich`.
   */
  connectQuestions?: 'rich' | 'minimal';
}

/**
 * A question's failure; `retry_time` (RFC 3339), when set, says when a quota allows the next
 * question: the Connect API shows it as the error state's `retryTime` (stored and served as is).
 */
export type InjectedQuestionError = WireQuestionError & { retry_time?: string };

/** What a fault hook may do to one request, to prove that clients recover. */
export type EngineFault =
  { kind: 'status'; status: number; body?: string; contentType?: string } | { kind: 'reset' } | { kind: 'delay'; ms: number } | { kind: 'malformed' };

export interface EngineFaults {
  /** Called for every request before it is handled; return a fault to apply or undefined to serve it. */
  request?: (request: { method: string; path: string }) => EngineFault | undefined;
  /**
   * Called when a question starts; return an error to make that question fail with it. Its `kind`
   * picks the Connect API's error code (`RateLimitExceeded`/`QuotaExceeded` → ERROR_QUOTA_EXCEEDED,
   * `TokenLimitExceeded` → ERROR_TOKEN_LIMIT_EXCEEDED, `EntitlementExceeded` →
   * ERROR_ENTITLEMENT_EXCEEDED, anything else → ERROR_INTERNAL; `Cancelled` → canceled).
   */
  question?: (text: string) => InjectedQuestionError | undefined;
}

export interface EngineOptions {
  /** Git working trees (or bare repositories) to answer from. At least one. */
  repos: string[];
  /** Users and their tokens. At least one. */
  users: EngineUser[];
  /** Folder of the durable conversation store; created if missing. */
  dataDir: string;
  /**
   * TCP port on 127.0.0.1; 0 picks a free one. Undefined (the default): the port this data folder
   * used last time if it is free (stored answers link to it), else a free one.
   */
  port?: number;
  /** Whether a read token opens other users' conversations. Default true. */
  sharing?: boolean;
  /** Milliseconds the answerer waits between its steps (real work still takes its own time). Default 150. */
  paceMs?: number;
  variant?: EngineVariant;
  faults?: EngineFaults;
  /**
   * Work done at once; the rest waits its turn. `answers`: questions being answered (default 4; the
   * others show a "Queued" turn). `toolCalls`: tool calls across both tool endpoints (default 4).
   */
  limits?: { answers?: number; toolCalls?: number };
  /**
   * The OAuth 2.0 authorization server (oauth/authorizationServer.ts): its pre-registered clients,
   * lifetimes, and whether clients may register themselves. Default: on, with no pre-registered
   * client and self-registration allowed; `false` turns it off (its paths then answer 404).
   */
  oauth?: OAuthOptions | false;
  /**
   * Web origins whose pages may call the conversation APIs, the tool servers and OAuth's endpoints
   * (an instance's `corsOrigin`: `https://vscode.dev`, each an origin with no path; a string may
   * hold several, space-separated). Default: none, and no CORS header is sent.
   */
  corsOrigins?: string[];
  /** Where log lines go (never tokens). Default: nowhere. */
  log?: (line: string) => void;
  /**
   * A ripgrep executable (`rg`, such as the one VS Code ships) to answer the searches that come
   * before a repository's search index is ready, where the working tree is the commit searched.
   * Default: none (git grep answers them).
   */
  ripgrepPath?: string;
  /**
   * Bytes of files the search indexes of all repositories together may hold (their memory is about
   * 1.5 times this); past it, a repository's index holds the files that fit and searches read the
   * rest. Default: 512 MiB.
   */
  indexBudgetBytes?: number;
  /**
   * Whether the engine builds the trigram filter of its first repositories' HEADs as it starts (one
   * after another, in the background; kept on disk, so only once per commit), so that their first
   * searches read only the files that can match. Default: true. Off, a repository's filter is
   * built after its first search, with its index.
   */
  filtersAtStart?: boolean;
  /**
   * The user's model (model/chatModel.ts), asked each time a question starts: when it gives one,
   * the model investigates with the engine's tools, and the engine's own answer is the fallback.
   * Default: none (the engine answers on its own).
   */
  model?: ModelSource;
  /**
   * How far a model's investigation may go (or where to read it when a question starts); each value
   * is kept within its range. Default: `DEFAULT_INVESTIGATION_LIMITS`.
   */
  investigationLimits?: Partial<InvestigationLimits> | (() => Partial<InvestigationLimits>);
}

export interface RunningEngine {
  /** `http://127.0.0.1:<port>`: the instance URL. */
  url: string;
  port: number;
  /** Names under which the repositories are served, e.g. `github.com/org/repo`. */
  repoNames: string[];
  /** What this engine owns and closes with itself, its own even beside another engine in the process (for tests and diagnostics). */
  owned: { caches: RepoCaches; regex: RegexWorker; launcher: ProcessLauncher };
  /** Resolves once every in-flight write is durable and the server is closed. */
  close(): Promise<void>;
}
