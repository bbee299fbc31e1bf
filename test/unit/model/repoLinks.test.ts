import assert from 'node:assert/strict';
import { DeepSearchError } from '../../../src/api/errors';
import { apiUrl, conversationWebUrl, parseInstanceUrl } from '../../../src/api/instance';
import { parseRepoLink } from '../../../src/model/repoLinks';

describe('instance URLs', () => {
  it('drops trailing slashes, query, fragment and credentials', () => {
    assert.equal(parseInstanceUrl(' https://sourcegraph.example.com/// '), 'https://sourcegraph.example.com');
    assert.equal(parseInstanceUrl('https://user:pw@sourcegraph.example.com/?x=1#y'), 'https://sourcegraph.example.com');
  });

  it('keeps a path prefix and a port', () => {
    assert.equal(parseInstanceUrl('http://example.com:8080/sourcegraph/'), 'http://example.com:8080/sourcegraph');
    assert.equal(
      apiUrl('http://example.com:8080/sourcegraph', [140, 'questions']).toString(),
      'http://example.com:8080/sourcegraph/.api/deepsearch/v1/140/questions',
    );
  });

  it('adds https:// to a bare host and drops a pasted API path', () => {
    assert.equal(parseInstanceUrl('sourcegraph.example.com'), 'https://sourcegraph.example.com');
    assert.equal(parseInstanceUrl('https://sourcegraph.example.com/.api/deepsearch/v1'), 'https://sourcegraph.example.com');
  });

  it('rejects other schemes and garbage with a configuration error', () => {
    for (const input of ['ftp://example.com', 'javascript://alert(1)', 'https://', 'http://exa mple.com']) {
      assert.throws(
        () => parseInstanceUrl(input),
        (error: unknown) => error instanceof DeepSearchError && error.kind === 'configuration' && /http:\/\/ or https:\/\//.test(error.message),
        input,
      );
    }
  });

  it('builds list URLs with only the query parameters that are set', () => {
    const url = apiUrl('https://h', [], { page_first: 10, sort: '-id', page_after: undefined, filter_is_starred: false });
    assert.equal(url.toString(), 'https://h/.api/deepsearch/v1?page_first=10&sort=-id&filter_is_starred=false');
  });

  it('uses the share URL as the web URL of a conversation, else the read token', () => {
    const instance = 'https://example.com/sg';
    assert.equal(
      conversationWebUrl(instance, { shareUrl: 'https://sourcegraph.corp/deepsearch/abc', readToken: 'abc' }),
      'https://sourcegraph.corp/deepsearch/abc',
    );
    assert.equal(conversationWebUrl(instance, { readToken: 'abc' }), 'https://example.com/sg/deepsearch/abc');
    assert.equal(conversationWebUrl(instance, { shareUrl: 'javascript:alert(1)', readToken: 'abc' }), 'https://example.com/sg/deepsearch/abc');
    assert.equal(conversationWebUrl(instance, {}), undefined);
  });
});

describe('repository links', () => {
  it('parses a repository link', () => {
    assert.deepEqual(parseRepoLink('/github.com/org/repo'), { repoName: 'github.com/org/repo', target: 'repository' });
  });

  it('parses a file link with revision and line range', () => {
    assert.deepEqual(parseRepoLink('/github.com/org/repo@feature/x/-/blob/src/main.go?L10-20'), {
      repoName: 'github.com/org/repo',
      revision: 'feature/x',
      path: 'src/main.go',
      target: 'file',
      startLine: 10,
      endLine: 20,
    });
  });

  it('parses a single line in the fragment and a directory link', () => {
    assert.equal(parseRepoLink('/r/-/blob/a.ts#L7')!.startLine, 7);
    assert.deepEqual(parseRepoLink('/r/-/tree/docs/'), { repoName: 'r', path: 'docs', target: 'directory' });
  });

  it('parses absolute links on the instance, stripping its path prefix, and rejects other hosts', () => {
    const instance = 'https://example.com/sg';
    assert.equal(parseRepoLink('https://example.com/sg/github.com/org/repo/-/blob/README.md', instance)!.path, 'README.md');
    assert.equal(parseRepoLink('https://evil.example/github.com/org/repo', instance), undefined);
  });

  it('rejects links that are not repository links', () => {
    assert.equal(parseRepoLink('/.api/deepsearch/v1'), undefined);
    assert.equal(parseRepoLink('/'), undefined);
  });
});
