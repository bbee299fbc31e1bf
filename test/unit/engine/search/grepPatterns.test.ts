/**
 * The translation of git grep patterns into JavaScript for the search index: what it translates, how
 * (lines never span, bytes as git sees them) and what it leaves to git grep.
 */
import assert from 'node:assert/strict';
import { latin1OfUtf8, lineMatcher, type LineMatcher } from '../../../../src/engine/search/grepPatterns';

/** The lines of `text` the matcher finds, as the index scans them (one string, every line ending in a newline). */
function matchingLines(matcher: LineMatcher | undefined, text: string): string[] {
  assert.ok(matcher, 'the pattern is translated');
  const lines = latin1OfUtf8(text).split('\n');
  return lines.filter((line) => {
    if (matcher.kind === 'literal') return line.includes(matcher.needle);
    return new RegExp(matcher.source, matcher.flags.replace('g', '')).test(line);
  });
}

describe('search index: git grep patterns in JavaScript', function () {
  it('keeps a case-sensitive fixed string a plain literal, and escapes every other one', function () {
    assert.deepEqual(lineMatcher(['a.b(c'], 'fixed', true, false), { kind: 'literal', needle: 'a.b(c', wholeWord: false });
    const insensitive = lineMatcher(['a.b(c'], 'fixed', false, true);
    assert.deepEqual(insensitive, { kind: 'regex', source: 'a\\x2eb\\x28c', flags: 'gi', wholeWord: true, length: 5 });
    assert.deepEqual(matchingLines(insensitive, 'xA.B(Cx\naxb(c\n'), ['xA.B(Cx']);
    // One length for every match only when there is one ASCII string: a scan then asks for no match.
    const lengthOf = (matcher: ReturnType<typeof lineMatcher>): number | string | undefined => (matcher?.kind === 'regex' ? matcher.length : 'not a regex');
    assert.equal(lengthOf(lineMatcher(['ab', 'cde'], 'fixed', false, false)), undefined);
    assert.equal(lengthOf(lineMatcher(['école'], 'fixed', false, false)), undefined);
    assert.equal(lengthOf(lineMatcher(['a.b'], 'extended', false, false)), undefined);
  });

  it('folds case in ASCII only, as git does under LC_ALL=C', function () {
    const matcher = lineMatcher(['école'], 'fixed', false, false);
    assert.equal(matcher?.kind === 'regex' && matcher.flags, 'g', 'no i flag: it would fold Latin-1 bytes of UTF-8 sequences');
    assert.deepEqual(
      matchingLines(matcher, 'ÉCOLE\nÉCOLE\nécole\nÉCOLE école\nécOLE\n').map((line) => Buffer.from(line, 'latin1').toString('utf8')),
      ['école', 'ÉCOLE école', 'écOLE'],
    );
  });

  it('never lets a translated regular expression match across a line end', function () {
    const text = 'alpha\nbeta\nalpha beta\n';
    assert.deepEqual(matchingLines(lineMatcher(['alpha\\s+beta'], 'perl', true, false), text), ['alpha beta']);
    assert.deepEqual(matchingLines(lineMatcher(['alpha[^x]+beta'], 'perl', true, false), text), ['alpha beta']);
    assert.deepEqual(matchingLines(lineMatcher(['alpha[[:space:]]+beta'], 'extended', true, false), text), ['alpha beta']);
    const source = (lineMatcher(['a.\\S\\W[^b]$'], 'perl', true, false) as { source: string }).source;
    assert.equal(new RegExp(source).test('a\n\n\n\n'), false);
  });

  it('anchors ^ and $ at line ends only, not at a carriage return', function () {
    const text = 'end\r\nend\nstart\r\n';
    assert.deepEqual(matchingLines(lineMatcher(['end$'], 'perl', true, false), text), ['end']);
    assert.deepEqual(matchingLines(lineMatcher(['^start'], 'perl', true, false), text), ['start\r']);
  });

  it('closes classes under case before negating them when case does not matter', function () {
    assert.deepEqual(matchingLines(lineMatcher(['^[^a]+$'], 'perl', false, false), 'A\nb\n'), ['b']);
    assert.deepEqual(matchingLines(lineMatcher(['^[^a]+$'], 'perl', true, false), 'A\nb\n'), ['A', 'b']);
  });

  it('reads ERE bracket expressions the POSIX way: backslash is literal, ] first is a member', function () {
    assert.deepEqual(matchingLines(lineMatcher(['x[\\.]y'], 'extended', true, false), 'x.y\nx\\y\nxzy\n'), ['x.y', 'x\\y']);
    assert.deepEqual(matchingLines(lineMatcher(['x[\\.]y'], 'perl', true, false), 'x.y\nx\\y\nxzy\n'), ['x.y']);
    assert.deepEqual(matchingLines(lineMatcher(['[]_$<>,.?[[:alnum:]]+ z'], 'extended', true, false), 'List<T> z\n(z\n'), ['List<T> z']);
  });

  it('ORs several patterns, as several -e do', function () {
    assert.deepEqual(matchingLines(lineMatcher(['^foo', 'bar$'], 'extended', true, false), 'foo x\nx bar\nx foo bar x\n'), ['foo x', 'x bar']);
  });

  it('leaves to git grep whatever could mean something else in JavaScript', function () {
    const declined: Array<[string, 'perl' | 'extended']> = [
      ['(?=x)a', 'perl'],
      ['(?<=x)a', 'perl'],
      ['(a)\\1', 'perl'],
      ['\\Qa.b\\E', 'perl'],
      ['a\\z', 'perl'],
      ['\\v', 'perl'],
      ['a++', 'perl'],
      ['(?i)a', 'perl'],
      ['(*UTF)a', 'perl'],
      ['a{,3}', 'perl'],
      ['é+', 'perl'],
      ['a\\nb', 'perl'],
      ['\\d', 'extended'],
      ['\\<word\\>', 'extended'],
      ['a+?', 'extended'],
      ['[[:alpha:]-z]', 'extended'],
      ['[z-a]', 'perl'],
      ['(unclosed', 'perl'],
      ['*a', 'perl'],
    ];
    for (const [pattern, syntax] of declined) assert.equal(lineMatcher([pattern], syntax, true, false), undefined, `${syntax} ${pattern}`);
    assert.equal(lineMatcher(['a.b'], 'perl', true, true), undefined, 'whole words of a regular expression');
    assert.equal(lineMatcher(['two\nlines'], 'fixed', true, false), undefined, 'git splits a pattern at newlines');
  });

  it('takes PCRE lazy quantifiers and braces that are not quantifiers as PCRE does', function () {
    assert.deepEqual(matchingLines(lineMatcher(['a+?b'], 'perl', true, false), 'aab\nb\n'), ['aab']);
    assert.deepEqual(matchingLines(lineMatcher(['x{y'], 'perl', true, false), 'x{y\nxy\n'), ['x{y']);
    assert.deepEqual(matchingLines(lineMatcher(['^a{2,3}$'], 'perl', true, false), 'a\naa\naaa\naaaa\n'), ['aa', 'aaa']);
  });
});
