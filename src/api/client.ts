/**
 * The Deep Search conversation API client. No `vscode`, no Node: the extension feeds it an
 * instance URL, a token and a transport (undici on Node, fetch on the web), and gets domain objects
 * back, whichever API the instance speaks: the 7.x API (`/api/deepsearch.v1.Service`, preferred where it exists) or the legacy one
 * (`/.api/deepsearch/v1`, 6.7 on, and still what read tokens and share links need). Which one an
 * instance has is found once, with one cheap call, and remembered for that instance.
 */
import * as l10n from '@vscode/l10n';
import { name as packageName, version as packageVersion } from '../../package.json';
import { DeepSearchError, isDeepSearchError } from './errors';
import { HttpTransport, type RetryPolicy, type RetryTimers } from './http';
import { parseInstanceUrl, type InstanceUrl } from './instance';
import { ConnectConversationApi } from './connectApi';
import { LegacyConversationApi } from './legacyApi';
import type { ConversationApi, ConversationApiGeneration } from './conversationApi';
import { credentialOf, type ConnectionOptions } from './connectionOptions';
import { GENERATION_TTL_MS, ServerMemory } from './serverMemory';
import type { Conversation, ConversationPage, ListOptions } from '../model/conversation';
import type { FollowupResponse } from './normalize';
import { createFetchTransport } from './fetchTransport';

export type { ConversationApiGeneration } from './conversationApi';

export interface DeepSearchClientOptions extends ConnectionOptions {
  /** Per request attempt. Default 30 s. */
  timeoutMs?: number;
  /** Sent as `X-Requested-With: <name> <version>`; defaults to this extension's package. */
  clientName?: string;
  clientVersion?: string;
  retry?: Partial<RetryPolicy>;
  timers?: Partial<RetryTimers>;
  /**
   * `detect` (default): the 7.x API where the instance has it, else the legacy one. `legacy`: the
   * legacy API only, without asking (a server known to be 6.x; tests of that API's wire).
   */
  conversationApi?: 'detect' | 'legacy';
}

/** Largest generated file read (an instance keeps them at 10 MiB by default). */
export const MAX_GENERATED_FILE_CHARACTERS = 10 * 1024 * 1024;

export class DeepSearchClient {
  /** Canonical instance URL (no trailing slash; a path prefix kept). */
  readonly instanceUrl: InstanceUrl;
  private readonly headers: Record<string, string>;
  private readonly transport: HttpTransport;
  private readonly legacy: LegacyConversationApi;
  private readonly connect: ConnectConversationApi;
  /** The API picked, and until when it holds (the legacy one for good when pinned). */
  private picked: { api: ConversationApi; until: number } | undefined;
  private picking: Promise<ConversationApi> | undefined;
  private readonly memory: ServerMemory;
  private readonly now: () => number;

  constructor(options: DeepSearchClientOptions) {
    this.instanceUrl = parseInstanceUrl(options.instanceUrl);
    this.headers = {
      'x-requested-with': `${options.clientName ?? packageName} ${options.clientVersion ?? packageVersion}`,
      accept: 'application/json',
    };
    this.transport = new HttpTransport({
      transport: options.transport ?? createFetchTransport(),
      timeoutMs: options.timeoutMs,
      retry: options.retry,
      timers: options.timers,
      credential: credentialOf(options),
    });
    this.legacy = new LegacyConversationApi(this.instanceUrl, this.headers, this.transport);
    this.connect = new ConnectConversationApi(this.instanceUrl, this.headers, this.transport);
    if (options.conversationApi === 'legacy') this.picked = { api: this.legacy, until: Infinity };
    this.memory = options.memory ?? new ServerMemory();
    this.now = options.timers?.now ?? Date.now;
  }

  /** The API this client speaks to the instance (see `api`). */
  async generation(): Promise<ConversationApiGeneration> {
    return (await this.api()).generation;
  }

  /**
   * The 7.x API where the instance serves it, else the legacy one. Found with one call, then held
   * for GENERATION_TTL_MS and remembered for the instance in the server memory; a token the new API
   * refused is held as long, by this client only (another token may be allowed it).
   */
  private async api(): Promise<ConversationApi> {
    const now = this.now();
    if (this.picked && this.picked.until > now) return this.picked.api;
    const known = this.memory.generation(this.instanceUrl, now);
    if (known) return this.hold(known.generation, known.until);
    // Shared by every call waiting for it, so not cancelled with the first one (its own timeout bounds it).
    this.picking ??= this.connect.probe().then(
      (probe) => {
        this.picking = undefined;
        const until = this.now() + GENERATION_TTL_MS;
        const found: ConversationApiGeneration = probe === 'served' ? 'connect' : 'legacy';
        if (probe !== 'refused') this.memory.rememberGeneration(this.instanceUrl, found, until);
        return this.hold(found, until);
      },
      (error: unknown) => {
        this.picking = undefined;
        throw error;
      },
    );
    return this.picking;
  }

  private hold(generation: ConversationApiGeneration, until: number): ConversationApi {
    const api = generation === 'connect' ? this.connect : this.legacy;
    this.picked = { api, until };
    return api;
  }

  /** Asks a question; the conversation comes back at once with the question `processing`. */
  async createConversation(question: string, signal?: AbortSignal): Promise<Conversation> {
    return (await this.api()).createConversation(question, signal);
  }

  async getConversation(id: number, signal?: AbortSignal): Promise<Conversation> {
    return (await this.api()).getConversation(id, signal);
  }

  async listConversations(options: ListOptions = {}, signal?: AbortSignal): Promise<ConversationPage> {
    // Read tokens exist in the legacy API only.
    const api = options.filterReadToken === undefined ? await this.api() : this.legacy;
    return api.listConversations(options, signal);
  }

  /**
   * Sends a follow-up and returns what the server answered (the Question alone or the whole
   * Conversation). Once this resolves the question exists: callers must not send it again.
   */
  async postFollowup(conversationId: number, question: string, signal?: AbortSignal): Promise<FollowupResponse> {
    return (await this.api()).postFollowup(conversationId, question, signal);
  }

  /** Asks to stop a processing question (any 2xx is success); the state to show comes from a later fetch. */
  async postCancel(conversationId: number, questionId: number, signal?: AbortSignal): Promise<void> {
    return (await this.api()).cancel(conversationId, questionId, signal);
  }

  /** Any 2xx (200 with a body, 204 without) is success. */
  async deleteConversation(id: number, signal?: AbortSignal): Promise<void> {
    return (await this.api()).deleteConversation(id, signal);
  }

  /**
   * The conversation as the legacy API has it, with its read token: share links exist only there,
   * also on 7.x servers. A server without the legacy API cannot give one.
   */
  async getShareableConversation(id: number, signal?: AbortSignal): Promise<Conversation> {
    try {
      return await this.legacy.getConversation(id, signal);
    } catch (error) {
      if (isDeepSearchError(error) && error.kind === 'notFound' && (await this.api()) === this.connect) {
        throw new DeepSearchError(
          'unsupported',
          l10n.t(
            'No share link for this conversation: this instance keeps read tokens in its older conversation API (/.api/deepsearch/v1), which it does not serve — or the conversation was deleted.',
          ),
          { status: error.status },
        );
      }
      throw error;
    }
  }

  /**
   * A file an answer generated (a CSV table, JSON data, an SVG drawing), read with this client's
   * credentials: only from the instance's own addresses, at most `MAX_GENERATED_FILE_CHARACTERS`.
   */
  async fetchGeneratedFile(href: string, signal?: AbortSignal): Promise<{ text: string; contentType: string }> {
    const relative = href.startsWith('/') && !href.startsWith('//');
    let url: URL;
    try {
      url = new URL(relative ? `${this.instanceUrl}${href}` : href);
    } catch {
      throw new DeepSearchError('badRequest', l10n.t('This link is not an address a file can be read from.'));
    }
    const base = new URL(`${this.instanceUrl}/`);
    if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname) || url.username || url.password) {
      throw new DeepSearchError('badRequest', l10n.t('Only files on the instance are read with your sign-in: open this link in the browser instead.'));
    }
    const response = await this.transport.send({ method: 'GET', url, headers: { ...this.headers, accept: '*/*' }, signal });
    if (response.body.length > MAX_GENERATED_FILE_CHARACTERS) {
      throw new DeepSearchError(
        'invalidResponse',
        l10n.t('The file is larger than {0} MiB: open it in the browser instead.', MAX_GENERATED_FILE_CHARACTERS / 1024 / 1024),
      );
    }
    return { text: response.body, contentType: response.headers['content-type'] ?? '' };
  }

  /** Opens a (possibly someone else's) conversation through its read token. */
  async getConversationByReadToken(readToken: string, signal?: AbortSignal): Promise<Conversation> {
    const page = await this.listConversations({ filterReadToken: readToken }, signal);
    // A server that ignored the filter would answer the user's own list: only an exact match counts,
    // or the single answer of a server that does not send read tokens.
    const conversation =
      page.conversations.find((candidate) => candidate.readToken?.toLowerCase() === readToken.toLowerCase()) ??
      (page.conversations.length === 1 && !page.conversations[0].readToken ? page.conversations[0] : undefined);
    if (!conversation) {
      throw new DeepSearchError(
        'notFound',
        l10n.t('No conversation has this share link — it may have been deleted, or sharing is turned off on the instance.'),
      );
    }
    return conversation;
  }
}
