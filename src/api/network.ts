/**
 * Everything that talks to an instance (undici, the HTTP client, the tool client), bundled on its
 * own as `dist/network.js` and loaded on the first connection, not at activation; the MCP SDK the
 * tool client drives is `dist/mcp.js`, loaded on the first tool call. The code that activates may
 * import only this module for its values (with `import()`); elsewhere it imports types.
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
