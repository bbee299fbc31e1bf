/**
 * Telling a question from a description, and a description from its frame
 * (src/engine/repo/questionKind.ts, and how question.ts reads each).
 */
import assert from 'node:assert/strict';
import { analyseQuestion, withFramingNames } from '../../../src/engine/repo/question';
import { readQuestion, requestWords, sentencesOf } from '../../../src/engine/repo/questionKind';

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

  it("tells a description's requests by their grammar: the head that addresses the reader, asks, or commands, up to its relative word", function () {
    assert.deepEqual(requestWords('I am looking for the place where the server is created.'), ['i', 'am', 'looking', 'for', 'the', 'place']);
    assert.deepEqual(requestWords('Show me the routine which turns the body into text.'), ['show', 'me', 'the', 'routine']);
    assert.deepEqual(requestWords('Locate the piece that trims the header.'), ['locate', 'the', 'piece']);
    assert.deepEqual(requestWords('Where is the function that measures the size?'), ['where', 'is', 'the', 'function']);
    // Statements that say what the code does, whatever relative words they hold.
    for (const statement of [
      'Programs get a built-in subcommand that prints the help.',
      'Somewhere the framework decides that the copy is fresh.',
      'The parser keeps a stack of states that it pops on error.',
      'Given the name of a view, the framework finds the template.',
      'Where does the transport unpack that pair into a timeout?',
      "How does the parser check that a language's version is compatible?",
      'How does Execute find which subcommand to run?',
    ])
      assert.deepEqual(requestWords(statement), [], statement);
  });

  it("leaves a request's words out of what a description is searched and matched by, unless it says them again or they name code", function () {
    const text =
      'Locate the routine that trims trailing whitespace from every header value before it is stored. ' +
      'Values that are only whitespace become empty, and the original header order is kept.';
    const analysis = analyseQuestion(text);
    assert.equal(analysis.kind, 'description');
    assert.deepEqual(analysis.framing.sort(), ['locate', 'routine']);
    for (const word of ['locat', 'routin']) {
      assert.ok(!analysis.terms.some((term) => term.text === word), `${word} is not searched`);
      assert.ok(!analysis.stems.includes(word) && !analysis.described.includes(word), `${word} describes nothing`);
    }
    assert.ok(analysis.terms.some((term) => term.text === 'trim'));
    // Said again outside the request, a word is the description's.
    assert.deepEqual(analyseQuestion(`${text} The routine runs once per header.`).framing, ['locate']);
    // A request word that names definitions of the repository is a name after all.
    const named = withFramingNames(
      analyseQuestion('I need the lookup that resolves the path of a view on disk, trying each folder and the default extension in turn.'),
      (word) => word === 'lookup',
    );
    assert.ok(named.stems.includes('lookup') && named.described.includes('lookup'), JSON.stringify(named.stems));
  });
});
