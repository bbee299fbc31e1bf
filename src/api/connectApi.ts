/**
 * The conversation API of 7.x servers (`/api/deepsearch.v1.Service/<Method>`): Connect's unary
 * protocol over JSON, every call a POST. Reads (get, list) are retried like GETs; writes never.
 */
import {
  CONNECT_SERVICE_PATH,
  conversationName,
  SELF_PARENT,
  type ConnectAddQuestionRequest,
  type ConnectCreateRequest,
  type ConnectListFilter,
  type ConnectListRequest,
  type ConnectMethod,
  type ConnectNameRequest,
} from '../contract/connectWire';
import { isDeepSearchError, notJsonError } from './errors';
import type { HttpTransport } from './http';
import type { Conversation, ConversationPage, ListOptions } from '../model/conversation';
import { normalizeConnectConversation, normalizeConnectQuestion, normalizeConnectSummaryPage } from './normalizeConnect';
import type { FollowupResponse } from './normalize';
import type { ConversationApi } from './conversationApi';

/** What an instance's answer to the cheapest call of this API says about it. */
export type ConnectProbe = 'served' | 'absent' | 'refused';

export class ConnectConversationApi implements ConversationApi {
  readonly generation = 'connect';

  constructor(
    private readonly instanceUrl: string,
    private readonly headers: Readonly<Record<string, string>>,
    private readonly transport: HttpTransport,
  ) {}

  /**
   * Whether the instance serves this API: `absent` when the listing itself is not found (a 6.x
   * server; a server of this API always has the caller's list), `refused` when the token may not
   * use it (401, 403: the legacy API may still work with it).
   */
  async probe(signal?: AbortSignal): Promise<ConnectProbe> {
    try {
      await this.call('ListConversationSummaries', { parent: SELF_PARENT, pageSize: 1 } satisfies ConnectListRequest, { signal, read: true });
      return 'served';
    } catch (error) {
      if (!isDeepSearchError(error)) throw error;
      if (error.status === 404 || error.status === 405 || error.status === 501) return 'absent';
      if (error.status === 401 || error.status === 403) return 'refused';
      throw error;
    }
  }

  async createConversation(question: string, signal?: AbortSignal): Promise<Conversation> {
    const body: ConnectCreateRequest = { parent: SELF_PARENT, conversation: { questions: [{ input: [{ question: { text: question } }] }] } };
    return normalizeConnectConversation(await this.call('CreateConversation', body, { signal }));
  }

  async getConversation(id: number, signal?: AbortSignal): Promise<Conversation> {
    const body: ConnectNameRequest = { name: conversationName(id) };
    return normalizeConnectConversation(await this.call('GetConversation', body, { signal, read: true }));
  }

  async listConversations(options: ListOptions, signal?: AbortSignal): Promise<ConversationPage> {
    const filters: ConnectListFilter[] = [];
    if (options.filterIsStarred !== undefined) filters.push({ starred: options.filterIsStarred });
    if (options.contentQuery) filters.push({ contentQuery: options.contentQuery });
    const body: ConnectListRequest = { parent: SELF_PARENT };
    if (options.pageFirst !== undefined) body.pageSize = options.pageFirst;
    if (options.pageAfter) body.pageToken = options.pageAfter;
    if (filters.length > 0) body.filters = filters;
    return normalizeConnectSummaryPage(await this.call('ListConversationSummaries', body, { signal, read: true }));
  }

  /**
   * Adds a question. The answer is the Question alone, without its position: the conversation is
   * fetched to place it; if that fetch fails, the question comes back alone (id 0) and the next
   * poll places it. Once this resolves the question exists: callers must not send it again.
   */
  async postFollowup(conversationId: number, question: string, signal?: AbortSignal): Promise<FollowupResponse> {
    const body: ConnectAddQuestionRequest = { parent: conversationName(conversationId), question: { input: [{ question: { text: question } }] } };
    const added = await this.call('AddConversationQuestion', body, { signal });
    try {
      return { kind: 'conversation', conversation: await this.getConversation(conversationId, signal) };
    } catch {
      return { kind: 'question', question: normalizeConnectQuestion(added, conversationId, 0) };
    }
  }

  /** Cancels the conversation's running question (the API cancels per conversation, so the question's id is not sent). */
  async cancel(conversationId: number, _questionId: number, signal?: AbortSignal): Promise<void> {
    const body: ConnectNameRequest = { name: conversationName(conversationId) };
    await this.call('CancelConversation', body, { signal });
  }

  async deleteConversation(id: number, signal?: AbortSignal): Promise<void> {
    const body: ConnectNameRequest = { name: conversationName(id) };
    await this.call('DeleteConversation', body, { signal });
  }

  private async call(method: ConnectMethod, body: object, options: { signal?: AbortSignal; read?: boolean }): Promise<unknown> {
    const response = await this.transport.send({
      method: 'POST',
      url: new URL(`${this.instanceUrl}${CONNECT_SERVICE_PATH}/${method}`),
      headers: { ...this.headers, 'content-type': 'application/json', 'connect-protocol-version': '1' },
      body: JSON.stringify(body),
      signal: options.signal,
      idempotent: options.read === true,
    });
    try {
      return JSON.parse(response.body) as unknown;
    } catch {
      throw notJsonError(response.status, response.headers['content-type']);
    }
  }
}
