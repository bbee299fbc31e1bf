/**
 * Calls only tests make, built from the client's own: whole lists followed page by page, and a
 * follow-up or cancel answered with the whole conversation (the store does both its own way).
 */
import type { DeepSearchClient } from '../../src/api/client';
import { withQuestion, type Conversation, type ListOptions } from '../../src/model/conversation';

/** Safety stop against a server whose cursor never ends. */
const MAX_PAGES = 1000;

/** Every conversation matching `options`, following cursors page by page. */
export async function listAllConversations(client: DeepSearchClient, options: ListOptions = {}): Promise<Conversation[]> {
  const all: Conversation[] = [];
  const seenCursors = new Set<string>();
  let pageAfter = options.pageAfter;
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const page = await client.listConversations({ ...options, pageAfter });
    all.push(...page.conversations);
    if (!page.nextCursor || page.conversations.length === 0 || seenCursors.has(page.nextCursor)) break;
    seenCursors.add(page.nextCursor);
    pageAfter = page.nextCursor;
  }
  return all;
}

/** `postFollowup`, then the whole conversation (fetched again when the server answered the Question alone). */
export async function addFollowup(client: DeepSearchClient, conversationId: number, question: string): Promise<Conversation> {
  const answer = await client.postFollowup(conversationId, question);
  if (answer.kind === 'conversation') return answer.conversation;
  return withQuestion(await client.getConversation(conversationId), conversationId, answer.question);
}

/** Cancels a processing question, then fetches the conversation the instance now has. */
export async function cancelQuestion(client: DeepSearchClient, conversationId: number, questionId: number): Promise<Conversation> {
  await client.postCancel(conversationId, questionId);
  return client.getConversation(conversationId);
}
