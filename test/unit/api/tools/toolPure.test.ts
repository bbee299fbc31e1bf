/** The pure parts of the tool features: remote paths, the history query line, result parsing, arguments per generation. */
import assert from 'node:assert/strict';
import { DeepSearchError } from '../../../../src/api/errors';
import { parseHistoryQuery } from '../../../../src/api/tools/historyQuery';
import { formatRemotePath, parentPath, parseRemotePath } from '../../../../src/api/tools/remotePath';
import {
  commitMatches,
  fileMatches,
  firstMatchingLine,
  hunkLocation,
  parseNumberedLines,
  queryWords,
  repositoryPage,
} from '../../../../src/api/tools/toolResults';
import { argumentsFor } from '../../../../src/api/tools/toolServer';

describe('Remote paths', function () {
  it('round-trips repository, revision (slashes included) and path', function () {
    for (const file of [
      { repo: 'github.com/acme/app', revision: 'main', path: 'src/index.ts' },
      { repo: 'github.com/acme/app', revision: 'feature/x%y', path: 'node_modules/@types/a@b.d.ts' },
      { repo: 'gitlab.example.com/group/sub/repo', revision: '0123456789abcdef0123456789abcdef01234567', path: '' },
      { repo: 'github.com/acme/app', revision: undefined, path: 'README.md' },
    ]) {
      const formatted = formatRemotePath(file);
      assert.deepEqual(parseRemotePath(formatted), file, formatted);
    }
    assert.equal(formatRemotePath({ repo: 'github.com/acme/app', revision: 'feature/x', path: 'a/b.ts' }), '/github.com/acme/app@feature%2Fx/a/b.ts');
    assert.equal(formatRemotePath({ repo: 'r', path: '' }), '/r@HEAD');
  });

  it('rejects paths without a revision, with "..", or with a broken escape', function () {
    assert.equal(parseRemotePath('/github.com/acme/app/src/index.ts'), undefined);
    assert.equal(parseRemotePath('/github.com/acme/app@main/../../etc/passwd'), undefined);
    assert.equal(parseRemotePath('/github.com/acme/app@%E0%A4%A/x'), undefined);
    assert.equal(parseRemotePath('/@main/x'), undefined);
  });

  it('finds the parent directory', function () {
    assert.equal(parentPath('a/b/c.ts'), 'a/b');
    assert.equal(parentPath('c.ts'), '');
  });
});

describe('History query line', function () {
  it('takes free words as one phrase and filters apart', function () {
    const query = parseHistoryQuery('fix login author:jane after:"2 weeks ago" repo:github.com/acme/app file:src/ count:5');
    assert.deepEqual(query.terms, ['fix login']);
    assert.deepEqual(query.authors, ['jane']);
    assert.equal(query.after, '2 weeks ago');
    assert.deepEqual(query.repos, ['github.com/acme/app']);
    assert.deepEqual(query.files, ['src/']);
    assert.equal(query.count, 5);
    assert.equal(query.useRegex, false);
  });

  it('splits terms at OR and at quoted phrases, marks /regex/, and reads is:added', function () {
    assert.deepEqual(parseHistoryQuery('timeout OR retry "rate limit"').terms, ['timeout', 'retry', 'rate limit']);
    const regex = parseHistoryQuery('/log(ger)?\\.info/ is:added author:"Ada Lovelace" before:2024-05-01');
    assert.deepEqual(regex.terms, ['log(ger)?\\.info']);
    assert.equal(regex.useRegex, true);
    assert.equal(regex.added, true);
    assert.deepEqual(regex.authors, ['Ada Lovelace']);
    assert.equal(regex.before, '2024-05-01');
  });

  it('keeps unknown or empty filters as words, and an unclosed quote to the end', function () {
    assert.deepEqual(parseHistoryQuery('http://example.com lang:go count:zero').terms, ['http://example.com lang:go count:zero']);
    assert.deepEqual(parseHistoryQuery('author: "open ended').terms, ['author:', 'open ended']);
  });
});

describe('Tool results', function () {
  it('parses numbered lines, including empty ones and un-numbered continuations', function () {
    assert.deepEqual(parseNumberedLines('1: a\n2:\n3:   indented\n'), [
      { line: 1, text: 'a' },
      { line: 2, text: '' },
      { line: 3, text: '  indented' },
    ]);
    assert.deepEqual(parseNumberedLines('plain\ntext', 7), [
      { line: 7, text: 'plain' },
      { line: 8, text: 'text' },
    ]);
    assert.deepEqual(parseNumberedLines(''), []);
  });

  it('keeps file blocks, skips other block kinds and fills missing fields', function () {
    const matches = fileMatches(
      {
        blocks: [
          { type: 'file', repo: 'r', file: 'a.ts', rev: 'main', chunks: [{ startLine: 10, endLine: 11, content: '10: const x = 1;\n11: useThing(x);' }] },
          { type: 'repo', repo: 'r' },
          { type: 'file', repository: 'q', path: 'b.go', chunks: [{ content: '4: func useThing() {}' }] },
          'garbage',
        ],
      },
      'blocks',
    );
    assert.deepEqual(
      matches.map((match) => `${match.repo}:${match.path}@${match.revision ?? '-'}`),
      ['r:a.ts@main', 'q:b.go@-'],
    );
    assert.equal(firstMatchingLine(matches[0], 'usething')?.line, 11);
    assert.equal(firstMatchingLine(matches[0], ['absent', 'CONST X'])?.line, 10);
    assert.equal(firstMatchingLine(matches[0], 'absent'), undefined);
    assert.deepEqual(matches[1].chunks[0], { startLine: 1, endLine: 4, lines: [{ line: 4, text: 'func useThing() {}' }] });
  });

  it('degrades missing pagination and commit fields instead of failing', function () {
    assert.deepEqual(repositoryPage({ repositories: [{ name: 'r' }, { stars: 3 }] }), {
      repositories: [{ name: 'r', description: '', private: false, archived: false, fork: false, stars: 0 }],
      hasNextPage: false,
      endCursor: undefined,
      totalCount: undefined,
    });
    // 2026 servers say hasMoreResults beside (or instead of) the page's hasNextPage.
    assert.equal(repositoryPage({ repositories: [{ name: 'r' }], hasMoreResults: true }).hasNextPage, true);
    assert.equal(repositoryPage({ repositories: [], pagination: { hasNextPage: false }, hasMoreResults: false }).hasNextPage, false);
    const { commits } = commitMatches({ commits: [{ repository: 'r', commit: 'abc', message: 'Subject\n\nBody' }, { commit: 'x' }] });
    assert.deepEqual(commits, [{ repository: 'r', commit: 'abc', author: '', date: '', title: 'Subject', message: 'Subject\n\nBody' }]);
  });

  it('takes the words of a query to highlight, without filters, operators, quotes or slashes', function () {
    assert.deepEqual(queryWords('"rate limit" OR /retr(y|ies)/ repo:acme/app file:src x parseConfig'), ['rate limit', 'retr(y|ies)', 'parseConfig']);
  });

  it('finds the file and first new line of a diff hunk, also for added and deleted files', function () {
    assert.deepEqual(hunkLocation('--- a/src/a.ts\n+++ b/src/a.ts\n@@ -3,2 +4,3 @@ fn\n-x\n+y'), { path: 'src/a.ts', line: 4 });
    assert.deepEqual(hunkLocation('--- /dev/null\n+++ b/new.ts\n@@ -0,0 +1 @@\n+z'), { path: 'new.ts', line: 1 });
    assert.deepEqual(hunkLocation('--- a/old.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-z'), { path: 'old.ts', line: 0 });
    assert.deepEqual(hunkLocation('@@ -1 +1 @@'), { path: undefined, line: 1 });
  });
});

describe('Arguments for each server generation', function () {
  const v1Diffs = new Set(['pattern', 'repos', 'added', 'removed', 'author', 'after', 'before', 'count', 'useRegex']);
  const diffs2026 = new Set(['pattern', 'repos', 'added', 'removed', 'authors', 'revisions', 'after', 'before', 'count', 'useRegex']);

  it('turns a singular into the list a 2026 tool takes, and a one-item list into the singular of a v1 tool', function () {
    assert.deepEqual(argumentsFor({ author: 'alan' }, new Set(['authors', 'limit']), 'x'), { authors: ['alan'] });
    assert.deepEqual(argumentsFor({ pattern: 'p', repos: ['r'], authors: ['alan'] }, v1Diffs, 'x'), { pattern: 'p', repos: ['r'], author: 'alan' });
    assert.deepEqual(argumentsFor({ pattern: 'p', repos: ['r'], authors: [] }, v1Diffs, 'x'), { pattern: 'p', repos: ['r'] });
    assert.deepEqual(argumentsFor({ pattern: 'p', repos: ['r'], authors: ['a', 'b'] }, diffs2026, 'x'), { pattern: 'p', repos: ['r'], authors: ['a', 'b'] });
  });

  it('leaves out size bounds a tool does not take, and passes everything as is without a schema', function () {
    assert.deepEqual(argumentsFor({ repo: 'r', path: 'p', symbol: 's', limit: 100 }, new Set(['repo', 'path', 'symbol', 'revision']), 'x'), {
      repo: 'r',
      path: 'p',
      symbol: 's',
    });
    const args = { anything: 1, limit: 2 };
    assert.equal(argumentsFor(args, undefined, 'x'), args);
  });

  it('refuses, naming it, what would change the answer if it were dropped: a second author, a revision', function () {
    assert.throws(
      () => argumentsFor({ pattern: 'p', repos: ['r'], authors: ['ada', 'alan'] }, v1Diffs, 'searching changes (diffs)'),
      (error: unknown) =>
        error instanceof DeepSearchError && error.kind === 'unsupported' && /searching changes \(diffs\) takes one author, not 2/.test(error.message),
    );
    assert.throws(
      () => argumentsFor({ repo: 'r', path: 'p', revision: 'v1.2' }, new Set(['repo', 'path']), 'reading remote files'),
      (error: unknown) =>
        error instanceof DeepSearchError && error.kind === 'unsupported' && /reading remote files does not take "revision"/.test(error.message),
    );
  });
});
