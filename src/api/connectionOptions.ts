/**
 * What both clients of an instance (conversations, DeepSearchClient; the tool server, ToolClient)
 * are built from: one options type, so a connection hands both the same instance, credential,
 * transport and memory of what the servers speak.
 */
import { accessTokenCredential, type Credential } from './credential';
import type { ServerMemory } from './serverMemory';
import type { Transport } from './transport';

export interface ConnectionOptions {
  /** e.g. `https://sourcegraph.example.com` or `https://example.com/sourcegraph`. */
  instanceUrl: string;
  /** An access token; or give `credential`. */
  token?: string;
  /** `token` for access tokens (default), `bearer` for OAuth access tokens. */
  tokenType?: 'token' | 'bearer';
  /** What requests are authorized with, when it is not a fixed token (an OAuth sign-in that renews). */
  credential?: Credential;
  /** What carries the requests (transport.ts: undici on Node, fetch on the web); the platform's `fetch` when absent. */
  transport?: Transport;
  /** Per request attempt (the tool client: per call). */
  timeoutMs?: number;
  /** What the window learned about the servers (a fresh memory of the client's own when absent). */
  memory?: ServerMemory;
}

/** The credential the options name: `credential`, else the fixed token. */
export function credentialOf(options: ConnectionOptions): Credential {
  return options.credential ?? accessTokenCredential(options.token, options.tokenType);
}
