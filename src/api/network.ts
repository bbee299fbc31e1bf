/**
 * Everything that talks to an instance (undici, the HTTP client, the MCP SDK), bundled on its own
 * as `dist/network.js` and loaded on the first connection, not at activation. Only this module may
 * be imported for its values from the code that activates; elsewhere import types.
 */
import type { Dispatcher } from 'undici';
import { DeepSearchClient } from './client';
import { createDispatcher, type DispatcherOptions } from './http';
import { CodeTools } from './tools/codeTools';
import { ToolClient } from './tools/toolClient';

export interface InstanceConnection {
  client: DeepSearchClient;
  tools: CodeTools;
  /** Closed by whoever replaces the connection. */
  dispatcher: Dispatcher;
}

/** One dispatcher for both interfaces of an instance, so proxy and certificates apply to both. */
export function connectToInstance(instanceUrl: string, token: string, network: DispatcherOptions): InstanceConnection {
  const dispatcher = createDispatcher(network);
  return {
    client: new DeepSearchClient({ instanceUrl, token, dispatcher }),
    tools: new CodeTools(new ToolClient({ instanceUrl, token, dispatcher })),
    dispatcher,
  };
}
