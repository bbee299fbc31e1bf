/**
 * The instance's OAuth 2.0 authorization server as the extension uses it (no `vscode` import):
 * discovery, the authorization code grant with PKCE (S256), the device grant (RFC 8628), refresh,
 * revocation and `userinfo`. Every failure becomes an `OAuthFailure` or a `DeepSearchError` whose
 * message says what happened and what to do; no token ever appears in one.
 */
import * as l10n from '@vscode/l10n';
import {
  codeChallengeOf,
  GRANT_TYPES,
  newCodeVerifier,
  OAUTH_DISCOVERY_PATHS,
  type WireAuthorizationServerMetadata,
  type WireClientRegistration,
  type WireOAuthError,
  type WireRegisteredClient,
  type WireDeviceAuthorization,
  type WireTokenResponse,
  type WireUserInfo,
} from '../../contract/oauthWire';
import { invalidResponseError } from '../errors';
import type { HttpResponse, HttpTransport } from '../http';

/** What an OAuth endpoint refused, by its RFC 6749 error code. */
export class OAuthFailure extends Error {
  override readonly name = 'OAuthFailure';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Tokens as the extension keeps them: when the access token stops working, and what it may do. */
export interface OAuthTokens {
  accessToken: string;
  refreshToken?: string;
  /** Epoch milliseconds; undefined when the server did not say. */
  expiresAt?: number;
  /** When the tokens were received (epoch milliseconds): with `expiresAt`, the access token's lifetime. */
  issuedAt?: number;
  scopes: string[];
}

/** The statuses an OAuth endpoint answers its errors with: read as answers, not failures. */
const OAUTH_ERROR_STATUSES = [400, 401];

export class AuthorizationServerClient {
  private constructor(
    private readonly transport: HttpTransport,
    readonly metadata: WireAuthorizationServerMetadata,
  ) {}

  /**
   * The instance's authorization server, from its discovery document; undefined when the instance
   * publishes none (it has no OAuth: paste an access token instead).
   */
  static async discover(transport: HttpTransport, instanceUrl: string, signal?: AbortSignal): Promise<AuthorizationServerClient | undefined> {
    const origin = new URL(instanceUrl).origin;
    for (const path of OAUTH_DISCOVERY_PATHS) {
      const response = await transport.send({
        method: 'GET',
        url: new URL(path, origin),
        headers: { Accept: 'application/json' },
        signal,
        acceptStatuses: [404],
      });
      if (response.status === 404) continue;
      const metadata = parseJson(response.body, () => l10n.t('The instance’s OAuth discovery document is not JSON.'));
      if (!isMetadata(metadata)) throw invalidResponseError(l10n.t('The instance’s OAuth discovery document lacks its endpoints.'));
      // Endpoints elsewhere would receive the user's codes and tokens: only the instance's own.
      for (const endpoint of [
        metadata.authorization_endpoint,
        metadata.token_endpoint,
        metadata.device_authorization_endpoint,
        metadata.revocation_endpoint,
        metadata.userinfo_endpoint,
      ]) {
        if (endpoint !== undefined && new URL(endpoint).origin !== origin) {
          throw invalidResponseError(
            l10n.t('The instance’s OAuth endpoints are on another origin ({0}); the extension signs in with {1} only.', new URL(endpoint).origin, origin),
          );
        }
      }
      return new AuthorizationServerClient(transport, metadata);
    }
    return undefined;
  }

  /** Whether the device grant is offered (a device authorization endpoint and the grant type). */
  get offersDeviceGrant(): boolean {
    return this.metadata.device_authorization_endpoint !== undefined && (this.metadata.grant_types_supported?.includes(GRANT_TYPES.deviceCode) ?? true);
  }

  /** A new browser sign-in: the URL to open, and what completing it needs. */
  startBrowserSignIn(options: { clientId: string; redirectUri: string; scopes: readonly string[] }): BrowserSignIn {
    const verifier = newCodeVerifier();
    const state = newCodeVerifier();
    const url = new URL(this.metadata.authorization_endpoint);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', options.clientId);
    url.searchParams.set('redirect_uri', options.redirectUri);
    url.searchParams.set('scope', options.scopes.join(' '));
    url.searchParams.set('state', state);
    url.searchParams.set('code_challenge', codeChallengeOf(verifier));
    url.searchParams.set('code_challenge_method', 'S256');
    // Spaces as %20, not '+': VS Code re-encodes a URL it opens, and a '+' could reach the server as itself.
    url.search = url.search.replace(/\+/g, '%20');
    return { url, state, verifier, clientId: options.clientId, redirectUri: options.redirectUri };
  }

  /**
   * The tokens for the redirect that came back: its `state` must be the sign-in's (else it is not
   * this sign-in's answer), its `iss` (when present) the instance's, and the code is exchanged once.
   */
  async completeBrowserSignIn(signIn: BrowserSignIn, redirect: URL, signal?: AbortSignal): Promise<OAuthTokens> {
    const parameters = redirect.searchParams;
    if (parameters.get('state') !== signIn.state) {
      throw new OAuthFailure('invalid_state', l10n.t('The sign-in answer does not belong to this sign-in (its state differs): start the sign-in again.'));
    }
    const issuer = parameters.get('iss');
    if (issuer !== null && issuer !== this.metadata.issuer) {
      throw new OAuthFailure('invalid_issuer', l10n.t('The sign-in answer came from {0}, not {1}: start the sign-in again.', issuer, this.metadata.issuer));
    }
    const error = parameters.get('error');
    if (error !== null) throw new OAuthFailure(error, describeAuthorizationError(error, parameters.get('error_description')));
    const code = parameters.get('code');
    if (!code) throw new OAuthFailure('invalid_request', l10n.t('The sign-in answer carries no code: start the sign-in again.'));
    return this.tokenRequest(
      { grant_type: GRANT_TYPES.authorizationCode, client_id: signIn.clientId, code, redirect_uri: signIn.redirectUri, code_verifier: signIn.verifier },
      signal,
    );
  }

  /** Starts a device sign-in: the code to show and the page where the user enters it. */
  async startDeviceSignIn(options: { clientId: string; scopes: readonly string[] }, signal?: AbortSignal): Promise<WireDeviceAuthorization> {
    const endpoint = this.metadata.device_authorization_endpoint;
    if (!endpoint) {
      throw new OAuthFailure(
        'unsupported_grant_type',
        l10n.t('The instance does not offer sign-in with a device code: sign in with your browser, or paste an access token.'),
      );
    }
    const response = await this.postForm(endpoint, { client_id: options.clientId, scope: options.scopes.join(' ') }, signal);
    const body = parseJson(response.body, () => l10n.t('The device sign-in answer is not JSON.')) as Partial<WireDeviceAuthorization>;
    if (
      typeof body.device_code !== 'string' ||
      typeof body.user_code !== 'string' ||
      typeof body.verification_uri !== 'string' ||
      typeof body.expires_in !== 'number'
    ) {
      throw invalidResponseError(l10n.t('The device sign-in answer lacks its codes or its verification page.'));
    }
    return body as WireDeviceAuthorization;
  }

  /**
   * Polls until the user approves (the tokens), denies or lets the code expire (an `OAuthFailure`),
   * waiting the interval the server asks for and five seconds more at each `slow_down`.
   */
  async finishDeviceSignIn(
    device: WireDeviceAuthorization,
    clientId: string,
    wait: (ms: number, signal?: AbortSignal) => Promise<void>,
    signal?: AbortSignal,
  ): Promise<OAuthTokens> {
    let intervalMs = Math.max(1, device.interval ?? 5) * 1000;
    for (;;) {
      await wait(intervalMs, signal);
      try {
        return await this.tokenRequest({ grant_type: GRANT_TYPES.deviceCode, client_id: clientId, device_code: device.device_code }, signal);
      } catch (error) {
        if (!(error instanceof OAuthFailure)) throw error;
        if (error.code === 'authorization_pending') continue;
        if (error.code === 'slow_down') {
          intervalMs += 5_000;
          continue;
        }
        throw error;
      }
    }
  }

  /** New tokens for a refresh token (which is then spent: the answer carries the next one). */
  refresh(refreshToken: string, clientId: string, signal?: AbortSignal): Promise<OAuthTokens> {
    return this.tokenRequest({ grant_type: GRANT_TYPES.refreshToken, client_id: clientId, refresh_token: refreshToken }, signal);
  }

  /** Whether clients may register themselves here (RFC 7591). */
  get offersRegistration(): boolean {
    return this.metadata.registration_endpoint !== undefined;
  }

  /**
   * Registers the extension as a public client (PKCE, no secret) with these redirect URIs: its
   * client id, and the scopes the instance says such a client may have (undefined when it does not say).
   */
  async register(options: { clientName: string; redirectUris: readonly string[] }, signal?: AbortSignal): Promise<{ clientId: string; scopes?: string[] }> {
    const endpoint = this.metadata.registration_endpoint;
    if (!endpoint) {
      throw new OAuthFailure(
        'registration_not_supported',
        l10n.t(
          'The instance does not let applications register themselves: ask an administrator for an OAuth client id (setting deepSearch.oauth.clientId), or paste an access token.',
        ),
      );
    }
    const request: WireClientRegistration = {
      client_name: options.clientName,
      redirect_uris: [...options.redirectUris],
      grant_types: [GRANT_TYPES.authorizationCode, GRANT_TYPES.refreshToken, GRANT_TYPES.deviceCode],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
    const response = await this.transport.send({
      method: 'POST',
      url: new URL(endpoint),
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(request),
      signal,
      acceptStatuses: [...OAUTH_ERROR_STATUSES, 403],
    });
    const body = parseJson(response.body, () => l10n.t('The registration answer is not JSON.')) as Partial<WireRegisteredClient> & Partial<WireOAuthError>;
    if (response.status >= 300) {
      const code = typeof body.error === 'string' ? body.error.slice(0, 64) : `http_${response.status}`;
      const description = typeof body.error_description === 'string' ? body.error_description.slice(0, 300) : undefined;
      throw new OAuthFailure(code, withInstanceWords(l10n.t('The instance refused to register the extension as an OAuth client ({0}).', code), description));
    }
    if (typeof body.client_id !== 'string' || body.client_id === '') throw invalidResponseError(l10n.t('The registration answer carries no client id.'));
    return { clientId: body.client_id, ...(typeof body.scope === 'string' ? { scopes: body.scope.split(' ').filter(Boolean) } : {}) };
  }

  /** Revokes a token on the instance (RFC 7009); false when the instance has no revocation endpoint. */
  async revoke(token: string, clientId: string, signal?: AbortSignal): Promise<boolean> {
    const endpoint = this.metadata.revocation_endpoint;
    if (!endpoint) return false;
    await this.postForm(endpoint, { token, client_id: clientId }, signal);
    return true;
  }

  /** Who the token signs in as (`userinfo`), or undefined when the instance does not say. */
  async userInfo(accessToken: string, signal?: AbortSignal): Promise<WireUserInfo | undefined> {
    const endpoint = this.metadata.userinfo_endpoint;
    if (!endpoint) return undefined;
    const response = await this.transport.send({
      method: 'GET',
      url: new URL(endpoint),
      headers: { Authorization: `Bearer ${accessToken}`, Accept: 'application/json' },
      signal,
    });
    const info = parseJson(response.body, () => l10n.t('The userinfo answer is not JSON.')) as Partial<WireUserInfo>;
    return typeof info.sub === 'string' ? (info as WireUserInfo) : undefined;
  }

  private async tokenRequest(form: Record<string, string>, signal?: AbortSignal): Promise<OAuthTokens> {
    const response = await this.postForm(this.metadata.token_endpoint, form, signal);
    const body = parseJson(response.body, () => l10n.t('The token answer is not JSON.')) as Partial<WireTokenResponse>;
    if (typeof body.access_token !== 'string' || body.access_token === '') throw invalidResponseError(l10n.t('The token answer carries no access token.'));
    return {
      accessToken: body.access_token,
      ...(typeof body.refresh_token === 'string' ? { refreshToken: body.refresh_token } : {}),
      ...(typeof body.expires_in === 'number' && body.expires_in > 0 ? { expiresAt: Date.now() + body.expires_in * 1000, issuedAt: Date.now() } : {}),
      scopes: typeof body.scope === 'string' ? body.scope.split(' ').filter(Boolean) : [],
    };
  }

  /** A form POST (never retried: a code or refresh token is good once); OAuth errors become `OAuthFailure`s. */
  private async postForm(endpoint: string, form: Record<string, string>, signal?: AbortSignal): Promise<HttpResponse> {
    const response = await this.transport.send({
      method: 'POST',
      url: new URL(endpoint),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: new URLSearchParams(form).toString(),
      signal,
      acceptStatuses: OAUTH_ERROR_STATUSES,
    });
    if (response.status >= 200 && response.status < 300) return response;
    const failure = parseJsonOrUndefined(response.body) as { error?: unknown; error_description?: unknown } | undefined;
    const code = typeof failure?.error === 'string' ? failure.error.slice(0, 64) : `http_${response.status}`;
    const description = typeof failure?.error_description === 'string' ? failure.error_description.slice(0, 300) : undefined;
    throw new OAuthFailure(code, describeTokenError(code, description));
  }
}

export interface BrowserSignIn {
  url: URL;
  state: string;
  verifier: string;
  clientId: string;
  redirectUri: string;
}

/** A message, then what the instance said when it said something (one message, so a translation may reorder them). */
function withInstanceWords(message: string, description: string | undefined): string {
  return description ? l10n.t('{0} The instance said: {1}', message, description) : message;
}

function describeAuthorizationError(code: string, description: string | null): string {
  const said = (message: string) => withInstanceWords(message, description ? description.slice(0, 300) : undefined);
  if (code === 'access_denied') return said(l10n.t('The sign-in was denied in the browser.'));
  if (code === 'invalid_scope')
    return said(l10n.t('The instance would not grant the access the extension asks for (an administrator sets the OAuth client’s scopes).'));
  return said(l10n.t('The instance refused the sign-in ({0}).', code.slice(0, 64)));
}

function describeTokenError(code: string, description: string | undefined): string {
  const said = (message: string) => withInstanceWords(message, description);
  switch (code) {
    case 'expired_token':
      return said(l10n.t('The device code expired before it was approved: sign in again.'));
    case 'access_denied':
      return said(l10n.t('The sign-in was denied.'));
    case 'invalid_grant':
      return said(l10n.t('The instance no longer accepts this sign-in (the code or refresh token is used, expired or revoked): sign in again.'));
    case 'invalid_client':
      return said(l10n.t('The instance does not know the OAuth client id: check the setting deepSearch.oauth.clientId (an administrator creates the client).'));
    default:
      return said(l10n.t('The instance refused the token request ({0}).', code));
  }
}

function isMetadata(value: unknown): value is WireAuthorizationServerMetadata {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record.issuer === 'string' && typeof record.authorization_endpoint === 'string' && typeof record.token_endpoint === 'string';
}

/** The parsed body, or an invalid-response error saying `notJson()` (a function: worded only when needed). */
function parseJson(body: string, notJson: () => string): unknown {
  const value = parseJsonOrUndefined(body);
  if (value === undefined) throw invalidResponseError(notJson());
  return value;
}

function parseJsonOrUndefined(body: string): unknown {
  if (body.length > 1024 * 1024) return undefined;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}
