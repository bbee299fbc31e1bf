/**
 * The Deep Search conversation API client. No `vscode`, no Node: the extension feeds it an
 * instance URL, a token and a transport (undici on Node, fetch on the web), and gets domain objects
 * back, whichever API the instance speaks: the 7.x API (`/api/deepsearch.v1.Service`, preferred where it exists) or the legacy one
 * (`/.api/deepsearch/v1`, 6.7 on, and still what read tokens and share links need). Which one an
 * instance has is found once, with one cheap call, and remembered for that instance.
 */
import * as l10n from '@vscode/l10n';
import { name as packageName, version as packageVersion } from '../../package.json';
import { DeepSearchError, isDeepSearchError, notJsonError } from './errors';
import { HttpTransport, type HttpMethod, type RetryPolicy, type RetryTimers } from './http';
import { apiUrl, normalizeInstanceUrl } from './instance';
import { ConnectConversationApi } from './connectApi';
import { withQuestion, type Conversation, type ConversationPage, type ListOptions } from '../model/conversation';
import { normalizeConversation, normalizeConversationPage, normalizeFollowupResponse, type FollowupResponse } from './normalize';
import type { WireCreateRequest, WireFollowupRequest } from '../contract/legacyWire';
import type { Transport } from './transport';
import { createFetchTransport } from './fetchTransport';
import { accessTokenCredential, type Credential } from './credential';

export interface DeepSearchClientOptions {
  /** e.g. `https://sourcegraph.example.com` or `https://example.com/sourcegraph`. */
  instanceUrl: string;
  /** An access token; or give `credential`. */
  token?: string;
  /** `token` for access tokens (default), `bearer` for OAuth access tokens. */
  tokenType?: 'token' | 'bearer';
  /** What requests are authorized with, when it is not a fixed token (an OAuth sign-in that renews). */
  credential?: Credential;
  /** What carries the requests (transport.ts); the platform's `fetch` when absent. */
  transport?: Transport;
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

/** Safety stop for `listAllConversations` against a server whose cursor never ends. */
const MAX_PAGES = 1000;

/** Which conversation API each instance serves, as found by a client of this process. */
export type ConversationApiGeneration = 'connect' | 'legacy';
/**
 * How long what was found stays true: an instance upgraded (or one that dropped the legacy API)
 * while VS Code runs is noticed within this time, at the cost of one small call.
 */
export const GENERATION_TTL_MS = 10 * 60_000;
const knownGenerations = new Map<string, { generation: ConversationApiGeneration; until: number }>();

/** Largest generated file read (an instance keeps them at 10 MiB by default). */
export const MAX_GENERATED_FILE_CHARACTERS = 10 * 1024 * 1024;

export class DeepSearchClient {
  /** Canonical instance URL (no trailing slash; a path prefix kept). */
  readonly instanceUrl: string;
  private readonly headers: Record<string, string>;
  private readonly transport: HttpTransport;
  private readonly connect: ConnectConversationApi;
  private detecting: Promise<ConversationApiGeneration> | undefined;
  private readonly pinned: ConversationApiGeneration | undefined;
  /** Until when this client's token is known to be refused by the 7.x API (so the legacy one is used). */
  private refusedUntil = 0;
  private readonly now: () => number;

  constructor(options: DeepSearchClientOptions) {
    this.instanceUrl = normalizeInstanceUrl(options.instanceUrl);
    const credential = options.credential ?? accessTokenCredential(options.token, options.tokenType);
    this.headers = {
      'x-requested-with': `${options.clientName ?? packageName} ${options.clientVersion ?? packageVersion}`,
      accept: 'application/json',
    };
    this.transport = new HttpTransport({
      transport: options.transport ?? createFetchTransport(),
      timeoutMs: options.timeoutMs,
      retry: options.retry,
      timers: options.timers,
      credential,
    });
    this.connect = new ConnectConversationApi(this.instanceUrl, this.headers, this.transport);
    this.pinned = options.conversationApi === 'legacy' ? 'legacy' : undefined;
    this.now = options.timers?.now ?? Date.now;
  }

  /**
   * The API this client speaks to the instance: the 7.x one where it is served, else the legacy
   * one. Found with one call, then remembered for the instance for GENERATION_TTL_MS; a token the
   * new API refused is remembered as long, by this client only (another token may be allowed it).
   */
  async generation(): Promise<ConversationApiGeneration> {
    if (this.pinned) return this.pinned;
    const now = this.now();
    const known = knownGenerations.get(this.instanceUrl);
    if (known && known.until > now) return known.generation;
    if (this.refusedUntil > now) return 'legacy';
    // Shared by every call waiting for it, so not cancelled with the first one (its own timeout bounds it).
    this.detecting ??= this.connect.probe().then(
      (probe) => {
        this.detecting = undefined;
        const found: ConversationApiGeneration = probe === 'served' ? 'connect' : 'legacy';
        const until = this.now() + GENERATION_TTL_MS;
        if (probe === 'refused') this.refusedUntil = until;
        else knownGenerations.set(this.instanceUrl, { generation: found, until });
        return found;
      },
      (error: unknown) => {
        this.detecting = undefined;
        throw error;
      },
    );
    return this.detecting;
  }

  /** Forgets what was found about every instance (for tests of detection). */
  static forgetGenerations(): void {
    knownGenerations.clear();
  }

  /** Asks a question; the conversation comes back at once with the question `processing`. */
  async createConversation(question: string, signal?: AbortSignal): Promise<Conversation> {
    if ((await this.generation()) === 'connect') return this.connect.createConversation(question, signal);
    const body: WireCreateRequest = { question };
    return normalizeConversation(await this.call('POST', [], { body, signal }));
  }

  async getConversation(id: number, signal?: AbortSignal): Promise<Conversation> {
    if ((await this.generation()) === 'connect') return this.connect.getConversation(id, signal);
    return normalizeConversation(await this.call('GET', [id], { signal }));
  }

  async listConversations(options: ListOptions = {}, signal?: AbortSignal): Promise<ConversationPage> {
    // Read tokens exist in the legacy API only.
    if (options.filterReadToken === undefined && (await this.generation()) === 'connect') return this.connect.listConversations(options, signal);
    if (options.contentQuery) {
      throw new DeepSearchError('unsupported', l10n.t('This instance cannot search the text of conversations: that needs Sourcegraph 7.0 or later.'));
    }
    const query = {
      filter_id: options.filterId,
      filter_user_id: options.filterUserId,
      filter_read_token: options.filterReadToken,
      filter_is_starred: options.filterIsStarred,
      page_first: options.pageFirst,
      page_after: options.pageAfter,
      sort: options.sort,
    };
    return normalizeConversationPage(await this.call('GET', [], { query, signal }), options.pageFirst);
  }

  /** Every conversation matching `options`, following cursors page by page. */
  async listAllConversations(options: ListOptions = {}, signal?: AbortSignal): Promise<Conversation[]> {
    const all: Conversation[] = [];
    const seenCursors = new Set<string>();
    let pageAfter = options.pageAfter;
    for (let pages = 0; pages < MAX_PAGES; pages++) {
      const page = await this.listConversations({ ...options, pageAfter }, signal);
      all.push(...page.conversations);
      if (!page.nextCursor || page.conversations.length === 0 || seenCursors.has(page.nextCursor)) {
        break;
      }
      seenCursors.add(page.nextCursor);
      pageAfter = page.nextCursor;
    }
    return all;
  }

  /**
   * Adds a follow-up question and returns the whole conversation. Servers that answer only the
   * new Question cost one extra GET; the new question is appended if that GET does not show it yet.
   */
  /**
   * Sends a follow-up and returns what the server answered (the Question alone or the whole
   * Conversation). Once this resolves the question exists: callers must not send it again.
   */
  async postFollowup(conversationId: number, question: string, signal?: AbortSignal): Promise<FollowupResponse> {
    if ((await this.generation()) === 'connect') return this.connect.postFollowup(conversationId, question, signal);
    const body: WireFollowupRequest = { conversation_id: conversationId, question };
    return normalizeFollowupResponse(await this.call('POST', [conversationId, 'questions'], { body, signal }), conversationId);
  }

  /** Asks to stop a processing question (any 2xx is success); the state to show comes from a later fetch. */
  async postCancel(conversationId: number, questionId: number, signal?: AbortSignal): Promise<void> {
    if ((await this.generation()) === 'connect') return this.connect.cancel(conversationId, signal);
    await this.call('POST', [conversationId, 'questions', questionId, 'cancel'], { signal, expectBody: false });
  }

  /** `postFollowup`, then the whole conversation (fetched again when the server answered the Question alone). */
  async addFollowup(conversationId: number, question: string, signal?: AbortSignal): Promise<Conversation> {
    const answer = await this.postFollowup(conversationId, question, signal);
    if (answer.kind === 'conversation') {
      return answer.conversation;
    }
    return withQuestion(await this.getConversation(conversationId, signal), conversationId, answer.question);
  }

  /** Cancels a processing question; any 2xx is success, and the refreshed conversation is returned. */
  async cancelQuestion(conversationId: number, questionId: number, signal?: AbortSignal): Promise<Conversation> {
    await this.postCancel(conversationId, questionId, signal);
    return this.getConversation(conversationId, signal);
  }

  /** Any 2xx (200 with a body, 204 without) is success. */
  async deleteConversation(id: number, signal?: AbortSignal): Promise<void> {
    if ((await this.generation()) === 'connect') return this.connect.deleteConversation(id, signal);
    await this.call('DELETE', [id], { signal, expectBody: false });
  }

  /**
   * The conversation as the legacy API has it, with its read token: share links exist only there,
   * also on 7.x servers. A server without the legacy API cannot give one.
   */
  async getShareableConversation(id: number, signal?: AbortSignal): Promise<Conversation> {
    try {
      return normalizeConversation(await this.call('GET', [id], { signal }));
    } catch (error) {
      if (isDeepSearchError(error) && error.kind === 'notFound' && (await this.generation()) === 'connect') {
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

  /** Opens a (possibly someone else's) conversation through its read token. */
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

  /** One API call: JSON in, parsed JSON out (or undefined when `expectBody` is false). */
  private async call(
    method: HttpMethod,
    segments: ReadonlyArray<string | number>,
    options: {
      body?: object;
      query?: Record<string, string | number | boolean | undefined>;
      signal?: AbortSignal;
      expectBody?: boolean;
    },
  ): Promise<unknown> {
    const headers = { ...this.headers };
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const response = await this.transport.send({
      method,
      url: apiUrl(this.instanceUrl, segments, options.query),
      headers,
      body,
      signal: options.signal,
    });
    if (options.expectBody === false) {
      return undefined;
    }
    try {
      return JSON.parse(response.body);
    } catch {
      throw notJsonError(response.status, response.headers['content-type']);
    }
  }
}
