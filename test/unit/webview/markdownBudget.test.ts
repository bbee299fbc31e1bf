import assert from 'node:assert/strict';
import { MAX_DELIMITER_RUNS_PER_PARAGRAPH, MAX_MARKDOWN_CHARS, MAX_NESTING, markdownVerdict } from '../../../src/webview/markdownBudget';

describe('markdownVerdict (what the panel renders as Markdown)', () => {
  it('renders ordinary answers, emphasis, lists and quotes included', () => {
    const answer = [
      '## Where parseConfig is defined',
      '',
      'It is **defined** in `src/config.ts` and _checked_ by ~~nothing~~ its caller:',
      '',
      '- one',
      '  - two',
      '    - three',
      '',
      '> a quote',
      '> > nested',
      '',
      '```ts',
      'const total = a * b * c;',
      '```',
    ].join('\n');
    assert.deepEqual(markdownVerdict(answer), { render: true });
  });

  it('shows as text a paragraph with more emphasis delimiter runs than marked handles in time', () => {
    assert.deepEqual(markdownVerdict('_a'.repeat(MAX_DELIMITER_RUNS_PER_PARAGRAPH + 1)), { render: false, reason: 'emphasis' });
    assert.deepEqual(markdownVerdict('*a'.repeat(100_000)), { render: false, reason: 'emphasis' });
    assert.deepEqual(markdownVerdict('_a'.repeat(MAX_DELIMITER_RUNS_PER_PARAGRAPH)), { render: true });
  });

  it('counts emphasis per paragraph: many short paragraphs render', () => {
    const paragraph = '*a* '.repeat(500);
    assert.deepEqual(markdownVerdict(Array.from({ length: 20 }, () => paragraph).join('\n\n')), { render: true });
  });

  it('counts a run of one marker once: a row of stars is one run', () => {
    assert.deepEqual(markdownVerdict('*'.repeat(100_000)), { render: true });
  });

  it('shows as text lists or quotes nested deeper than the limit', () => {
    const list = (depth: number) => Array.from({ length: depth }, (_, level) => `${' '.repeat(level * 2)}- item`).join('\n');
    assert.deepEqual(markdownVerdict(list(MAX_NESTING + 2)), { render: false, reason: 'nesting' });
    assert.deepEqual(markdownVerdict(list(MAX_NESTING)), { render: true });
    assert.deepEqual(markdownVerdict(`${'>'.repeat(MAX_NESTING + 1)} deep`), { render: false, reason: 'nesting' });
  });

  it(`shows as text an answer over ${MAX_MARKDOWN_CHARS} characters`, () => {
    assert.deepEqual(markdownVerdict('a'.repeat(MAX_MARKDOWN_CHARS + 1)), { render: false, reason: 'size' });
  });
});
