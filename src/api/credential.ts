/**
 * What requests to an instance are authorized with: a fixed access token, or an OAuth access token
 * that renews itself (before it expires, and once after the instance refuses it). Both HTTP clients
 * (conversations and the tool server) take one, so both renew the same way. No `vscode` import.
 */
import * as l10n from '@vscode/l10n';
import { DeepSearchError, isDeepSearchError } from './errors';

export interface Credential {
  /** The Authorization header value for the next request. */
  header(): Promise<string>;
  /**
   * The instance answered `sent` with 401: the header to send the request with once more, or
   * undefined when there is none (the 401 stands). Throws an `unauthorized` error when the user
   * must sign in again.
   */
  renewAfter(sent: string): Promise<string | undefined>;
}

/** The token inside an Authorization header value (for redacting it from errors). */
export function tokenOf(header: string): string {
  return header.slice(header.indexOf(' ') + 1);
}

/**
 * Sends a request authorized as `credential` says. When the instance answers 401 (`send` throws a
 * DeepSearchError with that status), it refused the request before acting on it, so the request
 * goes once more with the renewed header, whatever its method: nothing is repeated (a question is
 * not asked twice). Without a renewed header the 401 stands. Both HTTP clients (conversations and
 * the tool server) send through this, so both renew the same way.
 */
export async function sendAuthorized<T>(credential: Credential, send: (authorization: string) => Promise<T>): Promise<T> {
  const header = await credential.header();
  try {
    return await send(header);
  } catch (error) {
    if (!isDeepSearchError(error) || error.status !== 401) throw error;
    const renewed = await credential.renewAfter(header);
    if (renewed === undefined) throw error;
    return send(renewed);
  }
}

/** An access token pasted by the user (`token` scheme) or any fixed bearer token: it never renews. */
export function accessTokenCredential(token: string | undefined, scheme: 'token' | 'bearer' = 'token'): Credential {
  const trimmed = token?.trim();
  if (!trimmed) throw new DeepSearchError('unauthorized', l10n.t('No access token is set for this instance — sign in first.'));
  const header = `${scheme === 'bearer' ? 'Bearer' : 'token'} ${trimmed}`;
  return { header: () => Promise.resolve(header), renewAfter: () => Promise.resolve(undefined) };
}

/** What keeps an OAuth access token fresh (src/api/oauth/tokenSession.ts). */
export interface RenewableToken {
  accessToken(): Promise<string>;
  afterRejected(rejected: string): Promise<string>;
}

/** An OAuth sign-in: the session's current access token, refreshed as it says. */
export function oauthCredential(session: RenewableToken): Credential {
  return {
    header: async () => `Bearer ${await session.accessToken()}`,
    renewAfter: async (sent) => {
      const renewed = `Bearer ${await session.afterRejected(tokenOf(sent))}`;
      return renewed === sent ? undefined : renewed;
    },
  };
}
