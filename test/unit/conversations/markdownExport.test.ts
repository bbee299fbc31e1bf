/**
 * A conversation exported as one Markdown document that stands on its own: every question in each
 * state, sources and answer links made absolute, one-line titles.
 */
import assert from 'node:assert/strict';
import { conversationMarkdown } from '../../../src/conversations/markdownExport';
import type { Conversation, Question } from '../../../src/model/conversation';
import { aQuestion } from '../../support/questions';

const INSTANCE = 'https://sourcegraph.example.com';

const question = aQuestion;

function conversation(questions: Question[], overrides: Partial<Conversation> = {}): Conversation {
  return {
    id: 7,
    questions,
    createdAt: '2025-01-01T00:00:00Z',
    updatedAt: '2025-01-01T00:00:10Z',
    ...overrides,
  };
}

describe('conversationMarkdown', () => {
  it("titles the document with the first question's title on one line", () => {
    const markdown = conversationMarkdown(conversation([question({ title: 'Where\nparseConfig   lives\t' })]), INSTANCE);
    assert.equal(markdown.split('\n')[0], '# Where parseConfig lives');
  });

  it('falls back to the question text, then to the conversation id, for the title', () => {
    const byText = conversationMarkdown(conversation([question({ title: undefined, text: 'What does\nloadConfig do?' })]), INSTANCE);
    assert.equal(byText.split('\n')[0], '# What does loadConfig do?');
    assert.equal(conversationMarkdown(conversation([]), INSTANCE).split('\n')[0], '# Conversation 7');
  });

  it('says where and when it was exported, with a link to the share page', () => {
    const markdown = conversationMarkdown(conversation([question()], { shareUrl: `${INSTANCE}/deepsearch/1c9f3b8e-0000-4000-8000-000000000000` }), INSTANCE);
    assert.match(
      markdown,
      /^_Exported from https:\/\/sourcegraph\.example\.com on \d{4}-\d{2}-\d{2} · \[open on the instance\]\(https:\/\/sourcegraph\.example\.com\/deepsearch\/1c9f3b8e-0000-4000-8000-000000000000\)_$/m,
    );
    assert.doesNotMatch(conversationMarkdown(conversation([question()]), INSTANCE), /open on the instance/);
  });

  it('writes a completed question as a heading, the quoted question and the answer', () => {
    const markdown = conversationMarkdown(
      conversation([
        question({
          title: 'parseConfig',
          text: 'Where is parseConfig defined?\nAnd what does it check?',
          answer: '`parseConfig` is defined in `src/config.ts`.\n\nIt checks `port`.',
        }),
      ]),
      INSTANCE,
    );
    assert.ok(
      markdown.includes(
        [
          '## parseConfig',
          '',
          '> Where is parseConfig defined?',
          '> And what does it check?',
          '',
          '`parseConfig` is defined in `src/config.ts`.',
          '',
          'It checks `port`.',
        ].join('\n'),
      ),
      markdown,
    );
    assert.ok(markdown.endsWith('It checks `port`.\n'), 'ends with exactly one newline');
  });

  it('writes a failed question with its error message', () => {
    const markdown = conversationMarkdown(
      conversation([
        question({
          state: 'failed',
          answer: undefined,
          error: { kind: 'TokenLimitExceeded', title: 'Too long', message: 'The conversation is\ntoo long.' },
        }),
      ]),
      INSTANCE,
    );
    assert.ok(markdown.includes('**Failed:** The conversation is too long.'), markdown);
  });

  it('falls back to the error title, then to a generic line, for a failed question', () => {
    const byTitle = conversationMarkdown(
      conversation([question({ state: 'failed', error: { kind: 'InternalError', title: 'Internal error', message: '' } })]),
      INSTANCE,
    );
    assert.ok(byTitle.includes('**Failed:** Internal error'), byTitle);
    const generic = conversationMarkdown(conversation([question({ state: 'failed' })]), INSTANCE);
    assert.ok(generic.includes('**Failed:** the question failed'), generic);
  });

  it('writes a canceled question as cancelled, without an answer', () => {
    const markdown = conversationMarkdown(conversation([question({ state: 'canceled', answer: 'partial' })]), INSTANCE);
    assert.ok(markdown.includes('**Cancelled** before an answer was produced.'), markdown);
    assert.ok(!markdown.includes('partial'));
  });

  it('writes processing and pending questions as still being answered', () => {
    for (const state of ['processing', 'pending'] as const) {
      const markdown = conversationMarkdown(conversation([question({ state })]), INSTANCE);
      assert.ok(markdown.includes('_Still being answered when exported._'), `${state}: ${markdown}`);
    }
  });

  it('lists sources as links made absolute, escaping brackets in labels', () => {
    const markdown = conversationMarkdown(
      conversation([
        question({
          answer: 'See the sources.',
          sources: [
            { type: 'repository', link: '/github.com/acme/app', label: 'github.com/acme/app' },
            { type: 'file', link: '/github.com/acme/app/-/blob/src/config.ts?L11-15', label: 'src/config.ts [L11-15]' },
            { type: 'web', link: 'https://docs.example.com/config', label: 'Config docs' },
          ],
        }),
      ]),
      INSTANCE,
    );
    assert.ok(
      markdown.includes(
        [
          '**Sources:**',
          '',
          `- [github.com/acme/app](${INSTANCE}/github.com/acme/app)`,
          `- [src/config.ts \\[L11-15\\]](${INSTANCE}/github.com/acme/app/-/blob/src/config.ts?L11-15)`,
          '- [Config docs](https://docs.example.com/config)',
        ].join('\n'),
      ),
      markdown,
    );
  });

  it('keeps an instance path prefix in absolute links', () => {
    const prefixed = 'https://example.com/sourcegraph';
    const markdown = conversationMarkdown(
      conversation([
        question({
          answer: 'In [config.ts](/github.com/acme/app/-/blob/src/config.ts).',
          sources: [{ type: 'repository', link: '/github.com/acme/app', label: 'app' }],
        }),
      ]),
      prefixed,
    );
    assert.ok(markdown.includes(`[config.ts](${prefixed}/github.com/acme/app/-/blob/src/config.ts)`), markdown);
    assert.ok(markdown.includes(`- [app](${prefixed}/github.com/acme/app)`), markdown);
  });

  it('makes relative links in answers absolute and leaves other links alone', () => {
    const answer = [
      'Defined in [config.ts](/github.com/acme/app/-/blob/src/config.ts?L11) and',
      'used by [server.ts](/github.com/acme/app/-/blob/src/server.ts).',
      'See [MDN](https://developer.mozilla.org/) and [elsewhere](//cdn.example.com/x).',
    ].join('\n');
    const markdown = conversationMarkdown(conversation([question({ answer })]), INSTANCE);
    assert.ok(markdown.includes(`[config.ts](${INSTANCE}/github.com/acme/app/-/blob/src/config.ts?L11)`), markdown);
    assert.ok(markdown.includes(`[server.ts](${INSTANCE}/github.com/acme/app/-/blob/src/server.ts)`), markdown);
    assert.ok(markdown.includes('[MDN](https://developer.mozilla.org/)'), markdown);
    assert.ok(markdown.includes('[elsewhere](//cdn.example.com/x)'), 'protocol-relative links are not the instance');
  });

  it('exports every question of a conversation in order, each with a one-line heading', () => {
    const markdown = conversationMarkdown(
      conversation([
        question({ id: 1, title: 'First\nanswer', answer: 'One.' }),
        question({ id: 2, title: undefined, text: 'And then?\nReally?', state: 'processing' }),
      ]),
      INSTANCE,
    );
    const headings = markdown.split('\n').filter((line) => line.startsWith('## '));
    assert.deepEqual(headings, ['## First answer', '## And then? Really?']);
    assert.ok(markdown.indexOf('One.') < markdown.indexOf('_Still being answered'), markdown);
  });
});
