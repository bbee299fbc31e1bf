/**
 * Everything that talks to an instance (undici, the HTTP client, the tool client), bundled on its
 * own as `dist/network.js` and loaded on the first connection, not at activation; the MCP session
 * the tool client drives (src/api/tools/mcpSession.ts) is `dist/mcp.js`, loaded on the first tool call. The code that activates may
 * import only this module for its values (with `import()`); elsewhere it imports types.
 */
import type { Dispatcher } from 'undici';
import { DeepSearchClient } from './client';
import { accessTokenCredential, type Credential } from './credential';
import { createDispatcher, HttpTransport, type DispatcherOptions } from './http';
import type { ServerMemory } from './serverMemory';
import { CodeTools } from './tools/codeTools';
import { ToolClient } from './tools/toolClient';

export interface InstanceConnection {
  client: DeepSearchClient;
  tools: CodeTools;
  /** Closed by whoever replaces the connection. */
  dispatcher: Dispatcher;
}

/**
 * One dispatcher for both interfaces of an instance, so proxy and certificates apply to both; and
 * one memory of what the servers speak, the window's (a new one when none is given).
 */
export function connectToInstance(instanceUrl: string, auth: string | Credential, network: DispatcherOptions, memory?: ServerMemory): InstanceConnection {
  const dispatcher = createDispatcher(network);
  const credential = typeof auth === 'string' ? accessTokenCredential(auth) : auth;
  const options = { instanceUrl, credential, dispatcher, memory };
  return {
    client: new DeepSearchClient(options),
    tools: new CodeTools(new ToolClient(options)),
    dispatcher,
  };
}

/** OAuth sign-in and renewal (src/api/oauth), for the extension's sign-in and session. */
export { AuthorizationServerClient, OAuthFailure } from './oauth/authorizationServer';
export { TokenSession } from './oauth/tokenSession';
export { LoopbackRedirect } from './oauth/loopbackRedirect';
export { oauthCredential } from './credential';
export { useTranslations } from './translations';

/** A transport for the instance's OAuth endpoints, through the same proxy and certificates. */
export function oauthTransport(network: DispatcherOptions): { transport: HttpTransport; dispatcher: Dispatcher } {
  const dispatcher = createDispatcher(network);
  return { transport: new HttpTransport({ dispatcher, timeoutMs: 30_000 }), dispatcher };
}
