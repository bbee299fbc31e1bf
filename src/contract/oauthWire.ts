/**
 * OAuth 2.0 as 7.x instances serve it (the authorization server under `/.auth/idp/oauth/`), in the
 * shapes the extension sends and reads and the local engine answers: discovery (RFC 8414), the
 * authorization code grant with PKCE (RFC 7636, S256 only), the device grant (RFC 8628), dynamic
 * client registration (RFC 7591), revocation (RFC 7009) and `userinfo`.
 */
import { sha256 } from '@noble/hashes/sha2';

export const OAUTH_BASE_PATH = '/.auth/idp/oauth';

export const OAUTH_PATHS = {
  authorize: `${OAUTH_BASE_PATH}/authorize`,
  token: `${OAUTH_BASE_PATH}/token`,
  deviceCode: `${OAUTH_BASE_PATH}/device/code`,
  /** Where a person enters a device's user code (the engine's page; instances name their own). */
  device: `${OAUTH_BASE_PATH}/device`,
  register: `${OAUTH_BASE_PATH}/register`,
  revoke: `${OAUTH_BASE_PATH}/revoke`,
  introspect: `${OAUTH_BASE_PATH}/introspect`,
  userinfo: `${OAUTH_BASE_PATH}/userinfo`,
} as const;

/** RFC 9728: a protected resource's metadata lives here, followed by the resource's path. */
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** Both discovery documents instances publish; the first is tried first. */
export const OAUTH_DISCOVERY_PATHS = ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'] as const;

export const GRANT_TYPES = {
  authorizationCode: 'authorization_code',
  refreshToken: 'refresh_token',
  deviceCode: 'urn:ietf:params:oauth:grant-type:device_code',
} as const;

/** Scopes beyond the API's (contract tokenScopes): identity and refresh. */
export const OAUTH_SCOPES = {
  openid: 'openid',
  profile: 'profile',
  email: 'email',
  offlineAccess: 'offline_access',
} as const;

/** The discovery document's fields that clients use. */
export interface WireAuthorizationServerMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  device_authorization_endpoint?: string;
  registration_endpoint?: string;
  revocation_endpoint?: string;
  introspection_endpoint?: string;
  userinfo_endpoint?: string;
  scopes_supported?: string[];
  response_types_supported?: string[];
  grant_types_supported?: string[];
  code_challenge_methods_supported?: string[];
  token_endpoint_auth_methods_supported?: string[];
}

/** A successful token response (every grant). */
export interface WireTokenResponse {
  access_token: string;
  token_type: string;
  /** Seconds the access token lives. */
  expires_in?: number;
  refresh_token?: string;
  /** The scopes granted, space-separated (may be fewer than asked). */
  scope?: string;
}

/** An error of the token, device or registration endpoint (RFC 6749 §5.2, RFC 8628 §3.5). */
export interface WireOAuthError {
  error: string;
  error_description?: string;
}

/** The device authorization response (RFC 8628 §3.2). */
export interface WireDeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete?: string;
  expires_in: number;
  /** Seconds to wait between polls of the token endpoint. Default 5. */
  interval?: number;
}

/** A registration request (RFC 7591 §2) as a public client sends it. */
export interface WireClientRegistration {
  client_name?: string;
  redirect_uris: string[];
  grant_types?: string[];
  response_types?: string[];
  token_endpoint_auth_method?: string;
  scope?: string;
}

/** The registration response: the client's id and what it was given. */
export interface WireRegisteredClient extends WireClientRegistration {
  client_id: string;
  client_id_issued_at?: number;
}

/** The `userinfo` fields clients show. */
export interface WireUserInfo {
  sub: string;
  preferred_username?: string;
  name?: string;
  email?: string;
}

/** A PKCE code verifier: 32 random bytes, base64url (43 characters, within RFC 7636's 43–128). */
export function newCodeVerifier(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

/** The S256 challenge of a verifier: base64url(SHA-256(verifier)). */
export function codeChallengeOf(verifier: string): string {
  return base64url(sha256(new TextEncoder().encode(verifier)));
}

/** RFC 4648 §5 without padding, with what Node and browsers both have (`btoa`). */
function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** RFC 7636 §4.1: 43–128 characters of the unreserved set. */
export function isValidCodeVerifier(verifier: string): boolean {
  return /^[A-Za-z0-9\-._~]{43,128}$/.test(verifier);
}
