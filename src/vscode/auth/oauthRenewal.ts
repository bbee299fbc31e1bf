/**
 * The renewing side of an OAuth connection: its token session (the vault is SecretStorage, the
 * instance's authorization server refreshes), a timer that renews shortly before the access token
 * expires so VS Code's agent never holds a dead one, and the count of renewals announced. No
 * `vscode` import: tested on plain Node.
 */
import type { Credential } from '../../api/credential';
import type { AuthorizationServerClient } from '../../api/oauth/authorizationServer';
import type { TokenSession } from '../../api/oauth/tokenSession';
import type { StoredOAuthSignIn } from './credentialVault';
import type { NetworkBundle } from './networkBundle';
import { sha256Hex } from '../digest';

/** Timers fire at least a second apart, and at most a day ahead (setTimeout's range). */
const MIN_DELAY_MS = 1_000;
const MAX_DELAY_MS = 24 * 3_600_000;

/** How long to wait, from `now`, before renewing at `renewsAt` (both epoch ms). */
export function renewalDelay(renewsAt: number, now: number): number {
  return Math.min(Math.max(renewsAt - now, MIN_DELAY_MS), MAX_DELAY_MS);
}

/** Where one instance's OAuth sign-in is kept (the credential vault, for one instance URL). */
export interface StoredSignIn {
  read(): Promise<StoredOAuthSignIn | undefined>;
  write(signIn: StoredOAuthSignIn): Promise<void>;
}

export interface OAuthRenewalParts {
  network: Pick<NetworkBundle, 'TokenSession' | 'oauthCredential'>;
  /** The sign-in as it was when the connection was made (kept when the stored one is gone). */
  signIn: StoredOAuthSignIn;
  stored: StoredSignIn;
  /** The instance's authorization server; rejects when it has none. */
  findServer: () => Promise<AuthorizationServerClient>;
  /** A refreshed access token was stored. */
  onStored: (accessToken: string) => void;
}

export class OAuthRenewal {
  readonly tokens: TokenSession;
  readonly credential: Credential;
  private found: Promise<AuthorizationServerClient> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(private readonly parts: OAuthRenewalParts) {
    const { network, signIn, stored, onStored } = parts;
    this.tokens = new network.TokenSession(
      {
        read: async () => (await stored.read())?.tokens,
        write: async (next) => {
          await stored.write({ ...((await stored.read()) ?? signIn), tokens: next });
          onStored(next.accessToken);
        },
      },
      async (refreshToken) => (await this.server()).refresh(refreshToken, signIn.clientId),
    );
    this.credential = network.oauthCredential(this.tokens);
  }

  /** The instance's authorization server, found on first need (refresh, sign out) and looked for again after a failure. */
  server(): Promise<AuthorizationServerClient> {
    this.found ??= this.parts.findServer();
    this.found.catch(() => (this.found = undefined));
    return this.found;
  }

  /** Renews when the session would (shortly before expiry), then schedules the next renewal. */
  start(): void {
    if (this.closed) return;
    void this.tokens.renewsAt().then((renewsAt) => {
      if (this.closed || renewsAt === undefined) return;
      this.timer = setTimeout(
        () => {
          void this.tokens
            .accessToken()
            .then(() => this.start())
            // A refused refresh is said by the next request that needs the token (once).
            .catch(() => undefined);
        },
        renewalDelay(renewsAt, Date.now()),
      );
    });
  }

  stop(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }
}

/**
 * Counts the renewals of the current connection's access token, each announced once however many
 * times it is noticed (the refresh here, the vault changing in another window). Keeps a SHA-256 of
 * the last token, never the token.
 */
export class RenewalCount {
  private seenDigest: string | undefined;
  private renewals = 0;

  constructor(private readonly announce: () => void) {}

  get count(): number {
    return this.renewals;
  }

  /** A new connection: none renewed yet; `accessToken` is the one it starts with (none for a fixed token). */
  restart(accessToken: string | undefined): void {
    this.renewals = 0;
    this.seenDigest = accessToken === undefined ? undefined : digest(accessToken);
  }

  noticed(accessToken: string): void {
    const seen = digest(accessToken);
    if (seen === this.seenDigest) return;
    this.seenDigest = seen;
    this.renewals++;
    this.announce();
  }
}

function digest(text: string): string {
  return sha256Hex(text);
}
