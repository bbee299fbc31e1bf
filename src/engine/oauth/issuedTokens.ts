/**
 * The OAuth tokens the engine has issued: access tokens that expire, single-use refresh tokens that
 * rotate, authorization codes, each held only as a SHA-256 digest. Tokens of one sign-in form a
 * family: revoking its refresh token ends its access tokens too. Access and refresh tokens can be
 * saved (`snapshot`, digests only) and restored, so that sign-ins outlive an engine restart;
 * codes are short-lived and are not.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { WireTokenResponse } from '../../contract/oauthWire';
import { OAUTH_SCOPES } from '../../contract/oauthWire';
import type { AccessVerdict, Grant } from '../http/auth';
import { sweep } from './bounded';

export type { AccessVerdict, Grant } from '../http/auth';

/** Who a token acts for, for which client, with which scopes. */

export interface TokenLifetimes {
  /** Seconds an access token lives (instances: 3600). */
  accessSeconds: number;
  /** Seconds a refresh token lives unused. */
  refreshSeconds: number;
}

/** What an access token is, or why it is not. */

/** An OAuth error of the token endpoint (RFC 6749 §5.2): its code and a sentence for people. */
export class OAuthError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
    this.name = 'OAuthError';
  }
}

interface Issued {
  grant: Grant;
  family: string;
  expiresAt: number;
}

/** Access tokens past their time are kept this long, to say "expired" rather than "unknown". */
const EXPIRED_KEPT_MS = 24 * 60 * 60 * 1000;
const CODE_LIFETIME_MS = 2 * 60 * 1000;
/** A bound on what one engine holds (a client looping on sign-in must not grow it forever). */
const MAX_ISSUED = 10_000;

export interface PendingCode {
  grant: Grant;
  redirectUri: string;
  codeChallenge: string;
  expiresAt: number;
}

/** What is saved of the issued tokens: digests, grants and times; never a token. */
export interface IssuedSnapshot {
  version: 1;
  access: Array<[string, Issued]>;
  refresh: Array<[string, Issued]>;
  spent: Array<[string, number]>;
}

export class IssuedTokens {
  private readonly access = new Map<string, Issued>();
  private readonly refresh = new Map<string, Issued>();
  /** Refresh tokens already exchanged: a second use is refused with that reason. */
  private readonly spent = new Map<string, number>();
  private readonly codes = new Map<string, PendingCode>();

  constructor(
    private readonly lifetimes: TokenLifetimes,
    private readonly now: () => number = Date.now,
    /** Told after every change worth saving. */
    private readonly changed: () => void = () => undefined,
  ) {}

  snapshot(): IssuedSnapshot {
    return { version: 1, access: [...this.access], refresh: [...this.refresh], spent: [...this.spent] };
  }

  /** Takes back what a snapshot saved; entries of another shape are left out. */
  restore(snapshot: unknown): void {
    if (typeof snapshot !== 'object' || snapshot === null || (snapshot as { version?: unknown }).version !== 1) return;
    const { access, refresh, spent } = snapshot as Partial<Record<'access' | 'refresh' | 'spent', unknown>>;
    for (const [key, issued] of entries(access)) if (isIssued(issued)) this.access.set(key, issued);
    for (const [key, issued] of entries(refresh)) if (isIssued(issued)) this.refresh.set(key, issued);
    for (const [key, spentAt] of entries(spent)) if (typeof spentAt === 'number') this.spent.set(key, spentAt);
    this.forgetUnusable();
  }

  /** New tokens for a grant: a refresh token too when it has `offline_access`. */
  issue(grant: Grant, family = newSecret(12)): WireTokenResponse {
    this.forgetUnusable();
    const accessToken = `sgo_at_${newSecret(24)}`;
    this.access.set(digest(accessToken), { grant, family, expiresAt: this.now() + this.lifetimes.accessSeconds * 1000 });
    const response: WireTokenResponse = {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: this.lifetimes.accessSeconds,
      scope: grant.scopes.join(' '),
    };
    if (grant.scopes.includes(OAUTH_SCOPES.offlineAccess)) {
      const refreshToken = `sgo_rt_${newSecret(24)}`;
      this.refresh.set(digest(refreshToken), { grant, family, expiresAt: this.now() + this.lifetimes.refreshSeconds * 1000 });
      response.refresh_token = refreshToken;
    }
    this.changed();
    return response;
  }

  verifyAccess(token: string): AccessVerdict {
    const issued = this.access.get(digest(token));
    if (!issued) return { kind: 'unknown' };
    if (issued.expiresAt <= this.now()) return { kind: 'expired', expiredAt: issued.expiresAt };
    return { kind: 'valid', grant: issued.grant, expiresAt: issued.expiresAt };
  }

  /**
   * Exchanges a refresh token (once: it is spent) for new tokens of the same family, with the
   * scopes asked (never more than the family has).
   */
  rotate(refreshToken: string, clientId: string, scopes: readonly string[] | undefined): WireTokenResponse {
    const key = digest(refreshToken);
    const issued = this.refresh.get(key);
    if (!issued) {
      const spentAt = this.spent.get(key);
      throw new OAuthError(
        'invalid_grant',
        spentAt !== undefined
          ? `This refresh token was already used at ${new Date(spentAt).toISOString()} (each is good once): use the one that exchange returned, or sign in again.`
          : 'Unknown or revoked refresh token: sign in again.',
      );
    }
    if (issued.grant.clientId !== clientId) throw new OAuthError('invalid_grant', 'This refresh token was issued to another client.');
    if (issued.expiresAt <= this.now()) {
      this.refresh.delete(key);
      throw new OAuthError('invalid_grant', 'The refresh token expired: sign in again.');
    }
    const extra = scopes?.filter((scope) => !issued.grant.scopes.includes(scope)) ?? [];
    if (extra.length > 0) throw new OAuthError('invalid_scope', `A refresh cannot add scopes the sign-in did not grant: ${extra.join(', ')}.`);
    this.refresh.delete(key);
    this.spent.set(key, this.now());
    const grant = scopes && scopes.length > 0 ? { ...issued.grant, scopes: issued.grant.scopes.filter((scope) => scopes.includes(scope)) } : issued.grant;
    return this.issue(grant, issued.family);
  }

  /** Revokes a token (RFC 7009: unknown tokens are no error); a refresh token ends its whole family. */
  revoke(token: string): void {
    const key = digest(token);
    const refresh = this.refresh.get(key);
    const access = this.access.get(key);
    if (refresh) {
      for (const map of [this.access, this.refresh]) {
        for (const [other, issued] of map) if (issued.family === refresh.family) map.delete(other);
      }
    }
    if (access) this.access.delete(key);
    if (refresh || access) this.changed();
  }

  /** A new single-use authorization code for a grant approved by its user. */
  newCode(pending: Omit<PendingCode, 'expiresAt'>): string {
    this.forgetUnusable();
    const code = newSecret(24);
    this.codes.set(digest(code), { ...pending, expiresAt: this.now() + CODE_LIFETIME_MS });
    return code;
  }

  /** Takes a code (it cannot be used again), or undefined when unknown, used or expired. */
  takeCode(code: string): PendingCode | undefined {
    const key = digest(code);
    const pending = this.codes.get(key);
    this.codes.delete(key);
    return pending && pending.expiresAt > this.now() ? pending : undefined;
  }

  /** Drops what can no longer be used, and the oldest entries past the bound. */
  private forgetUnusable(): void {
    const now = this.now();
    sweep(this.access, (issued) => issued.expiresAt + EXPIRED_KEPT_MS <= now, MAX_ISSUED);
    sweep(this.refresh, (issued) => issued.expiresAt <= now, MAX_ISSUED);
    sweep(this.spent, (spentAt) => spentAt + EXPIRED_KEPT_MS <= now, MAX_ISSUED);
    sweep(this.codes, (pending) => pending.expiresAt <= now, MAX_ISSUED);
  }
}

export function newSecret(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}

function digest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('base64url');
}

function entries(value: unknown): Array<[string, unknown]> {
  if (!Array.isArray(value)) return [];
  return value.filter((entry): entry is [string, unknown] => Array.isArray(entry) && entry.length === 2 && typeof entry[0] === 'string');
}

function isIssued(value: unknown): value is Issued {
  if (typeof value !== 'object' || value === null) return false;
  const { grant, family, expiresAt } = value as Partial<Issued>;
  return (
    typeof family === 'string' &&
    typeof expiresAt === 'number' &&
    typeof grant === 'object' &&
    grant !== null &&
    typeof grant.userId === 'number' &&
    typeof grant.clientId === 'string' &&
    Array.isArray(grant.scopes) &&
    grant.scopes.every((scope) => typeof scope === 'string')
  );
}
