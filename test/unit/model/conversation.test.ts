import assert from 'node:assert/strict';
import { withQuestion, type Conversation, type Question } from '../../../src/model/conversation';

describe('withQuestion (a follow-up the server took, merged into its conversation)', () => {
  const question = (id: number, updatedAt: string, text = `question ${id}`): Question =>
    ({ id, text, state: 'processing', createdAt: updatedAt, updatedAt, turns: [], sources: [], suggestedFollowups: [] }) as unknown as Question;
  const conversation = (questions: Question[], updatedAt = '2026-01-01T00:00:00Z'): Conversation => ({
    id: 4,
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt,
    questions,
  });

  it('adds the question at the end and moves the conversation’s time on', () => {
    const merged = withQuestion(conversation([question(1, '2026-01-01T00:00:00Z')]), 4, question(2, '2026-01-02T00:00:00Z'));
    assert.deepEqual(
      merged.questions.map((q) => q.id),
      [1, 2],
    );
    assert.equal(merged.updatedAt, '2026-01-02T00:00:00Z');
  });

  it('replaces an older copy of the same question, and keeps a newer one', () => {
    const older = conversation([question(1, '2026-01-01T00:00:00Z'), question(2, '2026-01-01T00:00:00Z', 'old')]);
    assert.equal(withQuestion(older, 4, question(2, '2026-01-02T00:00:00Z', 'new')).questions[1].text, 'new');
    const newer = conversation([question(2, '2026-01-03T00:00:00Z', 'fetched later')]);
    assert.equal(withQuestion(newer, 4, question(2, '2026-01-02T00:00:00Z', 'as posted')), newer);
  });

  it('makes a conversation of the question alone when there is none yet', () => {
    const made = withQuestion(undefined, 9, question(3, '2026-01-02T00:00:00Z'));
    assert.deepEqual(
      { id: made.id, questions: made.questions.map((q) => q.id), createdAt: made.createdAt },
      { id: 9, questions: [3], createdAt: '2026-01-02T00:00:00Z' },
    );
  });
});
