/**
 * What talks to an instance, over a transport it is given (transport.ts): the conversation client
 * and the tool client of one connection, and OAuth. Platform-neutral: the Node network bundle
 * (network.ts, dist/network.js) adds undici and the loopback listener; the web bundle sends with
 * fetch (fetchTransport.ts). The editor layer imports this module's types only, and its values
 * through one of those two.
 */
import { DeepSearchClient } from './client';
import { accessTokenCredential, type Credential } from './credential';
import { HttpTransport } from './http';
import type { ServerMemory } from './serverMemory';
import type { Transport } from './transport';
import { CodeTools } from './tools/codeTools';
import { ToolClient } from './tools/toolClient';

export interface InstanceConnection {
  client: DeepSearchClient;
  tools: CodeTools;
  /** Closed by whoever replaces the connection. */
  transport: Transport;
}

/**
 * One transport for both interfaces of an instance, so proxy and certificates (on Node) apply to
 * both; and one memory of what the servers speak, the window's (a new one when none is given).
 */
export function connectToInstance(instanceUrl: string, auth: string | Credential, transport: Transport, memory?: ServerMemory): InstanceConnection {
  const credential = typeof auth === 'string' ? accessTokenCredential(auth) : auth;
  const options = { instanceUrl, credential, transport, memory };
  return {
    client: new DeepSearchClient(options),
    tools: new CodeTools(new ToolClient(options)),
    transport,
  };
}

/** OAuth sign-in and renewal (src/api/oauth), for the extension's sign-in and session. */
export { AuthorizationServerClient, OAuthFailure } from './oauth/authorizationServer';
export { TokenSession } from './oauth/tokenSession';
export { oauthCredential } from './credential';
export { useTranslations } from './translations';

/** The HTTP client for the instance's OAuth endpoints, over the given transport. */
export function oauthHttp(transport: Transport): HttpTransport {
  return new HttpTransport({ transport, timeoutMs: 30_000 });
}
