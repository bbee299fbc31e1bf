/**
 * The OAuth clients the engine knows: public clients an administrator registered (the CLI's
 * `--oauth-client`), and those that registered themselves (RFC 7591), which get the tool server's
 * scope only, as on instances. All are public: no secret, PKCE or the device grant instead.
 */
import { TOKEN_SCOPES } from '../../contract/tokenScopes';
import { OAUTH_SCOPES } from '../../contract/oauthWire';
import { newSecret, OAuthError } from './issuedTokens';

export interface OAuthClient {
  id: string;
  name: string;
  /** Exact redirect URIs; a loopback one matches on any port (RFC 8252 §7.3). */
  redirectUris: readonly string[];
  /** What the client may ask for. */
  scopes: readonly string[];
  /** Registered by itself: gets `mcp` (and identity, refresh) only. */
  dynamic: boolean;
}

/** Every scope an administrator can give a client. */
export const ALL_CLIENT_SCOPES: readonly string[] = [...Object.values(TOKEN_SCOPES), ...Object.values(OAUTH_SCOPES)];
/** What a client that registered itself may ask for. */
export const DYNAMIC_CLIENT_SCOPES: readonly string[] = [TOKEN_SCOPES.mcp, ...Object.values(OAUTH_SCOPES)];

const MAX_DYNAMIC_CLIENTS = 1_000;
const MAX_REDIRECT_URIS = 10;
const MAX_URI_LENGTH = 2_000;

export class OAuthClients {
  private readonly clients = new Map<string, OAuthClient>();

  constructor(registered: ReadonlyArray<Omit<OAuthClient, 'dynamic' | 'name'> & { name?: string }>) {
    for (const client of registered) this.clients.set(client.id, { name: client.id, ...client, dynamic: false });
  }

  get(id: string): OAuthClient | undefined {
    return this.clients.get(id);
  }

  /** A client registering itself; its redirect URIs must be loopback HTTP or a private-use scheme. */
  register(name: string, redirectUris: readonly string[]): OAuthClient {
    if (redirectUris.length === 0 || redirectUris.length > MAX_REDIRECT_URIS) {
      throw new OAuthError('invalid_redirect_uri', `Give between 1 and ${MAX_REDIRECT_URIS} redirect_uris.`);
    }
    for (const uri of redirectUris) {
      if (!isAcceptableRedirect(uri)) {
        throw new OAuthError(
          'invalid_redirect_uri',
          'Each redirect URI must be an absolute http://127.0.0.1 (or localhost) URI or one of an app scheme (such as vscode://), without a fragment.',
        );
      }
    }
    const dynamic = [...this.clients.values()].filter((client) => client.dynamic);
    if (dynamic.length >= MAX_DYNAMIC_CLIENTS) this.clients.delete(dynamic[0]?.id ?? '');
    const client: OAuthClient = {
      id: `dyn_${newSecret(12)}`,
      name: name.slice(0, 100) || 'Unnamed client',
      redirectUris: [...redirectUris],
      scopes: DYNAMIC_CLIENT_SCOPES,
      dynamic: true,
    };
    this.clients.set(client.id, client);
    return client;
  }
}

/** Whether `uri` is one of the client's redirect URIs (a loopback one on any port). */
export function redirectAllowed(client: OAuthClient, uri: string): boolean {
  if (client.redirectUris.includes(uri)) return true;
  const asked = parse(uri);
  if (!asked || !isLoopback(asked)) return false;
  return client.redirectUris.some((registered) => {
    const known = parse(registered);
    return (
      known !== undefined && isLoopback(known) && known.hostname === asked.hostname && known.pathname === asked.pathname && known.protocol === asked.protocol
    );
  });
}

function isAcceptableRedirect(uri: string): boolean {
  const parsed = uri.length <= MAX_URI_LENGTH ? parse(uri) : undefined;
  if (!parsed || parsed.hash !== '') return false;
  if (parsed.protocol === 'http:') return isLoopback(parsed);
  // App schemes (vscode:, cursor:…) and https pages: not javascript:, data: or file:.
  return (
    parsed.protocol === 'https:' ||
    (/^[a-z][a-z0-9+.-]*:$/.test(parsed.protocol) && !['javascript:', 'data:', 'file:', 'blob:', 'about:', 'vbscript:'].includes(parsed.protocol))
  );
}

function isLoopback(url: URL): boolean {
  return url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}

function parse(uri: string): URL | undefined {
  try {
    return new URL(uri);
  } catch {
    return undefined;
  }
}
