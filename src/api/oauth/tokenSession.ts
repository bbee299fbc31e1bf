/**
 * The OAuth access token to send, kept fresh: refreshed shortly before it expires and after the
 * instance refuses it (401), one refresh at a time. Refresh tokens are good once, so two refreshes
 * racing (two windows; a poll and a tool call) must not both spend one. In one window, callers share
 * one refresh. Across windows, the vault (SecretStorage: shared by the windows) is the one copy:
 * it is read before refreshing, and again when a refresh is refused, so that a window that lost the
 * race uses the tokens the winner stored. No `vscode` import.
 */
import * as l10n from '@vscode/l10n';
import { DeepSearchError } from '../errors';
import { OAuthFailure, type OAuthTokens } from './authorizationServer';

/** Where the tokens live, shared by every window. */
export interface TokenVault {
  read(): Promise<OAuthTokens | undefined>;
  write(tokens: OAuthTokens): Promise<void>;
}

export interface TokenSessionOptions {
  /** Refreshed this long before it expires (at most a quarter of its lifetime). Default 60 s. */
  earlyMs?: number;
  now?: () => number;
  /** Waits between looks at the vault after a lost race. */
  sleep?: (ms: number) => Promise<void>;
}

/** How long a window that lost a refresh race looks for the winner's tokens. */
const RACE_LOOKS = 4;
const RACE_LOOK_MS = 250;

export class TokenSession {
  private refreshing: Promise<OAuthTokens> | undefined;
  private readonly earlyMs: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    private readonly vault: TokenVault,
    private readonly refreshWith: (refreshToken: string) => Promise<OAuthTokens>,
    options: TokenSessionOptions = {},
  ) {
    this.earlyMs = options.earlyMs ?? 60_000;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** The access token to send now: refreshed first when it expires within `earlyMs`. */
  async accessToken(): Promise<string> {
    const tokens = await this.stored();
    return this.expiresSoon(tokens) ? (await this.refresh(tokens)).accessToken : tokens.accessToken;
  }

  /** After the instance refused `rejected`: the newer token another window stored, or a refreshed one. */
  async afterRejected(rejected: string): Promise<string> {
    const tokens = await this.stored();
    if (tokens.accessToken !== rejected && !this.expiresSoon(tokens)) return tokens.accessToken;
    return (await this.refresh(tokens)).accessToken;
  }

  private async stored(): Promise<OAuthTokens> {
    const tokens = await this.vault.read();
    if (!tokens) throw signInAgain(l10n.t('You are not signed in: sign in to use Deep Search.'));
    return tokens;
  }

  /** When the session renews what the vault holds now (epoch ms), or undefined when it does not expire. */
  async renewsAt(): Promise<number | undefined> {
    const tokens = await this.vault.read();
    return tokens && this.renewalTime(tokens);
  }

  private renewalTime(tokens: OAuthTokens): number | undefined {
    if (tokens.expiresAt === undefined) return undefined;
    // A token that lives a few minutes (or seconds) is not renewed at every request.
    const lifetime = tokens.issuedAt === undefined ? Infinity : tokens.expiresAt - tokens.issuedAt;
    return tokens.expiresAt - Math.min(this.earlyMs, lifetime / 4);
  }

  private expiresSoon(tokens: OAuthTokens): boolean {
    const renewsAt = this.renewalTime(tokens);
    return renewsAt !== undefined && renewsAt <= this.now();
  }

  private refresh(stale: OAuthTokens): Promise<OAuthTokens> {
    this.refreshing ??= this.refreshOnce(stale).finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async refreshOnce(stale: OAuthTokens): Promise<OAuthTokens> {
    // Another window may have refreshed since this one read the vault.
    const current = (await this.vault.read()) ?? stale;
    if (current.accessToken !== stale.accessToken && !this.expiresSoon(current)) return current;
    if (!current.refreshToken) throw signInAgain(l10n.t('The sign-in expired and cannot be renewed by itself: sign in again.'));
    try {
      const fresh = await this.refreshWith(current.refreshToken);
      // A server that does not rotate keeps the refresh token good: keep it.
      const next: OAuthTokens = { ...fresh, refreshToken: fresh.refreshToken ?? current.refreshToken };
      await this.vault.write(next);
      return next;
    } catch (error) {
      if (!(error instanceof OAuthFailure) || error.code !== 'invalid_grant') throw error;
      // Spent by another window a moment ago? Its tokens reach the vault shortly.
      for (let look = 0; look < RACE_LOOKS; look++) {
        const after = await this.vault.read();
        if (after && after.refreshToken !== current.refreshToken) return after;
        await this.sleep(RACE_LOOK_MS);
      }
      throw signInAgain(`${error.message}`);
    }
  }
}

/** The error that makes the extension ask the user to sign in again (once). */
function signInAgain(message: string): DeepSearchError {
  return new DeepSearchError('unauthorized', message);
}
