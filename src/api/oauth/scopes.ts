/**
 * The scopes the extension asks an instance's authorization server for: the least that covers what
 * it does. Conversations need `externalapi:read` and `externalapi:write` where the instance has them,
 * else `user:all`; the code tools need `mcp`; `offline_access` brings a refresh token. No `vscode` import.
 */
import { OAUTH_SCOPES } from '../../contract/oauthWire';
import { TOKEN_SCOPES } from '../../contract/tokenScopes';

/**
 * From the scopes the instance supports (its discovery document, or what a registered client may
 * have); when it does not say, the scopes every generation knows.
 */
export function scopesToAsk(supported: readonly string[] | undefined): string[] {
  const offered = (scope: string) => supported === undefined || supported.includes(scope);
  const granular = supported?.includes(TOKEN_SCOPES.read) === true;
  const conversations = granular
    ? [TOKEN_SCOPES.read, ...(offered(TOKEN_SCOPES.write) ? [TOKEN_SCOPES.write] : [])]
    : offered(TOKEN_SCOPES.all)
      ? [TOKEN_SCOPES.all]
      : [];
  return [...conversations, ...[TOKEN_SCOPES.mcp, OAUTH_SCOPES.offlineAccess].filter(offered)];
}
