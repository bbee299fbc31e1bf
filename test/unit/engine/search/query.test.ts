/**
 * Which patterns a keyword query cannot match a file without (`requiredPatterns`): keyword search
 * searches each later pattern only in the files that hold every required one searched before it.
 */
import assert from 'node:assert/strict';
import { toolNamer } from '../../../../src/engine/messages/toolNames';
import { parseQuery, requiredPatterns } from '../../../../src/engine/search/query';

/** The values of the required patterns of `text`, sorted. */
function required(text: string): string[] {
  const query = parseQuery(text, toolNamer('all'));
  const ids = requiredPatterns(query.root);
  return query.patterns
    .filter((pattern) => ids.has(pattern.id))
    .map((pattern) => pattern.value)
    .sort();
}

describe('keyword query: required patterns', function () {
  it('requires every term of a conjunction', function () {
    assert.deepEqual(required('mergeMap subscribe'), ['mergeMap', 'subscribe']);
    assert.deepEqual(required('mergeMap AND /switch\\w+/'), ['mergeMap', 'switch\\w+']);
  });

  it('requires no term of a disjunction, only what is required beside it', function () {
    assert.deepEqual(required('mergeMap OR subscribe'), []);
    // A term written twice is two patterns, each in one branch only.
    assert.deepEqual(required('(alpha beta) OR (alpha gamma)'), []);
    assert.deepEqual(required('alpha (beta OR gamma)'), ['alpha']);
  });

  it('never requires a negated term, and filters are not patterns', function () {
    assert.deepEqual(required('alpha NOT beta'), ['alpha']);
    assert.deepEqual(required('NOT beta file:\\.ts$'), []);
    assert.deepEqual(required('alpha file:\\.ts$'), ['alpha']);
  });
});
