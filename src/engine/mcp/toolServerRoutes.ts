/**
 * The tool servers' door in the engine's route table: who may call them (the caller's token with
 * the `mcp` scope, from this machine or an origin `--cors-origin` allows, with the MCP permission),
 * and, with OAuth on, the protected-resource metadata (RFC 9728) that names the authorization
 * server to MCP clients that sign in by themselves.
 */
import { MCP_ACCESS_PERMISSION, MCP_TOKEN_SCOPE } from '../../contract/toolServers';
import { PROTECTED_RESOURCE_METADATA_PATH } from '../../contract/oauthWire';
import { requireScope, type AuthenticatedUser, type UserDirectory } from '../http/auth';
import type { CorsPolicy } from '../http/cors';
import { echo } from '../http/echo';
import { HttpError, jsonReply } from '../http/http';
import type { Route } from '../http/routeTable';
import type { McpHandler } from './server';

export interface ToolServerDoor {
  /** The engine's URL: its own origin passes the origin check. */
  url: string;
  users: UserDirectory;
  cors: CorsPolicy;
  /** Whether the account holds the MCP permission (a 7.x server can deny it). */
  mcpAccess: 'allowed' | 'denied';
  /** Whether the engine runs its authorization server: then a 401 names the resource metadata. */
  oauth: boolean;
}

/** One tool server (`path`) as a route: the caller checked, then the MCP transport writes the reply itself. */
export function toolServerRoute(path: string, serve: McpHandler, door: ToolServerDoor): Route {
  return {
    name: `the tool server at ${path}`,
    matches: (candidate) => candidate === path,
    handle: async ({ request, response }) => {
      // The same token as the conversation API; no X-Requested-With needed.
      if (!door.cors.allows(request.headers.origin)) checkToolServerOrigin(request.headers.origin, door.url);
      const user = toolServerUser(door.users, request.headers.authorization, door.oauth ? `${door.url}${PROTECTED_RESOURCE_METADATA_PATH}${path}` : undefined);
      requireScope(user, 'mcp');
      if (door.mcpAccess === 'denied') {
        throw new HttpError(
          403,
          `This account lacks the ${MCP_ACCESS_PERMISSION} permission, so the tool server (MCP) refuses it: ask a site administrator to grant it, ` +
            `and use a token with the ${MCP_TOKEN_SCOPE} scope.`,
        );
      }
      await serve(request, response, user);
      return 'sent' as const;
    },
  };
}

/** RFC 9728: what protects each tool server (`/.well-known/oauth-protected-resource/<tool server path>`). */
export function protectedResourceRoute(url: string, toolServerPaths: ReadonlySet<string>): Route {
  const resourceOf = (path: string): string | undefined =>
    path.startsWith(`${PROTECTED_RESOURCE_METADATA_PATH}/`) ? path.slice(PROTECTED_RESOURCE_METADATA_PATH.length) : undefined;
  return {
    name: "the tool servers' protected-resource metadata",
    matches: (path) => toolServerPaths.has(resourceOf(path) ?? ''),
    methods: ['GET'],
    handle: ({ path }) =>
      jsonReply(200, {
        resource: `${url}${resourceOf(path) ?? ''}`,
        authorization_servers: [url],
        scopes_supported: [MCP_TOKEN_SCOPE],
        bearer_methods_supported: ['header'],
      }),
  };
}

/**
 * MCP's Streamable HTTP transport asks servers to check `Origin` (a web page must not reach a local
 * tool server through the user's browser): only the engine's own origin and loopback ones pass
 * (and those `--cors-origin` allows, checked before).
 */
function checkToolServerOrigin(origin: string | undefined, engineUrl: string): void {
  if (origin === undefined) return;
  let parsed: URL | undefined;
  try {
    parsed = new URL(origin);
  } catch {
    parsed = undefined;
  }
  const loopback = parsed !== undefined && /^https?:$/.test(parsed.protocol) && ['127.0.0.1', 'localhost', '[::1]'].includes(parsed.hostname);
  if (parsed?.origin === new URL(engineUrl).origin || loopback) return;
  throw new HttpError(
    403,
    `Requests from the web origin ${echo(origin)} are not accepted: the tool server answers clients on this machine, and the web origins --cors-origin names.`,
  );
}

/**
 * The tool server's user. Its 401 is a Bearer challenge that carries the engine's words; with OAuth
 * on, it also names the protected-resource metadata (RFC 9728), from which MCP clients that sign in
 * by themselves find the authorization server. Without it, they show the message instead of
 * starting a flow the engine does not offer.
 */
function toolServerUser(users: UserDirectory, authorization: string | undefined, resourceMetadata: string | undefined): AuthenticatedUser {
  try {
    return users.authenticate(authorization);
  } catch (error) {
    if (!(error instanceof HttpError) || error.status !== 401) throw error;
    const description = error.message.replace(/["\\]/g, "'");
    const metadata = resourceMetadata ? `, resource_metadata="${resourceMetadata}"` : '';
    throw new HttpError(401, error.message, {
      'WWW-Authenticate': `Bearer realm="Deep Search local engine", error="invalid_token", error_description="${description}"${metadata}`,
    });
  }
}
