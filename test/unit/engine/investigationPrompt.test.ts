import assert from 'node:assert/strict';
import { describeCall, takeFollowups } from '../../../src/engine/answers/investigationPrompt';

describe('the words of an investigation', function () {
  it('takes the follow-up list out of an answer in the forms models write it, as plain text, three at most', function () {
    const forms = ['Follow-up questions:', '**Follow-up questions:**', '### Suggested follow-ups', 'Follow up questions'];
    for (const heading of forms) {
      const { answer, followups } = takeFollowups(
        `The answer.\n\n${heading}\n- Who calls \`parseConfig\`?\n2. What does **loadConfig** return?\n* Why?\n- A fourth one?\n\nTrailing words.`,
      );
      assert.equal(answer, 'The answer.\n\nTrailing words.', heading);
      assert.deepEqual(followups, ['Who calls parseConfig?', 'What does loadConfig return?', 'Why?'], heading);
    }
  });

  it('leaves an answer without a follow-up list, or with a heading and no items, as it is', function () {
    assert.deepEqual(takeFollowups('Only the answer.\n'), { answer: 'Only the answer.', followups: [] });
    assert.deepEqual(takeFollowups('The answer.\n\nFollow-up questions:\n\nNone come to mind.'), {
      answer: 'The answer.\n\nFollow-up questions:\n\nNone come to mind.',
      followups: [],
    });
  });

  it('shows each tool call as a turn, on one line, with long or hostile arguments cut', function () {
    assert.equal(
      describeCall('read_file', { repo: 'github.com/acme/app', path: 'lib/response.js', startLine: 730, endLine: 790 }),
      'Reading lib/response.js 730–790 in github.com/acme/app',
    );
    assert.equal(describeCall('keyword_search', { query: 'sign repo:^github\\.com/acme/app$' }), 'Searching for `sign repo:^github\\.com/acme/app$`');
    assert.equal(describeCall('find_references', { symbol: 'a`b\nc' }), "Finding what uses `a'b c`");
    const long = describeCall('nls_search', { query: 'x'.repeat(500) });
    assert.ok(long.length < 100 && long.endsWith('…`'), long);
    assert.equal(describeCall('made_up_tool', {}), 'Calling `made_up_tool`');
  });
});
