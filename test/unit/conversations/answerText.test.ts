import assert from 'node:assert/strict';
import {
  absoluteLink,
  answerForAgent,
  boundedAnswer,
  conversationForAgent,
  MAX_ANSWER_CHARACTERS,
  progressLine,
  rewriteLinks,
  unansweredText,
} from '../../../src/conversations/answerText';
import type { Question } from '../../../src/model/conversation';
import { aQuestion } from '../../support/questions';

const INSTANCE = 'https://sourcegraph.example.com';

function question(overrides: Partial<Question> = {}): Question {
  return aQuestion({
    answer: 'In [config.ts](/github.com/acme/app/-/blob/src/config.ts?L17) and [the docs](https://example.org/docs).',
    sources: [
      { type: 'file', link: '/github.com/acme/app/-/blob/src/config.ts', label: 'src/config.ts' },
      { type: 'file', link: '/github.com/acme/app/-/blob/src/config.ts', label: 'src/config.ts again' },
      { type: 'file', link: 'javascript:alert(1)', label: 'refused' },
    ],
    ...overrides,
  });
}

describe('answers outside the panel (chat, agent tools)', () => {
  it('makes the answer’s links absolute on the instance and lists each source once, refused ones left out', () => {
    const text = answerForAgent(question(), INSTANCE);
    assert.match(text, /\[config\.ts\]\(https:\/\/sourcegraph\.example\.com\/github\.com\/acme\/app\/-\/blob\/src\/config\.ts\?L17\)/);
    assert.match(text, /\[the docs\]\(https:\/\/example\.org\/docs\)/);
    assert.match(text, /Sources:\n- \[src\/config\.ts\]\(https:\/\/sourcegraph\.example\.com\/github\.com\/acme\/app\/-\/blob\/src\/config\.ts\)$/);
    assert.doesNotMatch(text, /javascript|again/);
    assert.equal(absoluteLink('javascript:alert(1)', INSTANCE), undefined);
  });

  it('rewrites links through the given function, leaving the rest of the Markdown alone', () => {
    assert.equal(
      rewriteLinks('See [a](x) and [b](y), not (z).', (href) => (href === 'x' ? 'X' : undefined)),
      'See [a](X) and [b](y), not (z).',
    );
  });

  it('cuts a runaway answer with a note', () => {
    const cut = boundedAnswer('a'.repeat(MAX_ANSWER_CHARACTERS + 10));
    assert.ok(cut.length < MAX_ANSWER_CHARACTERS + 200);
    assert.match(cut, /was cut here/);
  });

  it('says why a question was not answered, with when to ask again', () => {
    const now = Date.parse('2026-11-24T00:00:00Z');
    const quota = question({
      state: 'failed',
      answer: undefined,
      error: { kind: 'RateLimitExceeded', title: 'Quota reached', message: 'You have used your Deep Search quota.', retryAt: '2026-11-24T00:12:00Z' },
    });
    assert.equal(
      unansweredText(quota, now),
      'Quota reached. You have used your Deep Search quota. You can ask again in 12 minutes (at 2026-11-24T00:12:00.000Z).',
    );
    const tokens = question({ state: 'failed', error: { kind: 'TokenLimitExceeded', title: 'Too long', message: 'The conversation is too long.' } });
    assert.match(unansweredText(tokens, now), /Ask a narrower question, or start a new conversation\.$/);
    assert.equal(unansweredText(question({ state: 'canceled', error: undefined })), 'The question was cancelled before it was answered.');
  });

  it('shows a reasoning turn as its first line, bounded', () => {
    assert.equal(progressLine({ role: 'assistant', reasoning: '  Searching 2 repositories\nfor parseConfig', time: 0 }), 'Searching 2 repositories');
    assert.equal(progressLine({ role: 'assistant', reasoning: 'x'.repeat(500), time: 0 }).length, 160);
  });

  it('reads a whole conversation for the agent, question by question', () => {
    const text = conversationForAgent(
      {
        id: 7,
        createdAt: '',
        updatedAt: '',
        questions: [question(), question({ id: 2, text: 'And where is it called?', state: 'processing', answer: undefined, sources: [] })],
      },
      INSTANCE,
    );
    assert.match(text, /^# Deep Search conversation 7: Where is parseConfig defined\?/);
    assert.match(text, /## Question 2 \(processing\)\n\nAnd where is it called\?\n\n## Answer 2\n\n\(no answer yet\)$/);
  });
});
