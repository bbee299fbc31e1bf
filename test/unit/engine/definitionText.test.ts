/**
 * What a definition is in a description's words, and how definitions rank for one
 * (src/engine/repo/definitionText.ts).
 */
import assert from 'node:assert/strict';
import { definitionWords, describeScores, wordsOf } from '../../../src/engine/repo/definitionText';

describe('definition text', function () {
  it('splits identifiers into stemmed words', function () {
    assert.deepEqual(wordsOf('parseConfigFile(max_redirects) HTTPServer'), ['pars', 'config', 'file', 'max', 'redirect', 'http', 'serv']);
  });

  it('counts a word of the name more than one of the documentation, and that more than one of the body', function () {
    const words = definitionWords({ name: 'retryRequest', documentation: ['/** Repeats it. */'], body: ['  log(it);'] });
    assert.deepEqual([words.get('retr'), words.get('repeat'), words.get('log')], [3, 2, 1], JSON.stringify([...words]));
  });

  it('weighs a word by how few definitions hold it, not how many files do', function () {
    const definitions = [
      definitionWords({ name: 'handleTimeout', documentation: [], body: ['deadline passed', 'request'] }),
      definitionWords({ name: 'send', documentation: [], body: ['request'] }),
      definitionWords({ name: 'open', documentation: [], body: ['request'] }),
    ];
    const scores = describeScores(definitions, wordsOf('the request gives up when the deadline has passed'));
    assert.ok((scores[0] ?? 0) > (scores[1] ?? 0) * 3, scores.join(' '));
    assert.equal(scores[1], scores[2], 'a word every definition holds decides nothing between them');
  });
});
