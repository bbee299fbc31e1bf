import assert from 'node:assert/strict';
import { conversationLabel, MAX_LABEL_LENGTH } from '../../../src/model/conversationLabel';
import type { Conversation, Question } from '../../../src/model/conversation';

describe('conversationLabel', () => {
  const at = '2026-01-01T00:00:00Z';
  const withQuestion = (text: string, title?: string): Conversation => ({
    id: 7,
    createdAt: at,
    updatedAt: at,
    questions: [
      { id: 1, text, title, state: 'processing', createdAt: at, updatedAt: at, turns: [], sources: [], suggestedFollowups: [] } as unknown as Question,
    ],
  });

  it('puts a multi-line question on one line', () => {
    assert.equal(conversationLabel(withQuestion('Explain this:\n\n```ts\nconst a = 1;\n```\n')), 'Explain this: ```ts const a = 1; ```');
  });

  it('cuts a long question with an ellipsis', () => {
    const label = conversationLabel(withQuestion('why '.repeat(100)));
    assert.equal(label.length, MAX_LABEL_LENGTH);
    assert.ok(label.endsWith('…'));
  });

  it('prefers the title, and names the conversation when there is neither title nor text', () => {
    assert.equal(conversationLabel(withQuestion('the text', 'The title')), 'The title');
    assert.equal(conversationLabel(withQuestion('  \n ')), 'Conversation 7');
  });

  it('goes by the first question (by id), whatever order the questions come in, and takes a fallback and a length', () => {
    const question = (id: number, text: string, title?: string) => ({ id, text, title });
    assert.equal(conversationLabel({ id: 3, questions: [question(2, 'b', 'Second'), question(1, 'a', 'First')] }), 'First');
    assert.equal(conversationLabel({ id: 3, questions: [question(1, 'Where is the poller?')] }, { fallback: 'x' }), 'Where is the poller?');
    assert.equal(conversationLabel({ id: 3, questions: [] }, { fallback: 'Untitled' }), 'Untitled');
    assert.equal(conversationLabel({ id: 3, questions: [question(1, 'a'.repeat(60))] }, { maxLength: 41 }), `${'a'.repeat(40)}…`);
  });
});
