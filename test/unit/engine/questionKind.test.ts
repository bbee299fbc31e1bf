/**
 * Telling a question from a description, and a description from its frame
 * (src/engine/repo/questionKind.ts, and how question.ts reads each).
 */
import assert from 'node:assert/strict';
import { analyseQuestion } from '../../../src/engine/repo/question';
import { readQuestion, sentencesOf } from '../../../src/engine/repo/questionKind';

const PARAGRAPH =
  'When a user types a subcommand that does not exist, the tool offers close matches by edit distance or by prefix. ' +
  'The suggestions are printed under the error message.';

describe('question kind', function () {
  it('reads a short question as a question, and a paragraph of statements as a description', function () {
    assert.equal(readQuestion('How does cobra suggest a command when the user mistypes one?', false).kind, 'question');
    assert.equal(readQuestion(PARAGRAPH, false).kind, 'description');
  });

  it('keeps a short text that names code a question, however many sentences it has', function () {
    assert.equal(readQuestion('Where is `parseConfig` called? It reads the settings file.', true).kind, 'question');
  });

  it('leaves out a leading question that frames a description, whatever its words', function () {
    for (const frame of ['Which function matches the following description?', 'Find me the routine that fits this text:', 'What does this?']) {
      const read = readQuestion(`${frame} ${PARAGRAPH}`, false);
      assert.equal(read.frame, frame);
      assert.equal(read.text, PARAGRAPH);
      assert.equal(read.kind, 'description');
    }
  });

  it('keeps a leading question that names code, or one followed by too little to be a description', function () {
    assert.equal(readQuestion(`How does \`suggestionsFor\` work? ${PARAGRAPH}`, true).frame, undefined);
    assert.equal(readQuestion('Which function is it? The one that parses.', false).frame, undefined);
  });

  it('splits sentences at full stops, question marks and blank lines, not inside a name', function () {
    assert.deepEqual(sentencesOf('Which one?\n\nIt reads res.cookie values. Then it signs them!'), [
      'Which one?',
      'It reads res.cookie values.',
      'Then it signs them!',
    ]);
  });

  it('searches a framed description by its own words, every one of them, and none of the frame', function () {
    const framed = analyseQuestion(`Which function matches the following description? ${PARAGRAPH}`);
    assert.equal(framed.kind, 'description');
    const searched = framed.terms.map((term) => term.text);
    for (const word of ['funct', 'follow', 'descript'])
      assert.ok(!searched.some((term) => term.startsWith(word)), `${word} is not searched: ${searched.join(' ')}`);
    // Past the first eight words a question keeps: `printed` and `error` come late in the paragraph.
    assert.ok(framed.stems.includes('print') && framed.stems.includes('error'), framed.stems.join(' '));
    assert.ok(framed.described.includes('suggest') && framed.described.includes('prefix'), framed.described.join(' '));
    assert.equal(framed.asksHow, true, 'a description says what code does: functions answer it');
  });
});
