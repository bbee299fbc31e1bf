/**
 * Payloads shaped like the documented samples of the Deep Search API (reference/deepsearch-api.md),
 * as plain JSON the way a server sends them. Each call returns a fresh copy that tests may mutate.
 */

export const HOST = 'https://sourcegraph.example.com';
export const READ_TOKEN = '8f7d3c4e-2b1a-4e5f-9c8d-7a6b5c4d3e2f';

export function processingConversation(): Record<string, unknown> {
  return {
    id: 140,
    questions: [
      {
        id: 163,
        conversation_id: 140,
        question: 'How does the search indexer handle large repositories?',
        created_at: '2025-09-24T10:00:00Z',
        updated_at: '2025-09-24T10:00:00Z',
        status: 'processing',
        turns: [
          {
            reasoning: 'How does the search indexer handle large repositories?',
            timestamp: 1758708000,
            role: 'user',
          },
        ],
        stats: {
          time_millis: 0,
          tool_calls: 0,
          total_input_tokens: 0,
          cached_tokens: 0,
          cache_creation_input_tokens: 0,
          prompt_tokens: 0,
          completion_tokens: 0,
          total_tokens: 0,
          credits: 0,
        },
        suggested_followups: null,
      },
    ],
    created_at: '2025-09-24T10:00:00Z',
    updated_at: '2025-09-24T10:00:00Z',
    user_id: 1,
    read_token: READ_TOKEN,
    share_url: `${HOST}/deepsearch/${READ_TOKEN}`,
  };
}

export function completedConversation(): Record<string, unknown> {
  return {
    id: 140,
    questions: [
      {
        id: 163,
        conversation_id: 140,
        question: 'How does the search indexer handle large repositories?',
        created_at: '2025-09-24T10:00:00Z',
        updated_at: '2025-09-24T10:01:30Z',
        status: 'completed',
        title: 'Search indexer and large repositories',
        answer:
          'The indexer shards large repositories; see [README](' +
          `${HOST}/github.com/org/repo/-/blob/README.md) and ` +
          `[the indexer](${HOST}/github.com/org/repo/-/blob/cmd/indexer/main.go?L10-20).`,
        sources: [{ type: 'Repository', link: '/github.com/org/repo', label: 'github.com/org/repo' }],
        stats: {
          time_millis: 90000,
          tool_calls: 7,
          total_input_tokens: 12000,
          cached_tokens: 3000,
          cache_creation_input_tokens: 1000,
          prompt_tokens: 11000,
          completion_tokens: 900,
          total_tokens: 12900,
          credits: 4,
        },
        suggested_followups: ['How are shards merged?', 'Where is the shard size configured?'],
      },
    ],
    created_at: '2025-09-24T10:00:00Z',
    updated_at: '2025-09-24T10:01:30Z',
    user_id: 1,
    read_token: READ_TOKEN,
    share_url: `${HOST}/deepsearch/${READ_TOKEN}`,
    viewer: { is_owner: true },
    quota_usage: { total_quota: 0, quota_limit: -1, reset_time: '2025-10-01T00:00:00Z' },
  };
}

/** The first question of a sample conversation, to edit in place. */
export function firstQuestion(conversation: Record<string, unknown>): Record<string, unknown> {
  return (conversation.questions as Array<Record<string, unknown>>)[0];
}

export function conversationWithId(id: number): Record<string, unknown> {
  const conversation = completedConversation();
  conversation.id = id;
  firstQuestion(conversation).conversation_id = id;
  firstQuestion(conversation).id = id * 10;
  return conversation;
}
