/**
 * The question "Ask Deep Search About Selection" sends: prompt, where the code is, and the code in
 * a fence that cannot be closed early, cut at a line boundary when the selection is too large.
 */
import assert from 'node:assert/strict';
import { defaultSelectionPrompt, MAX_SELECTION_CHARACTERS, selectionQuestion, type SelectionContext } from '../../../src/conversations/selectionQuestion';

const CODE = [
  'export function parseConfig(text: string): AppConfig {',
  '  const raw = JSON.parse(text) as Partial<AppConfig>;',
  '  return { port: raw.port ?? 8080, retries: raw.retries ?? 3 };',
  '}',
].join('\n');

function context(overrides: Partial<SelectionContext> = {}): SelectionContext {
  return {
    code: CODE,
    languageId: 'typescript',
    relativePath: 'src/config.ts',
    startLine: 11,
    endLine: 14,
    repoName: 'github.com/acme/app',
    prompt: 'What happens when port is missing?',
    ...overrides,
  };
}

/** The fenced block of a question: its fence, language and body. */
function fencedBlock(question: string): { fence: string; language: string; body: string } {
  const match = /^(`{3,})(\S*)\n([\s\S]*?)\n\1$/m.exec(question);
  assert.ok(match, `no fenced block in:\n${question}`);
  return { fence: match[1], language: match[2], body: match[3] };
}

describe('selectionQuestion', () => {
  it('puts the prompt first', () => {
    const question = selectionQuestion(context());
    assert.equal(question.split('\n')[0], 'What happens when port is missing?');
  });

  it('uses the default prompt when the prompt is empty or blank', () => {
    for (const prompt of ['', '   \n\t']) {
      assert.equal(selectionQuestion(context({ prompt })).split('\n')[0], defaultSelectionPrompt());
    }
  });

  it('trims the prompt', () => {
    assert.equal(selectionQuestion(context({ prompt: '  Why?  \n' })).split('\n')[0], 'Why?');
  });

  it('says which file, lines and repository the code is from', () => {
    const question = selectionQuestion(context());
    assert.ok(question.includes('Code from `src/config.ts` (lines 11-14) in the repository `github.com/acme/app`:'), question);
  });

  it('says "line N" for a one-line selection', () => {
    const question = selectionQuestion(context({ code: 'const x = 1;', startLine: 7, endLine: 7 }));
    assert.ok(question.includes('`src/config.ts` (line 7)'), question);
    assert.ok(!question.includes('lines'), question);
  });

  it('leaves out the repository outside a git repository', () => {
    const question = selectionQuestion(context({ repoName: undefined }));
    assert.ok(question.includes('Code from `src/config.ts` (lines 11-14):'), question);
    assert.ok(!/repository/.test(question), question);
  });

  it('fences the code with its language, unchanged', () => {
    const block = fencedBlock(selectionQuestion(context()));
    assert.equal(block.fence, '```');
    assert.equal(block.language, 'typescript');
    assert.equal(block.body, CODE);
  });

  it('orders prompt, location, then code', () => {
    const question = selectionQuestion(context());
    const prompt = question.indexOf('What happens');
    const where = question.indexOf('Code from');
    const code = question.indexOf('```typescript');
    assert.ok(prompt === 0 && where > prompt && code > where, question);
  });

  it('drops trailing whitespace of the selection', () => {
    const block = fencedBlock(selectionQuestion(context({ code: `${CODE}\n\n   \n` })));
    assert.equal(block.body, CODE);
  });

  it('uses a longer fence when the code contains a fence of its own', () => {
    const markdown = ['# Readme', '', '```sh', 'npm start', '```', '', 'Done.'].join('\n');
    const question = selectionQuestion(context({ code: markdown, languageId: 'markdown', relativePath: 'README.md' }));
    const block = fencedBlock(question);
    assert.equal(block.fence, '````');
    assert.equal(block.language, 'markdown');
    assert.equal(block.body, markdown);
  });

  it('uses a fence longer than the longest run of backticks in the code', () => {
    const code = 'const fence = "``````";';
    const block = fencedBlock(selectionQuestion(context({ code, startLine: 1, endLine: 1 })));
    assert.equal(block.fence, '```````');
    assert.equal(block.body, code);
  });

  it('sends a selection within the limit whole, without a note', () => {
    const question = selectionQuestion(context());
    assert.ok(!question.includes('Selection cut'), question);
    assert.ok(CODE.length < MAX_SELECTION_CHARACTERS);
  });

  it('cuts a selection over the limit at a line boundary and names the kept range', () => {
    // 10 lines of 10 characters each (9 + newline); a limit of 35 keeps 3 whole lines.
    const lines = Array.from({ length: 10 }, (_, index) => `line_${String(index + 1).padStart(4, '0')}`);
    const question = selectionQuestion(context({ code: lines.join('\n'), startLine: 20, endLine: 29 }), 35);
    const block = fencedBlock(question);
    assert.equal(block.body, lines.slice(0, 3).join('\n'));
    assert.ok(block.body.length <= 35);
    assert.ok(question.includes('(lines 20-29)'), 'the location still names the whole selection');
    assert.ok(question.trimEnd().endsWith('(Selection cut to 20-22 of 20-29: only the first 35 characters are sent.)'), question);
  });

  it('cuts at the default limit and formats it for reading', () => {
    const line = `${'x'.repeat(99)}`;
    const code = Array.from({ length: 200 }, () => line).join('\n'); // 19,999 characters
    const question = selectionQuestion(context({ code, startLine: 1, endLine: 200 }));
    const block = fencedBlock(question);
    assert.ok(block.body.length <= MAX_SELECTION_CHARACTERS);
    assert.ok(
      block.body.split('\n').every((kept) => kept === line),
      'only whole lines are kept',
    );
    const keptLines = block.body.split('\n').length;
    assert.equal(keptLines, 120);
    assert.ok(question.includes(`(Selection cut to 1-${keptLines} of 1-200: only the first 12,000 characters are sent.)`), question);
  });
});
