/**
 * What a window learned about the servers it talks to, kept for the clients it builds next: which
 * conversation API each instance serves (for GENERATION_TTL_MS), and which MCP revision each tool
 * endpoint speaks. The session holds one for the extension host's life; a client given none keeps
 * its own, so tests share what they mean to share and nothing else.
 */
import type { ConversationApiGeneration } from './conversationApi';
import type { KnownRevision } from './tools/mcpSession';

/**
 * How long a conversation API's generation found stays true: an instance upgraded (or one that
 * dropped the legacy API) while VS Code runs is noticed within this time, at the cost of one small call.
 */
export const GENERATION_TTL_MS = 10 * 60_000;

export class ServerMemory {
  private readonly generations = new Map<string, { generation: ConversationApiGeneration; until: number }>();
  private readonly revisions = new Map<string, KnownRevision>();

  /** The conversation API the instance was found to serve, if that is still fresh at `now`. */
  generation(instanceUrl: string, now: number): { generation: ConversationApiGeneration; until: number } | undefined {
    const known = this.generations.get(instanceUrl);
    return known && known.until > now ? known : undefined;
  }

  rememberGeneration(instanceUrl: string, generation: ConversationApiGeneration, until: number): void {
    this.generations.set(instanceUrl, { generation, until });
  }

  /** The MCP revision a tool endpoint (its URL) spoke last. */
  revision(endpoint: string): KnownRevision | undefined {
    return this.revisions.get(endpoint);
  }

  /** `undefined`: what was remembered no longer holds (the server changed), the next connection asks again. */
  rememberRevision(endpoint: string, revision: KnownRevision | undefined): void {
    if (revision) this.revisions.set(endpoint, revision);
    else this.revisions.delete(endpoint);
  }
}
