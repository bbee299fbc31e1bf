/**
 * What every match of a pattern must contain, as the search index's n-gram filter looks it up: the
 * index's own translations of git patterns (grepPatterns.ts) analysed into literals (AND, OR), ASCII
 * case folded; anything not understood requires nothing, so the filter never skips a match.
 */
import assert from 'node:assert/strict';
import { lineMatcher, type GrepSyntax } from '../../../../src/engine/search/grepPatterns';
import { requiredText, type RequiredText } from '../../../../src/engine/search/literalQuery';

function required(pattern: string, syntax: GrepSyntax, caseSensitive = true): RequiredText {
  const matcher = lineMatcher([pattern], syntax, caseSensitive, false);
  assert.ok(matcher, `the index takes ${pattern}`);
  return requiredText(matcher);
}

const literal = (text: string): RequiredText => ({ kind: 'literal', text });
const anything: RequiredText = { kind: 'anything' };

describe('the text every match must contain (n-gram filter)', function () {
  const cases: Array<[string, string, GrepSyntax, boolean, RequiredText]> = [
    ['a fixed string, folded', 'mergeMap', 'fixed', true, literal('mergemap')],
    ['a fixed string, any case', 'mergeMap', 'fixed', false, literal('mergemap')],
    ['too short to look up', 'ab', 'fixed', true, anything],
    ['runs around classes and repetition', 'function\\s+\\w+Sync\\(', 'perl', false, { kind: 'all', of: [literal('function'), literal('sync(')] }],
    ['alternation in a group', '(mergeMap|switchMap)\\(', 'perl', true, { kind: 'any', of: [literal('mergemap'), literal('switchmap')] }],
    [
      'an anchor and an alternation',
      '^export (function|CONST)',
      'perl',
      false,
      { kind: 'all', of: [literal('export '), { kind: 'any', of: [literal('function'), literal('const')] }] },
    ],
    ['an optional group is not required', 'foo(?:bar)?baz', 'perl', true, { kind: 'all', of: [literal('foo'), literal('baz')] }],
    ['an optional character ends a run', 'abcd?efg', 'perl', true, { kind: 'all', of: [literal('abc'), literal('efg')] }],
    ['a repeated character joins both runs', 'abc+def', 'perl', true, { kind: 'all', of: [literal('abc'), literal('cdef')] }],
    ['a counted repetition', 'abcx{2,3}yz', 'perl', true, { kind: 'all', of: [literal('abcx'), literal('xyz')] }],
    ['word boundaries', '\\bword\\b', 'perl', false, literal('word')],
    ['escaped characters are literal', 'a\\.b\\.c', 'perl', true, literal('a.b.c')],
    ['a branch with nothing to look up', 'mergeMap|x', 'perl', true, anything],
    ['POSIX classes', '[[:space:]]*retry_with_backoff[[:space:]]*\\(', 'extended', true, literal('retry_with_backoff')],
    ['a dot', 'a.b', 'perl', true, anything],
  ];
  for (const [name, pattern, syntax, caseSensitive, expected] of cases) {
    it(`${name}: ${pattern}`, function () {
      assert.deepEqual(required(pattern, syntax, caseSensitive), expected);
    });
  }

  it('stops a run at a non-ASCII byte where case is ignored (the n-grams fold ASCII only)', function () {
    assert.deepEqual(requiredText({ kind: 'regex', source: 'caf\\xe9 au lait', flags: 'gi', wholeWord: false }), {
      kind: 'all',
      of: [literal('caf'), literal(' au lait')],
    });
    assert.deepEqual(requiredText({ kind: 'regex', source: 'caf\\xe9', flags: 'g', wholeWord: false }), literal('caf\u00e9'));
  });

  it('requires nothing of a source it does not read to its end', function () {
    assert.deepEqual(requiredText({ kind: 'regex', source: 'abc)def', flags: 'g', wholeWord: false }), anything);
    assert.deepEqual(requiredText({ kind: 'regex', source: 'abc[def', flags: 'g', wholeWord: false }), anything);
    assert.deepEqual(requiredText({ kind: 'regex', source: 'abc(?<name>def)', flags: 'g', wholeWord: false }), anything);
    assert.deepEqual(requiredText({ kind: 'regex', source: '(abc)\\1', flags: 'g', wholeWord: false }), anything, 'a backreference');
  });
});
