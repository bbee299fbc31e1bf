/**
 * The scopes a token can carry on 7.x servers (scoped access tokens and OAuth tokens), as the
 * extension asks for them and the local engine enforces them.
 */
export const TOKEN_SCOPES = {
  /** The whole API. */
  all: 'user:all',
  /** Reading conversations (7.x conversation API). */
  read: 'externalapi:read',
  /** Asking, following up, cancelling, deleting. */
  write: 'externalapi:write',
  /** The tool server endpoints. */
  mcp: 'mcp',
} as const;
