/**
 * What every MCP tool of the local engine shares: the request's context (who calls, which
 * repositories, the cancellation signal), the error a tool raises to tell its caller what to change,
 * and the git call options with a time budget.
 */
import type { WireConversation } from '../../contract/legacyWire';
import type { AuthenticatedUser } from '../http/auth';
import { GitError, runGit, type GitResult, type GitRunOptions } from '../git/git';
import type { ServedRepository } from '../git/repos';
import type { ProcessLauncher } from '../git/processLauncher';
import type { SymbolTables } from '../code/symbolTable';
import type { SearchIndexes } from '../search/searchIndex';
import type { RegexWorker } from '../search/regex';
import type { RepoCaches } from './repoCaches';
import { ToolError } from '../messages/toolError';
import type { ToolNamer } from '../messages/toolNames';

export { formatSize, ToolError } from '../messages/toolError';
import { echo } from '../http/echo';

/** What `deepsearch` and `deepsearch_read` need from the conversation service (the real one fits). */
export interface DeepSearchBackend {
  create(user: AuthenticatedUser, question: string): Promise<WireConversation>;
  get(user: AuthenticatedUser, id: number): WireConversation;
  /** The conversation of a read token, if the viewer may read it (its owner, or anyone with sharing on). Without it, `deepsearch_read` reads nothing. */
  findShared?(readToken: string, viewerId: number | undefined): WireConversation | undefined;
}

export interface ToolContext {
  repositories: readonly ServedRepository[];
  user: AuthenticatedUser;
  /** `http://127.0.0.1:<port>`: base of links in results. */
  instanceUrl: string;
  /** Aborts when the caller goes away, cancels, or the engine shuts down. */
  signal: AbortSignal;
  deepSearch: DeepSearchBackend;
  /** How long `deepsearch` waits for an answer. */
  deepSearchWaitMs: number;
  /** Whether this git understands `grep -P` (learnt on first use, shared by requests). */
  pcre: { available: boolean | undefined };
  /** In-memory indexes that answer greps of HEAD without git once built; without them, git grep does. */
  searchIndexes?: SearchIndexes;
  /** Each commit's definitions, for searches that rank by them (natural-language search, answers). */
  symbolTables?: SymbolTables;
  /** What reading repositories keeps between requests: the engine's own (repoCaches.ts). */
  caches: RepoCaches;
  /** The engine's worker for callers' regular expressions (search/regex.ts), stopped with the engine. */
  regex: RegexWorker;
  /** The engine's process launcher (git/processLauncher.ts): its git starts there, stopped with the engine. */
  launcher: ProcessLauncher;
  /** How the caller's endpoint names the tools, for messages that point to another tool (the catalogue sets it per call). */
  toolName: ToolNamer;
}

/** What a tool returns: readable text and the structured result of its output schema. */
export interface ToolOutput<T> {
  text: string;
  structured: T;
  /** Extra remarks, sent as a second text block so the first stays clean. */
  notes?: string[];
  /** The files the result shows whole or in part (a read, definitions with their bodies), by served name. */
  filesRead?: FileRead[];
}

export interface FileRead {
  repo: string;
  path: string;
}

/** Time one tool call may spend in git in total. */
export const TOOL_BUDGET_MS = 25_000;

/** Runs git for a tool: the tool's signal, a timeout within its budget, errors made readable. */
export async function git(
  context: ToolContext,
  repo: ServedRepository,
  args: readonly string[],
  options: Omit<GitRunOptions, 'cwd' | 'signal'> = {},
): Promise<GitResult> {
  try {
    return await runGit(args, { timeoutMs: 15_000, ...options, cwd: repo.dir, signal: context.signal, launcher: context.launcher });
  } catch (error) {
    throw explainGitError(error, repo);
  }
}

/** Turns timeouts and limits into messages that say what to change; other errors pass through. */
export function explainGitError(error: unknown, repo: ServedRepository): unknown {
  if (!(error instanceof GitError)) return error;
  if (error.kind === 'timeout') {
    return new ToolError(
      `Searching ${repo.name} took too long and was stopped: narrow the query (a repo: or file: filter, fewer or more specific terms, a simpler regular expression).`,
    );
  }
  if (error.kind === 'output-limit') {
    return new ToolError(`The result from ${repo.name} was too large: narrow the request (a smaller range, a path, or a filter).`);
  }
  if (error.kind === 'aborted') return new ToolError('The request was cancelled.');
  if (error.kind === 'unavailable') return new RepositoryUnavailableError(repo);
  return error;
}

/** A served repository whose folder is gone or unreadable: searches over several skip it. */
export class RepositoryUnavailableError extends ToolError {
  constructor(readonly repo: ServedRepository) {
    super(`The repository ${repo.name} is not available: its folder is gone or cannot be read. Restore it, or restart the engine without it.`);
  }
}

/** Integer argument check with a message that names the argument and the allowed range. */
export function integerArgument(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min) {
    throw new ToolError(`${name} must be a whole number of at least ${min}, not ${value}.`);
  }
  return Math.min(value, max);
}

export { plural } from '../messages/plural';

/** Opaque pagination cursors: base64url of a small JSON object. */
export function encodeCursor(value: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string, what: string): Record<string, unknown> {
  const invalid = new ToolError(
    `${echo(cursor)} is not a cursor of ${what}: pass the cursor value from a previous response unchanged, or leave it out to start at the beginning.`,
  );
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) throw invalid;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid;
    return value as Record<string, unknown>;
  } catch {
    throw invalid;
  }
}
