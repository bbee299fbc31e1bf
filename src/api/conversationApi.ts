/**
 * One generation of an instance's conversation API as the client speaks it: the legacy REST API
 * (`/.api/deepsearch/v1`, legacyApi.ts) or the 7.x Connect API (connectApi.ts). The client picks
 * one per instance and holds it with its expiry (client.ts); each call then goes to it, unbranched.
 */
import type { Conversation, ConversationPage, ListOptions } from '../model/conversation';
import type { FollowupResponse } from './normalize';

export type ConversationApiGeneration = 'connect' | 'legacy';

export interface ConversationApi {
  readonly generation: ConversationApiGeneration;
  /** Asks a question; the conversation comes back at once with the question `processing`. */
  createConversation(question: string, signal?: AbortSignal): Promise<Conversation>;
  getConversation(id: number, signal?: AbortSignal): Promise<Conversation>;
  listConversations(options: ListOptions, signal?: AbortSignal): Promise<ConversationPage>;
  /**
   * Sends a follow-up and returns what the server answered (the Question alone or the whole
   * Conversation). Once this resolves the question exists: callers must not send it again.
   */
  postFollowup(conversationId: number, question: string, signal?: AbortSignal): Promise<FollowupResponse>;
  /** Asks to stop a processing question (any 2xx is success); the state to show comes from a later fetch. */
  cancel(conversationId: number, questionId: number, signal?: AbortSignal): Promise<void>;
  /** Any 2xx (200 with a body, 204 without) is success. */
  deleteConversation(id: number, signal?: AbortSignal): Promise<void>;
}
