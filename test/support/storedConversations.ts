/**
 * Conversations written into an engine's data folder before it starts, as its own store writes them:
 * the engine then serves them over HTTP like any answer it gave. For answers no repository would
 * produce (links of every kind, hostile Markdown) and for large lists.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { zeroStats, type ConversationRecord } from '../../src/engine/conversations/records';

export interface StoredAnswer {
  id: number;
  /** The owner's user id (the engine numbers its users from 1). */
  userId?: number;
  question: string;
  title: string;
  answer: string;
  sources?: ConversationRecord['questions'][number]['sources'];
  followups?: string[];
  /** ISO time of creation and last update. */
  at: string;
}

/** A finished one-question conversation record. */
export function answeredConversation(stored: StoredAnswer): ConversationRecord {
  return {
    id: stored.id,
    user_id: stored.userId ?? 1,
    read_token: randomUUID(),
    created_at: stored.at,
    updated_at: stored.at,
    starred: false,
    questions: [
      {
        id: stored.id,
        conversation_id: stored.id,
        question: stored.question,
        created_at: stored.at,
        updated_at: stored.at,
        status: 'completed',
        title: stored.title,
        answer: stored.answer,
        sources: stored.sources ?? [],
        turns: [],
        stats: zeroStats(),
        suggested_followups: stored.followups ?? [],
      },
    ],
  };
}

/** Writes the records where an engine started on `dataDir` finds them. */
export async function storeConversations(dataDir: string, records: Iterable<ConversationRecord>): Promise<void> {
  const folder = path.join(dataDir, 'conversations');
  await mkdir(folder, { recursive: true });
  for (const record of records) {
    await writeFile(path.join(folder, `${record.id}.json`), JSON.stringify({ version: 1, conversation: record }));
  }
}
