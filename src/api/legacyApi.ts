/**
 * The legacy conversation API (`/.api/deepsearch/v1`, Sourcegraph 6.7 on): JSON over REST. 7.x
 * instances still serve it, and read tokens (share links) exist in it only.
 */
import * as l10n from '@vscode/l10n';
import type { WireCreateRequest, WireFollowupRequest } from '../contract/legacyWire';
import type { Conversation, ConversationPage, ListOptions } from '../model/conversation';
import type { ConversationApi } from './conversationApi';
import { DeepSearchError, notJsonError } from './errors';
import type { HttpMethod, HttpTransport } from './http';
import { apiUrl } from './instance';
import { normalizeConversation, normalizeConversationPage, normalizeFollowupResponse, type FollowupResponse } from './normalize';

export class LegacyConversationApi implements ConversationApi {
  readonly generation = 'legacy';

  constructor(
    private readonly instanceUrl: string,
    private readonly headers: Readonly<Record<string, string>>,
    private readonly transport: HttpTransport,
  ) {}

  async createConversation(question: string, signal?: AbortSignal): Promise<Conversation> {
    const body: WireCreateRequest = { question };
    return normalizeConversation(await this.call('POST', [], { body, signal }));
  }

  async getConversation(id: number, signal?: AbortSignal): Promise<Conversation> {
    return normalizeConversation(await this.call('GET', [id], { signal }));
  }

  async listConversations(options: ListOptions, signal?: AbortSignal): Promise<ConversationPage> {
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

  async postFollowup(conversationId: number, question: string, signal?: AbortSignal): Promise<FollowupResponse> {
    const body: WireFollowupRequest = { conversation_id: conversationId, question };
    return normalizeFollowupResponse(await this.call('POST', [conversationId, 'questions'], { body, signal }), conversationId);
  }

  async cancel(conversationId: number, questionId: number, signal?: AbortSignal): Promise<void> {
    await this.call('POST', [conversationId, 'questions', questionId, 'cancel'], { signal, expectBody: false });
  }

  async deleteConversation(id: number, signal?: AbortSignal): Promise<void> {
    await this.call('DELETE', [id], { signal, expectBody: false });
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
