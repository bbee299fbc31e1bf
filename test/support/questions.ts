/** A question as the domain model holds it, answered, for tests that shape one by overriding fields. */
import { emptyStats, type Question } from '../../src/model/conversation';

export function aQuestion(overrides: Partial<Question> = {}): Question {
  return {
    id: 1,
    conversationId: 7,
    text: 'Where is parseConfig defined?',
    createdAt: '2025-01-01T00:00:00Z',
    updatedAt: '2025-01-01T00:00:10Z',
    state: 'completed',
    sources: [],
    turns: [],
    stats: emptyStats(),
    suggestedFollowups: [],
    ...overrides,
  };
}
