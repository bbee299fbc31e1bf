/**
 * The messages between the extension and the local engine it runs as a child process (over Node's
 * IPC channel, JSON). The token travels here, never on the command line or in the environment,
 * where other processes of the machine could read it.
 */

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
}

export type ToEngineMessage = { type: 'start'; options: HostedEngineOptions } | { type: 'stop' };

export type FromEngineMessage =
  /** The handshake: the engine listens at `url`. */
  | { type: 'listening'; url: string; repoNames: string[] }
  /** The engine could not start; `message` says why. The process exits after it. */
  | { type: 'failed'; message: string; usage: boolean }
  /** One line of the engine's log (never a token). */
  | { type: 'log'; line: string }
  /** The engine stopped, its writes finished; the process exits after it. */
  | { type: 'stopped' };

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
    default:
      return false;
  }
}

export function isToEngineMessage(value: unknown): value is ToEngineMessage {
  if (typeof value !== 'object' || value === null) return false;
  const message = value as Record<string, unknown>;
  if (message.type === 'stop') return true;
  if (message.type !== 'start' || typeof message.options !== 'object' || message.options === null) return false;
  const options = message.options as Record<string, unknown>;
  return (
    Array.isArray(options.repos) &&
    options.repos.every((repo) => typeof repo === 'string') &&
    typeof options.token === 'string' &&
    typeof options.dataDir === 'string' &&
    (options.ripgrepPath === undefined || typeof options.ripgrepPath === 'string')
  );
}
