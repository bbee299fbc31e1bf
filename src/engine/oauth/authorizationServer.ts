/**
 * The engine's OAuth 2.0 authorization server, at the paths 7.x instances use (contract oauthWire):
 * discovery, the authorization code grant with PKCE (S256) and its consent page, the device grant
 * and its verification page, refresh tokens that rotate, dynamic client registration (such clients
 * reach the tool server only), revocation and `userinfo`. The tokens it issues carry scopes that
 * both interfaces enforce (auth.ts).
 */
import type { IncomingMessage } from 'node:http';
import { readFile } from 'node:fs/promises';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import {
  codeChallengeOf,
  GRANT_TYPES,
  isValidCodeVerifier,
  OAUTH_DISCOVERY_PATHS,
  OAUTH_PATHS,
  type WireAuthorizationServerMetadata,
  type WireDeviceAuthorization,
  type WireOAuthError,
  type WireRegisteredClient,
  type WireUserInfo,
} from '../../contract/oauthWire';
import { TOKEN_SCOPES } from '../../contract/tokenScopes';
import { writeFileAtomically } from '../storage/atomicFile';
import { echo } from '../http/echo';
import { errorMessage } from '../../contract/errorMessage';
import { HttpError, jsonReply, parseJsonObject, readBody, type Reply } from '../http/http';
import type { Route } from '../http/routeTable';
import { ALL_CLIENT_SCOPES, OAuthClients, redirectAllowed, type OAuthClient } from './clients';
import { sweep } from './bounded';
import { DeviceCodes } from './deviceCodes';
import { IssuedTokens, newSecret, OAuthError, type AccessVerdict } from './issuedTokens';
import { consentPage, devicePage, outcomePage, signInPageCsp, type Account } from './pages';

export interface OAuthOptions {
  /** Public clients an administrator registered (the CLI's `--oauth-client`). */
  clients?: Array<{ id: string; name?: string; redirectUris: string[]; scopes?: string[] }>;
  /** Whether clients may register themselves (RFC 7591); they get `mcp` only. Default true. */
  dynamicRegistration?: boolean;
  /** Seconds an access token lives. Default 3600, as on instances. */
  accessTokenSeconds?: number;
  /** Seconds an unused refresh token lives. Default 30 days. */
  refreshTokenSeconds?: number;
  /** Seconds a device code waits to be approved. Default 600. */
  deviceCodeSeconds?: number;
  /** Seconds between a device client's polls. Default 5. */
  deviceIntervalSeconds?: number;
}

/** How long a consent page stays answerable. */
const CONSENT_LIFETIME_MS = 10 * 60 * 1000;
const MAX_PENDING_CONSENTS = 1_000;
const MAX_PARAMETER_LENGTH = 2_000;

interface PendingConsent {
  client: OAuthClient;
  redirectUri: string;
  scopes: string[];
  state: string | undefined;
  codeChallenge: string;
  expiresAt: number;
}

export class AuthorizationServer {
  private readonly clients: OAuthClients;
  private readonly tokens: IssuedTokens;
  private readonly devices: DeviceCodes;
  private readonly consents = new Map<string, PendingConsent>();
  private readonly dynamicRegistration: boolean;

  private saving: Promise<void> = Promise.resolve();
  private saveQueued = false;

  private constructor(
    private readonly url: string,
    private readonly accounts: readonly Account[],
    options: OAuthOptions,
    private readonly saveTo: { file: string; log: (line: string) => void } | undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.clients = new OAuthClients((options.clients ?? []).map((client) => ({ ...client, scopes: client.scopes ?? ALL_CLIENT_SCOPES })));
    this.tokens = new IssuedTokens(
      { accessSeconds: options.accessTokenSeconds ?? 3600, refreshSeconds: options.refreshTokenSeconds ?? 30 * 24 * 3600 },
      now,
      () => this.save(),
    );
    this.devices = new DeviceCodes({ lifetimeSeconds: options.deviceCodeSeconds ?? 600, intervalSeconds: options.deviceIntervalSeconds ?? 5 }, now);
    this.dynamicRegistration = options.dynamicRegistration ?? true;
  }

  /**
   * The server, with the tokens it issued before a restart when `saveTo` names where they are kept
   * (digests only; a file that cannot be read is logged and the server starts empty).
   */
  static async open(
    url: string,
    accounts: readonly Account[],
    options: OAuthOptions = {},
    saveTo?: { file: string; log: (line: string) => void },
  ): Promise<AuthorizationServer> {
    const server = new AuthorizationServer(url, accounts, options, saveTo);
    if (saveTo) {
      const saved = await readFile(saveTo.file, 'utf8').catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') saveTo.log(`OAuth tokens could not be read from ${saveTo.file} (${error.message}); OAuth clients sign in again`);
        return undefined;
      });
      if (saved !== undefined) {
        try {
          server.tokens.restore(JSON.parse(saved) as unknown);
        } catch (error) {
          saveTo.log(`OAuth tokens in ${saveTo.file} are not valid JSON (${errorMessage(error)}); OAuth clients sign in again`);
        }
      }
    }
    return server;
  }

  /** Resolves once the tokens issued so far are saved. */
  async idle(): Promise<void> {
    await this.saving;
  }

  /** Saves the tokens after the writes under way; changes meanwhile are folded into one write. */
  private save(): void {
    const saveTo = this.saveTo;
    if (!saveTo || this.saveQueued) return;
    this.saveQueued = true;
    this.saving = this.saving.then(async () => {
      this.saveQueued = false;
      await writeFileAtomically(saveTo.file, JSON.stringify(this.tokens.snapshot())).catch((error: unknown) => {
        saveTo.log(`OAuth tokens could not be saved to ${saveTo.file} (${errorMessage(error)}); sign-ins since will not outlive a restart`);
      });
    });
  }

  /** This server as a route of the engine's table: its paths, each of which tells methods apart itself. */
  route(): Route {
    return {
      name: 'the OAuth authorization server',
      matches: (path) => this.serves(path),
      handle: ({ request, path, query }) => this.handle(request, path, query),
    };
  }

  /** Whether a request path is this server's. */
  serves(path: string): boolean {
    return (OAUTH_DISCOVERY_PATHS as readonly string[]).includes(path) || Object.values(OAUTH_PATHS).includes(path as never);
  }

  /** What an access token the engine issued is, for authentication (auth.ts). */
  verifyAccess(token: string): AccessVerdict {
    return this.tokens.verifyAccess(token);
  }

  metadata(): WireAuthorizationServerMetadata {
    return {
      issuer: this.url,
      authorization_endpoint: `${this.url}${OAUTH_PATHS.authorize}`,
      token_endpoint: `${this.url}${OAUTH_PATHS.token}`,
      device_authorization_endpoint: `${this.url}${OAUTH_PATHS.deviceCode}`,
      ...(this.dynamicRegistration ? { registration_endpoint: `${this.url}${OAUTH_PATHS.register}` } : {}),
      revocation_endpoint: `${this.url}${OAUTH_PATHS.revoke}`,
      userinfo_endpoint: `${this.url}${OAUTH_PATHS.userinfo}`,
      scopes_supported: [...ALL_CLIENT_SCOPES],
      response_types_supported: ['code'],
      grant_types_supported: Object.values(GRANT_TYPES),
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
    };
  }

  async handle(request: IncomingMessage, path: string, query: URLSearchParams): Promise<Reply> {
    const method = request.method ?? 'GET';
    const only = (allowed: string): void => {
      if (method !== allowed) throw new HttpError(405, `${method} is not supported at ${path}: use ${allowed}.`, { Allow: allowed });
    };
    if ((OAUTH_DISCOVERY_PATHS as readonly string[]).includes(path)) {
      only('GET');
      return jsonReply(200, this.metadata());
    }
    switch (path) {
      case OAUTH_PATHS.authorize:
        if (method === 'GET') return this.askConsent(query);
        only('POST');
        checkSameOrigin(request, this.url);
        return this.decideConsent(await readPageForm(request));
      case OAUTH_PATHS.token:
        only('POST');
        return oauthReply(() => this.token(readFormOf(query, request)));
      case OAUTH_PATHS.deviceCode:
        only('POST');
        return oauthReply(async () => this.startDevice(await readForm(request)));
      case OAUTH_PATHS.device:
        if (method === 'GET') return this.devicePage({ userCode: query.get('user_code') ?? undefined });
        only('POST');
        checkSameOrigin(request, this.url);
        return this.decideDevice(await readPageForm(request));
      case OAUTH_PATHS.register:
        only('POST');
        return oauthReply(
          async () => this.register(parseJsonObject(await readBody(request), '{"client_name": "My app", "redirect_uris": ["http://127.0.0.1/callback"]}')),
          201,
        );
      case OAUTH_PATHS.revoke: {
        only('POST');
        const form = await readPageForm(request);
        const token = form.get('token');
        if (token) this.tokens.revoke(token);
        return { status: 200, body: '', contentType: 'text/plain; charset=utf-8' };
      }
      case OAUTH_PATHS.userinfo:
        return this.userinfo(request.headers.authorization);
      default:
        throw new HttpError(404, `Nothing is served at ${path}.`);
    }
  }

  private askConsent(query: URLSearchParams): Reply {
    const clientId = single(query, 'client_id');
    const client = clientId ? this.clients.get(clientId) : undefined;
    if (!client)
      return this.page(
        400,
        'Unknown application',
        `No OAuth client ${echo(clientId ?? '')} is registered with this engine: check the client id the application uses.`,
      );
    const redirectUri = single(query, 'redirect_uri');
    if (!redirectUri || !redirectAllowed(client, redirectUri)) {
      return this.page(
        400,
        'Unexpected redirect',
        `The redirect URI ${echo(redirectUri ?? '(none)')} is not one registered for ${client.name}: nothing was sent to it.`,
      );
    }
    const state = single(query, 'state');
    const fail = (error: string, description: string): Reply => redirect(redirectUri, { error, error_description: description, state, iss: this.url });
    if (single(query, 'response_type') !== 'code') return fail('unsupported_response_type', 'Only response_type=code is supported.');
    const codeChallenge = single(query, 'code_challenge');
    if (!codeChallenge || single(query, 'code_challenge_method') !== 'S256' || !/^[A-Za-z0-9_-]{43}$/.test(codeChallenge)) {
      return fail('invalid_request', 'PKCE is required: send code_challenge (base64url of SHA-256) with code_challenge_method=S256.');
    }
    const scopes = grantedScopes(client, single(query, 'scope'));
    if (scopes.length === 0) return fail('invalid_scope', `None of the scopes asked for is allowed for this client (allowed: ${client.scopes.join(' ')}).`);
    const now = this.now();
    sweep(this.consents, (pending) => pending.expiresAt <= now, MAX_PENDING_CONSENTS);
    const requestId = newSecret(18);
    this.consents.set(requestId, { client, redirectUri, scopes, state, codeChallenge, expiresAt: this.now() + CONSENT_LIFETIME_MS });
    const nonce = randomBytes(16).toString('base64');
    const body = consentPage({
      nonce,
      action: relativeAction(OAUTH_PATHS.authorize),
      requestId,
      clientName: client.name,
      dynamic: client.dynamic,
      scopes,
      accounts: this.accounts,
    });
    return { status: 200, body, contentType: 'text/html; charset=utf-8', headers: pageHeaders(nonce) };
  }

  private decideConsent(form: URLSearchParams): Reply {
    const requestId = form.get('request') ?? '';
    const pending = this.consents.get(requestId);
    this.consents.delete(requestId);
    if (!pending || pending.expiresAt <= this.now()) {
      return this.page(400, 'This sign-in has ended', 'The page was answered already or waited too long: start the sign-in again from the application.');
    }
    const { client, redirectUri, state } = pending;
    if (form.get('decision') !== 'approve')
      return redirect(redirectUri, { error: 'access_denied', error_description: 'The sign-in was denied.', state, iss: this.url });
    const account = this.accountOf(form.get('user'));
    const code = this.tokens.newCode({
      grant: { userId: account.id, clientId: client.id, scopes: pending.scopes },
      redirectUri,
      codeChallenge: pending.codeChallenge,
    });
    return redirect(redirectUri, { code, state, iss: this.url });
  }

  private async token(formPromise: Promise<URLSearchParams>): Promise<Reply> {
    const form = await formPromise;
    const clientId = form.get('client_id') ?? '';
    const client = this.clients.get(clientId);
    if (!client) throw new OAuthError('invalid_client', `Unknown client_id ${echo(clientId)}.`, 401);
    switch (form.get('grant_type')) {
      case GRANT_TYPES.authorizationCode: {
        const pending = this.tokens.takeCode(required(form, 'code'));
        if (!pending || pending.grant.clientId !== client.id)
          throw new OAuthError('invalid_grant', 'Unknown, used or expired authorization code: sign in again.');
        if (pending.redirectUri !== form.get('redirect_uri'))
          throw new OAuthError('invalid_grant', 'redirect_uri differs from the one of the authorization request.');
        const verifier = required(form, 'code_verifier');
        if (!isValidCodeVerifier(verifier) || !sameText(codeChallengeOf(verifier), pending.codeChallenge)) {
          throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge of the authorization request.');
        }
        return jsonReply(200, this.tokens.issue(pending.grant));
      }
      case GRANT_TYPES.refreshToken: {
        const scope = form.get('scope');
        return jsonReply(200, this.tokens.rotate(required(form, 'refresh_token'), client.id, scope ? scope.split(' ').filter(Boolean) : undefined));
      }
      case GRANT_TYPES.deviceCode:
        return jsonReply(200, this.tokens.issue(this.devices.poll(required(form, 'device_code'), client.id)));
      default:
        throw new OAuthError('unsupported_grant_type', `grant_type must be one of ${Object.values(GRANT_TYPES).join(', ')}.`);
    }
  }

  private startDevice(form: URLSearchParams): Reply {
    const clientId = form.get('client_id') ?? '';
    const client = this.clients.get(clientId);
    if (!client) throw new OAuthError('invalid_client', `Unknown client_id ${echo(clientId)}.`, 401);
    const scopes = grantedScopes(client, form.get('scope') ?? undefined);
    if (scopes.length === 0)
      throw new OAuthError('invalid_scope', `None of the scopes asked for is allowed for this client (allowed: ${client.scopes.join(' ')}).`);
    const started = this.devices.start(client.id, scopes);
    const verification = `${this.url}${OAUTH_PATHS.device}`;
    const body: WireDeviceAuthorization = {
      device_code: started.deviceCode,
      user_code: started.userCode,
      verification_uri: verification,
      verification_uri_complete: `${verification}?user_code=${encodeURIComponent(started.userCode)}`,
      expires_in: started.expiresIn,
      interval: started.interval,
    };
    return jsonReply(200, body);
  }

  private devicePage(options: { userCode?: string; message?: string; status?: number }): Reply {
    const nonce = randomBytes(16).toString('base64');
    const found = options.userCode ? this.devices.find(options.userCode) : undefined;
    const client = found ? this.clients.get(found.clientId) : undefined;
    const body = devicePage({
      nonce,
      action: relativeAction(OAUTH_PATHS.device),
      userCode: options.userCode?.slice(0, 16),
      accounts: this.accounts,
      message: options.message,
      ...(client && found ? { clientName: client.name, scopes: found.scopes } : {}),
    });
    return { status: options.status ?? 200, body, contentType: 'text/html; charset=utf-8', headers: pageHeaders(nonce) };
  }

  private decideDevice(form: URLSearchParams): Reply {
    const userCode = form.get('user_code') ?? '';
    const approved = form.get('decision') === 'approve';
    const decided = this.devices.decide(userCode, approved ? { approved: true, userId: this.accountOf(form.get('user')).id } : { approved: false });
    if (!decided)
      return this.devicePage({ userCode, status: 400, message: 'No sign-in waits for this code: check it, or start the sign-in again if it expired.' });
    return approved
      ? this.page(200, 'Device signed in', 'You can close this page and return to your application: it finishes signing in by itself.')
      : this.page(200, 'Sign-in denied', 'The application was not given access. You can close this page.');
  }

  private register(body: Record<string, unknown>): Reply {
    if (!this.dynamicRegistration) {
      throw new OAuthError(
        'access_denied',
        'This engine does not let applications register themselves: ask for a client id (the engine’s --oauth-client).',
        403,
      );
    }
    const redirectUris = body.redirect_uris;
    if (!Array.isArray(redirectUris) || !redirectUris.every((uri): uri is string => typeof uri === 'string')) {
      throw new OAuthError('invalid_redirect_uri', 'redirect_uris must be an array of URIs.');
    }
    const method = body.token_endpoint_auth_method;
    if (method !== undefined && method !== 'none') {
      throw new OAuthError('invalid_client_metadata', 'Only public clients can register (token_endpoint_auth_method "none"): use PKCE instead of a secret.');
    }
    const client = this.clients.register(typeof body.client_name === 'string' ? body.client_name : '', redirectUris);
    const registered: WireRegisteredClient = {
      client_id: client.id,
      client_id_issued_at: Math.floor(this.now() / 1000),
      client_name: client.name,
      redirect_uris: [...client.redirectUris],
      grant_types: [GRANT_TYPES.authorizationCode, GRANT_TYPES.refreshToken, GRANT_TYPES.deviceCode],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: client.scopes.join(' '),
    };
    return jsonReply(201, registered);
  }

  private userinfo(authorization: string | undefined): Reply {
    const token = /^\s*bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    const verdict = token ? this.tokens.verifyAccess(token) : undefined;
    const account = verdict?.kind === 'valid' ? this.accounts.find((each) => each.id === verdict.grant.userId) : undefined;
    if (!account) {
      throw new HttpError(401, 'userinfo needs a valid OAuth access token: "Authorization: Bearer <token>".', {
        'WWW-Authenticate': 'Bearer error="invalid_token"',
      });
    }
    const info: WireUserInfo = { sub: String(account.id), preferred_username: account.name, name: account.name };
    return jsonReply(200, info);
  }

  /** The account a form picked (the engine has no browser session); the first one by default. */
  private accountOf(picked: string | null): Account {
    const account = this.accounts.find((each) => String(each.id) === picked) ?? this.accounts[0];
    if (!account) throw new HttpError(500, 'The engine has no user to sign in as.');
    return account;
  }

  private page(status: number, title: string, message: string): Reply {
    const nonce = randomBytes(16).toString('base64');
    return { status, body: outcomePage(nonce, title, message), contentType: 'text/html; charset=utf-8', headers: pageHeaders(nonce) };
  }
}

/**
 * The scopes granted of those asked: the client's allowed ones (a client registered by itself asking
 * for `user:all` gets `mcp`, as on instances). No scope asked: all the client may have.
 */
function grantedScopes(client: OAuthClient, asked: string | undefined): string[] {
  const wanted = (asked ?? '').split(' ').filter(Boolean);
  if (wanted.length === 0) return [...client.scopes];
  const granted = wanted.filter((scope) => client.scopes.includes(scope));
  if (client.dynamic && wanted.some((scope) => scope === TOKEN_SCOPES.all || scope.startsWith('externalapi:')) && !granted.includes(TOKEN_SCOPES.mcp)) {
    granted.push(TOKEN_SCOPES.mcp);
  }
  return [...new Set(granted)];
}

/** A page's headers: its CSP, no framing, and no referrer to other sites (the URL may carry a user code). */
function pageHeaders(nonce: string): Record<string, string> {
  // Not no-referrer: a browser then posts the page's form with `Origin: null`, which the CSRF check
  // refuses. same-origin keeps the referrer from everyone else.
  return { 'Content-Security-Policy': signInPageCsp(nonce), 'Referrer-Policy': 'same-origin', 'X-Frame-Options': 'DENY' };
}

/** A 302 to the client's redirect URI with the parameters added to its query. */
function redirect(uri: string, parameters: Record<string, string | undefined>): Reply {
  const target = new URL(uri);
  for (const [name, value] of Object.entries(parameters)) if (value !== undefined) target.searchParams.set(name, value);
  return {
    status: 302,
    body: 'Redirecting to the application…',
    contentType: 'text/plain; charset=utf-8',
    headers: { Location: target.toString(), 'Referrer-Policy': 'no-referrer' },
  };
}

/** The token endpoint's errors as RFC 6749 §5.2 bodies. */
async function oauthReply(run: () => Promise<Reply> | Reply, status?: number): Promise<Reply> {
  try {
    const reply = await run();
    return status !== undefined ? { ...reply, status } : reply;
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    const body: WireOAuthError = { error: error.code, error_description: error.message };
    return { ...jsonReply(error.status, body), ...(error.status === 401 ? { headers: { 'WWW-Authenticate': 'Basic realm="Deep Search local engine"' } } : {}) };
  }
}

/** A form body (`application/x-www-form-urlencoded`); a parameter given twice is refused (RFC 6749 §3.1). */
async function readForm(request: IncomingMessage): Promise<URLSearchParams> {
  const type = request.headers['content-type'] ?? '';
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) {
    throw new OAuthError('invalid_request', 'Send the parameters as a form: Content-Type: application/x-www-form-urlencoded.');
  }
  const form = new URLSearchParams(await readBody(request));
  for (const name of new Set(form.keys())) {
    if (form.getAll(name).length > 1) throw new OAuthError('invalid_request', `The parameter ${echo(name)} is given more than once.`);
    if ((form.get(name) ?? '').length > MAX_PARAMETER_LENGTH) throw new OAuthError('invalid_request', `The parameter ${echo(name)} is too long.`);
  }
  return form;
}

/** A form posted by a page (or to revoke): its faults are 400s with the reason. */
async function readPageForm(request: IncomingMessage): Promise<URLSearchParams> {
  try {
    return await readForm(request);
  } catch (error) {
    throw error instanceof OAuthError ? new HttpError(400, error.message) : error;
  }
}

/** The token endpoint takes its parameters in the body only (never the URL, where logs keep them). */
function readFormOf(query: URLSearchParams, request: IncomingMessage): Promise<URLSearchParams> {
  if ([...query.keys()].length > 0) return Promise.reject(new OAuthError('invalid_request', 'Send the token request’s parameters in the body, not the URL.'));
  return readForm(request);
}

function single(query: URLSearchParams, name: string): string | undefined {
  const values = query.getAll(name);
  return values.length === 1 && (values[0] ?? '').length <= MAX_PARAMETER_LENGTH ? values[0] : undefined;
}

function required(form: URLSearchParams, name: string): string {
  const value = form.get(name);
  if (!value) throw new OAuthError('invalid_request', `The parameter ${name} is missing.`);
  return value;
}

/** A form's action relative to its page (its last path segment), so it also works behind a path proxy. */
function relativeAction(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * A form posted from another site (CSRF) is refused: browsers send Origin with every POST. A page
 * reached through a path proxy (code-server's `/proxy/<port>/`, which opens the engine's pages for
 * VS Code in a browser) posts with the proxy's Origin; the browser then attests with
 * `Sec-Fetch-Site: same-origin` (a header no page can set) that the form came from the page it posts to.
 */
function checkSameOrigin(request: IncomingMessage, url: string): void {
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== new URL(url).origin && request.headers['sec-fetch-site'] !== 'same-origin') {
    throw new HttpError(403, `A sign-in form posted from ${echo(origin)} is refused: approve sign-ins on the engine’s own page.`);
  }
}
