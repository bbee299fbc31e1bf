/**
 * Who is asking: maps `Authorization: token <t>` (or `Bearer <t>`) to a configured user, comparing
 * tokens in constant time and never repeating a token in a message.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { TOKEN_SCOPES } from '../../contract/tokenScopes';
import { HttpError } from './http';

export interface EngineUser {
  /** The access token that identifies this user (`Authorization: token <t>` or `Bearer <t>`). */
  token: string;
  /** Defaults to the user's position in `users`, starting at 1. */
  id?: number;
  /** Defaults to `user<id>`. */
  name?: string;
  /**
   * The token's scopes, as a scoped access token or OAuth token has them (contract TOKEN_SCOPES):
   * `user:all` reaches everything, `externalapi:read` / `externalapi:write` the conversation APIs,
   * `mcp` the tool server; anything else is refused with a 403 naming the missing scope.
   * Undefined (the default): an unscoped token that reaches everything.
   */
  scopes?: string[];
}

/** What an OAuth token was granted: to whom, through which client, with which scopes. */
export interface Grant {
  userId: number;
  clientId: string;
  scopes: readonly string[];
}

/** What the engine's authorization server says of a token it may have issued. */
export type AccessVerdict = { kind: 'valid'; grant: Grant; expiresAt: number } | { kind: 'expired'; expiredAt: number } | { kind: 'unknown' };

export interface IssuedTokenVerifier {
  verifyAccess(token: string): AccessVerdict;
}

export interface AuthenticatedUser {
  id: number;
  name: string;
  /** What a scoped token may reach (`externalapi:read`, `mcp`…); undefined: everything. */
  scopes?: ReadonlySet<string>;
}

interface KnownUser extends AuthenticatedUser {
  tokenDigest: Buffer;
}

/** What a request needs: reading or changing conversations (either API), or the tool server. */
export type Access = 'read' | 'write' | 'mcp';

/** The scopes that grant each access (`user:all` grants all of them). */
const GRANTING: Readonly<Record<Access, readonly string[]>> = {
  read: [TOKEN_SCOPES.all, TOKEN_SCOPES.read, TOKEN_SCOPES.write],
  write: [TOKEN_SCOPES.all, TOKEN_SCOPES.write],
  mcp: [TOKEN_SCOPES.all, TOKEN_SCOPES.mcp],
};

const WHAT: Readonly<Record<Access, string>> = {
  read: 'reading conversations',
  write: 'asking, following up, cancelling and deleting',
  mcp: 'the tool server (MCP)',
};

/**
 * A 403 when the user's token is scoped without what the request needs, naming the scope it
 * lacks (as the reference asks of servers) and the scopes it has.
 */
export function requireScope(user: AuthenticatedUser, access: Access): void {
  if (!user.scopes || GRANTING[access].some((scope) => user.scopes?.has(scope))) return;
  const needed = access === 'read' ? `${TOKEN_SCOPES.read} (or ${TOKEN_SCOPES.write})` : GRANTING[access][1];
  const has = user.scopes.size ? [...user.scopes].sort().join(', ') : 'none';
  throw new HttpError(
    403,
    `This token lacks the scope ${needed}, which ${WHAT[access]} needs (its scopes: ${has}). Create a token with that scope, or with ${TOKEN_SCOPES.all}.`,
  );
}

export class UserDirectory {
  private readonly users: KnownUser[];
  private issuer: IssuedTokenVerifier | undefined;

  /** Throws when the configuration is unusable: no users, empty or duplicate tokens, duplicate ids. */
  constructor(users: readonly EngineUser[]) {
    if (users.length === 0) throw new Error('The engine needs at least one user with a token.');
    const ids = new Set<number>();
    const digests = new Set<string>();
    this.users = users.map((user, index) => {
      const id = user.id ?? index + 1;
      if (!Number.isInteger(id) || id < 1) throw new Error(`User ${index + 1} has an invalid id ${id}: use a positive integer.`);
      if (ids.has(id)) throw new Error(`Two users have the id ${id}: user ids must be unique.`);
      if (user.token.trim() === '' || /\s/.test(user.token)) {
        throw new Error(`User ${id} has an empty token or one with spaces: tokens must be single words.`);
      }
      const tokenDigest = digest(user.token);
      if (digests.has(tokenDigest.toString('hex'))) throw new Error(`User ${id} has the same token as another user.`);
      ids.add(id);
      digests.add(tokenDigest.toString('hex'));
      const scopes = user.scopes ? new Set(user.scopes) : undefined;
      return { id, name: user.name ?? `user${id}`, tokenDigest, ...(scopes ? { scopes } : {}) };
    });
  }

  /** The users, for a sign-in page to act for. */
  accounts(): Array<{ id: number; name: string }> {
    return this.users.map(({ id, name }) => ({ id, name }));
  }

  /** Accepts the OAuth access tokens `issuer` issued, besides the configured tokens. */
  trustIssuer(issuer: IssuedTokenVerifier): void {
    this.issuer = issuer;
  }

  /** The user whose token the header carries, or a 401 that says what is wrong. */
  authenticate(authorization: string | undefined): AuthenticatedUser {
    const match = /^\s*(token|bearer)\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!authorization || authorization.trim() === '') {
      throw unauthorized('Missing access token: send the header "Authorization: token <access token>".');
    }
    if (!match) {
      throw unauthorized('Malformed Authorization header: use "Authorization: token <access token>" or "Bearer <token>".');
    }
    const presented = digest(match[2] ?? '');
    let found: KnownUser | undefined;
    // Compare against every user so the time taken does not tell which token came close.
    for (const user of this.users) {
      if (timingSafeEqual(presented, user.tokenDigest)) found = user;
    }
    if (found) return { id: found.id, name: found.name, ...(found.scopes ? { scopes: found.scopes } : {}) };
    const verdict = this.issuer?.verifyAccess(match[2] ?? '');
    if (verdict?.kind === 'expired') {
      throw new HttpError(401, `The OAuth access token expired at ${new Date(verdict.expiredAt).toISOString()}: refresh it, or sign in again.`, {
        'WWW-Authenticate': 'Bearer error="invalid_token", error_description="The access token expired"',
      });
    }
    const user = verdict?.kind === 'valid' ? this.users.find((each) => each.id === verdict.grant.userId) : undefined;
    if (verdict?.kind === 'valid' && user) return { id: user.id, name: user.name, scopes: new Set(verdict.grant.scopes) };
    throw unauthorized('Invalid access token: check the token you configured, or create a new one.');
  }
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

function unauthorized(message: string): HttpError {
  return new HttpError(401, message, { 'WWW-Authenticate': 'token' });
}
