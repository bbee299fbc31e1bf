/**
 * The messages between the extension and the local engine it runs as a child process (over Node's
 * IPC channel, JSON). The token travels here, never on the command line or in the environment,
 * where other processes of the machine could read it. So do the turns of the user's model: the
 * engine asks, the extension host runs them on VS Code's models (whose credentials it never
 * shares) and replies.
 */

import {
  isInvestigationLimits,
  isModelDescription,
  isModelTurn,
  isModelTurnRequest,
  type InvestigationLimits,
  type ModelDescription,
  type ModelTurn,
  type ModelTurnRequest,
} from './modelWire';

/**
 * The environment the engine process is started with, beside the starter's own. glibc's malloc
 * raises its threshold for giving buffers straight to the kernel up to 32 MB as the program frees
 * large ones, and keeps freed buffers below it: the few-megabyte tables of each search index build
 * stayed resident (1.6 times the text indexed with two indexes, 1.3 with this). A fixed 1 MiB
 * threshold hands every buffer of that size back when it is freed. Other C libraries ignore it.
 */
export const ENGINE_ENVIRONMENT: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: String(1024 * 1024) };

/** What the engine needs to start: the repositories, the one user's token, its data folder. */
export interface HostedEngineOptions {
  repos: string[];
  token: string;
  dataDir: string;
  /** A ripgrep executable for the searches that come before the index is ready. */
  ripgrepPath?: string;
  /** The model the host runs turns on for the engine (VS Code's, chosen by the user); absent: none. */
  model?: ModelDescription;
  investigationLimits?: Partial<InvestigationLimits>;
}

export type ToEngineMessage =
  | { type: 'start'; options: HostedEngineOptions }
  | { type: 'stop' }
  /** The user chose another model (or none), or changed the limits. */
  | { type: 'model'; model: ModelDescription | null; investigationLimits?: Partial<InvestigationLimits> }
  /** The host's answer to a `modelTurn`: the turn, or what went wrong in words. */
  | { type: 'modelReply'; id: number; turn?: ModelTurn; error?: string };

export type FromEngineMessage =
  /** The handshake: the engine listens at `url`. */
  | { type: 'listening'; url: string; repoNames: string[] }
  /** The engine could not start; `message` says why. The process exits after it. */
  | { type: 'failed'; message: string; usage: boolean }
  /** One line of the engine's log (never a token). */
  | { type: 'log'; line: string }
  /** The engine stopped, its writes finished; the process exits after it. */
  | { type: 'stopped' }
  /** One turn for the host to run on the chosen model; answered by a `modelReply` with the same id. */
  | { type: 'modelTurn'; id: number; request: ModelTurnRequest }
  /** The engine no longer wants that turn (the question was cancelled or timed out). */
  | { type: 'modelCancel'; id: number };

export function isFromEngineMessage(value: unknown): value is FromEngineMessage {
  if (typeof value !== 'object' || value === null) return false;
  const message = value as Record<string, unknown>;
  switch (message.type) {
    case 'listening':
      return typeof message.url === 'string' && Array.isArray(message.repoNames);
    case 'failed':
      return typeof message.message === 'string';
    case 'log':
      return typeof message.line === 'string';
    case 'stopped':
      return true;
    case 'modelTurn':
      return Number.isSafeInteger(message.id) && isModelTurnRequest(message.request);
    case 'modelCancel':
      return Number.isSafeInteger(message.id);
    default:
      return false;
  }
}

export function isToEngineMessage(value: unknown): value is ToEngineMessage {
  if (typeof value !== 'object' || value === null) return false;
  const message = value as Record<string, unknown>;
  if (message.type === 'stop') return true;
  if (message.type === 'model') {
    return (
      (message.model === null || isModelDescription(message.model)) &&
      (message.investigationLimits === undefined || isInvestigationLimits(message.investigationLimits))
    );
  }
  if (message.type === 'modelReply') {
    return (
      Number.isSafeInteger(message.id) &&
      (message.turn === undefined || isModelTurn(message.turn)) &&
      (message.error === undefined || (typeof message.error === 'string' && message.error.length <= 2000))
    );
  }
  if (message.type !== 'start' || typeof message.options !== 'object' || message.options === null) return false;
  const options = message.options as Record<string, unknown>;
  return (
    Array.isArray(options.repos) &&
    options.repos.every((repo) => typeof repo === 'string') &&
    typeof options.token === 'string' &&
    typeof options.dataDir === 'string' &&
    (options.ripgrepPath === undefined || typeof options.ripgrepPath === 'string') &&
    (options.model === undefined || isModelDescription(options.model)) &&
    (options.investigationLimits === undefined || isInvestigationLimits(options.investigationLimits))
  );
}
