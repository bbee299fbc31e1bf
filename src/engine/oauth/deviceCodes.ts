/**
 * The device grant's pending authorizations (RFC 8628): a device code the client polls with, a
 * short user code a person enters on the verification page, and what they decided. Polling faster
 * than the interval is answered `slow_down` and the interval grows by five seconds, as §3.5 says.
 */
import { createHash, randomInt } from 'node:crypto';
import { sweep } from './bounded';
import { newSecret, OAuthError, type Grant } from './issuedTokens';

export interface DeviceTimings {
  /** Seconds a device code stays usable (instances: minutes). */
  lifetimeSeconds: number;
  /** Seconds the client is asked to wait between polls. */
  intervalSeconds: number;
}

interface Pending {
  userCode: string;
  clientId: string;
  scopes: readonly string[];
  expiresAt: number;
  intervalMs: number;
  lastPollAt?: number;
  decision?: { approved: true; userId: number } | { approved: false };
}

/** Letters that cannot be mistaken for one another or spell words (RFC 8628 §6.1). */
const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const MAX_PENDING = 1_000;

export class DeviceCodes {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly timings: DeviceTimings,
    private readonly now: () => number = Date.now,
  ) {}

  start(clientId: string, scopes: readonly string[]): { deviceCode: string; userCode: string; expiresIn: number; interval: number } {
    const now = this.now();
    sweep(this.pending, (entry) => entry.expiresAt <= now, MAX_PENDING);
    const deviceCode = newSecret(24);
    const userCode = newUserCode();
    this.pending.set(digest(deviceCode), {
      userCode,
      clientId,
      scopes,
      expiresAt: this.now() + this.timings.lifetimeSeconds * 1000,
      intervalMs: this.timings.intervalSeconds * 1000,
    });
    return { deviceCode, userCode, expiresIn: this.timings.lifetimeSeconds, interval: this.timings.intervalSeconds };
  }

  /** The pending authorization a person's code names (any case, dash or spaces optional). */
  find(userCode: string): { clientId: string; scopes: readonly string[]; userCode: string } | undefined {
    const wanted = normalizeUserCode(userCode);
    for (const entry of this.pending.values()) {
      if (normalizeUserCode(entry.userCode) === wanted && !entry.decision && entry.expiresAt > this.now()) {
        return { clientId: entry.clientId, scopes: entry.scopes, userCode: entry.userCode };
      }
    }
    return undefined;
  }

  /** Records a person's decision on the code; false when no pending authorization has it. */
  decide(userCode: string, decision: { approved: true; userId: number } | { approved: false }): boolean {
    const wanted = normalizeUserCode(userCode);
    for (const entry of this.pending.values()) {
      if (normalizeUserCode(entry.userCode) === wanted && !entry.decision && entry.expiresAt > this.now()) {
        entry.decision = decision;
        return true;
      }
    }
    return false;
  }

  /**
   * A client's poll: the grant once approved (the code is then spent), else the RFC's error for
   * where the authorization stands.
   */
  poll(deviceCode: string, clientId: string): Grant {
    const key = digest(deviceCode);
    const entry = this.pending.get(key);
    if (!entry || entry.clientId !== clientId)
      throw new OAuthError('invalid_grant', 'Unknown device code, or one issued to another client: start the sign-in again.');
    const now = this.now();
    if (entry.expiresAt <= now) {
      this.pending.delete(key);
      throw new OAuthError('expired_token', 'The device code expired before anyone approved it: start the sign-in again.');
    }
    if (entry.decision?.approved === false) {
      this.pending.delete(key);
      throw new OAuthError('access_denied', 'The sign-in was denied on the verification page.');
    }
    if (entry.decision?.approved) {
      this.pending.delete(key);
      return { userId: entry.decision.userId, clientId, scopes: entry.scopes };
    }
    const tooSoon = entry.lastPollAt !== undefined && now - entry.lastPollAt < entry.intervalMs;
    entry.lastPollAt = now;
    if (tooSoon) {
      entry.intervalMs += 5_000;
      throw new OAuthError('slow_down', `Polled too often: wait ${entry.intervalMs / 1000} seconds between polls.`);
    }
    throw new OAuthError('authorization_pending', 'Waiting for the code to be entered and approved on the verification page.');
  }
}

/** Eight letters as `XXXX-XXXX`: about 2^34 codes, entered once within minutes. */
function newUserCode(): string {
  const letters = Array.from({ length: 8 }, () => USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)]).join('');
  return `${letters.slice(0, 4)}-${letters.slice(4)}`;
}

export function normalizeUserCode(code: string): string {
  return code
    .toUpperCase()
    .replace(/[^A-Z]/g, '')
    .slice(0, 16);
}

function digest(code: string): string {
  return createHash('sha256').update(code, 'utf8').digest('base64url');
}
