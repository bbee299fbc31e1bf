/**
 * What a URL and token can do, found before anything is stored: one read of the conversation list
 * and the tool server's discovery, side by side. Scoped tokens (7.x) may reach one interface and
 * not the other, so sign-in reports both instead of stopping at the first refusal.
 */
import * as l10n from '@vscode/l10n';
import { DeepSearchError, errorMessage, isDeepSearchError } from './errors';
import type { InstanceConnection } from './network';
import { TOOL_NAMES, isToolServerMissing, type ToolName, type ToolServer } from './tools/toolServer';

export type InterfaceAccess<T> = { ok: true; value: T } | { ok: false; error: DeepSearchError };

export interface AccessReport {
  /** The conversation list could be read (the API generation found on the way). */
  conversations: InterfaceAccess<'connect' | 'legacy'>;
  /** The tool server that was found, with the tools it lacks. */
  tools: InterfaceAccess<{ server: ToolServer; missing: ToolName[] }>;
}

/** Checks both interfaces at once; never throws (every failure is in the report). */
export async function checkAccess(connection: Pick<InstanceConnection, 'client' | 'tools'>, signal?: AbortSignal): Promise<AccessReport> {
  const [conversations, tools] = await Promise.all([
    settle(async () => {
      await connection.client.listConversations({ pageFirst: 1 }, signal);
      return connection.client.generation();
    }),
    settle(async () => {
      const server = await connection.tools.client.server(signal);
      return { server, missing: TOOL_NAMES.filter((tool) => !server.names.has(tool)) };
    }),
  ]);
  return { conversations, tools };
}

export type SignInVerdict =
  /** Store the token: at least one interface works with it. */
  | { kind: 'usable' }
  /** The token itself is refused (401 on either, or 403 on both). */
  | { kind: 'badToken'; message: string }
  /** Nothing Deep Search answers at that URL, or it cannot be reached. */
  | { kind: 'badUrl'; message: string };

/**
 * Whether the token is worth storing. A 401 anywhere means the token is wrong; a refusal of one
 * interface only (403: a scope or permission missing) still signs in, and the report says which.
 * With no conversation API, the URL is wrong (or too old a server) whatever the tool server says.
 */
export function signInVerdict(report: AccessReport): SignInVerdict {
  const { conversations, tools } = report;
  const failures = [conversations, tools].flatMap((access) => (access.ok ? [] : [access.error]));
  const unauthorized = failures.find((error) => error.kind === 'unauthorized');
  if (unauthorized) return { kind: 'badToken', message: unauthorized.message };
  if (!conversations.ok && conversations.error.kind !== 'forbidden') return { kind: 'badUrl', message: conversations.error.message };
  if (!conversations.ok && !tools.ok) {
    return {
      kind: 'badToken',
      message: l10n.t('Neither interface accepts this token. Conversations: {0} Tools: {1}', conversations.error.message, tools.error.message),
    };
  }
  return { kind: 'usable' };
}

/** Whether the tool server was absent (the instance has none) rather than refused or unreachable. */
export function toolServerAbsent(report: AccessReport): boolean {
  return !report.tools.ok && isToolServerMissing(report.tools.error);
}

async function settle<T>(run: () => Promise<T>): Promise<InterfaceAccess<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    return { ok: false, error: isDeepSearchError(error) ? error : new DeepSearchError('network', errorMessage(error)) };
  }
}
