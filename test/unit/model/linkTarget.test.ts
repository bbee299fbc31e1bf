/**
 * What a click on a link in an answer or source means: a file of the instance, a browser page, or
 * nothing at all for links that could run code, read local files or leak credentials.
 */
import assert from 'node:assert/strict';
import { linkTarget, type LinkTarget } from '../../../src/model/linkTarget';

const INSTANCE = 'https://sourcegraph.example.com';
const PREFIXED = 'https://example.com/sourcegraph';

function expectFile(target: LinkTarget): Extract<LinkTarget, { kind: 'file' }> {
  assert.equal(target.kind, 'file', `expected a file, got ${JSON.stringify(target)}`);
  return target;
}

function expectRefused(target: LinkTarget): string {
  assert.equal(target.kind, 'refused', `expected a refusal, got ${JSON.stringify(target)}`);
  return target.reason;
}

describe('linkTarget', () => {
  describe('files on the instance', () => {
    it('opens a relative blob link as a file with its line range', () => {
      const target = expectFile(linkTarget('/github.com/acme/app/-/blob/src/config.ts?L3-5', INSTANCE));
      assert.equal(target.repoName, 'github.com/acme/app');
      assert.equal(target.path, 'src/config.ts');
      assert.equal(target.startLine, 3);
      assert.equal(target.endLine, 5);
      assert.equal(target.revision, undefined);
      assert.equal(target.url, `${INSTANCE}/github.com/acme/app/-/blob/src/config.ts?L3-5`);
    });

    it('opens a relative blob link without lines as a file with no range', () => {
      const target = expectFile(linkTarget('/github.com/acme/app/-/blob/README.md', INSTANCE));
      assert.equal(target.path, 'README.md');
      assert.equal(target.startLine, undefined);
      assert.equal(target.endLine, undefined);
    });

    it('ignores whitespace around the link', () => {
      assert.equal(expectFile(linkTarget('  /github.com/acme/app/-/blob/README.md\n', INSTANCE)).path, 'README.md');
    });

    it('keeps the revision after @', () => {
      const target = expectFile(linkTarget('/github.com/acme/app@v1.2.3/-/blob/lib/retry_policy.py?L4', INSTANCE));
      assert.equal(target.repoName, 'github.com/acme/app');
      assert.equal(target.revision, 'v1.2.3');
      assert.equal(target.path, 'lib/retry_policy.py');
      assert.equal(target.startLine, 4);
      assert.equal(target.endLine, 4);
    });

    it('opens an absolute link on the instance origin as a file', () => {
      const target = expectFile(linkTarget(`${INSTANCE}/github.com/acme/app/-/blob/src/server.ts#L2-3`, INSTANCE));
      assert.equal(target.repoName, 'github.com/acme/app');
      assert.equal(target.path, 'src/server.ts');
      assert.equal(target.startLine, 2);
      assert.equal(target.endLine, 3);
    });

    it('opens relative and absolute links under an instance path prefix as files', () => {
      const relative = expectFile(linkTarget('/github.com/acme/app/-/blob/src/config.ts?L10', PREFIXED));
      assert.equal(relative.repoName, 'github.com/acme/app');
      assert.equal(relative.path, 'src/config.ts');
      assert.equal(relative.url, `${PREFIXED}/github.com/acme/app/-/blob/src/config.ts?L10`);

      const absolute = expectFile(linkTarget(`${PREFIXED}/github.com/acme/app@main/-/blob/src/config.ts?L10-12`, PREFIXED));
      assert.equal(absolute.repoName, 'github.com/acme/app');
      assert.equal(absolute.revision, 'main');
      assert.equal(absolute.path, 'src/config.ts');
      assert.equal(absolute.startLine, 10);
      assert.equal(absolute.endLine, 12);
    });

    it('works with a local engine on http and a port', () => {
      const engine = 'http://127.0.0.1:40123';
      const target = expectFile(linkTarget(`${engine}/github.com/acme/app/-/blob/src/config.ts?L1`, engine));
      assert.equal(target.path, 'src/config.ts');
    });
  });

  describe('pages for the browser', () => {
    it('names the repository of a repository page, so a local checkout can be shown instead', () => {
      assert.deepEqual(linkTarget('/github.com/acme/app', INSTANCE), {
        kind: 'browser',
        repoName: 'github.com/acme/app',
        url: `${INSTANCE}/github.com/acme/app`,
      });
      assert.equal((linkTarget('/search?q=parseConfig', INSTANCE) as { repoName?: string }).repoName, undefined);
    });

    it('sends other instance pages (repository, directory, commits, search) to the browser', () => {
      for (const href of [
        '/github.com/acme/app',
        '/github.com/acme/app/-/tree/src',
        '/github.com/acme/app/-/commit/abc123',
        '/search?q=parseConfig',
        `${INSTANCE}/deepsearch/1c9f3b8e-0000-4000-8000-000000000000`,
      ]) {
        const target = linkTarget(href, INSTANCE);
        assert.equal(target.kind, 'browser', `${href}: ${JSON.stringify(target)}`);
        assert.ok((target as { url: string }).url.startsWith(`${INSTANCE}/`), href);
      }
    });

    it('sends a blob link on another https host to the browser, not to a file', () => {
      const target = linkTarget('https://github.com/acme/app/-/blob/src/config.ts?L3', INSTANCE);
      assert.deepEqual(target, { kind: 'browser', url: 'https://github.com/acme/app/-/blob/src/config.ts?L3' });
    });

    it('sends other https pages to the browser', () => {
      assert.deepEqual(linkTarget('https://developer.mozilla.org/en-US/docs/Web', INSTANCE), {
        kind: 'browser',
        url: 'https://developer.mozilla.org/en-US/docs/Web',
      });
    });

    it('hands a mail address to the system (the mail client), like a browser link', () => {
      assert.deepEqual(linkTarget('mailto:owner@example.com?subject=Retry', INSTANCE), { kind: 'browser', url: 'mailto:owner@example.com?subject=Retry' });
    });

    it('does not treat another port or scheme of the instance host as the instance', () => {
      assert.equal(linkTarget('https://sourcegraph.example.com:8443/github.com/acme/app/-/blob/a.ts', INSTANCE).kind, 'browser');
      assert.equal(linkTarget('http://sourcegraph.example.com/github.com/acme/app/-/blob/a.ts', INSTANCE).kind, 'browser');
    });
  });

  describe('refused links', () => {
    for (const href of [
      'javascript:alert(document.cookie)',
      'JavaScript:alert(1)',
      'java\tscript:alert(1)',
      'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
      'file:///etc/passwd',
      'vscode://vscode.git/clone?url=https://evil.example/x',
      'command:workbench.action.terminal.new',
      'ftp://example.com/file',
    ]) {
      it(`refuses ${href.replace(/\t/g, '\\t').slice(0, 40)}`, () => {
        assert.match(expectRefused(linkTarget(href, INSTANCE)), /not opened/);
      });
    }

    it('does not treat a protocol-relative link as the instance', () => {
      const target = linkTarget('//evil.example/github.com/acme/app/-/blob/a.ts', INSTANCE);
      assert.notEqual(target.kind, 'file');
      if (target.kind !== 'refused') assert.ok(!target.url.startsWith(INSTANCE), JSON.stringify(target));
    });

    it('refuses links that carry credentials, even on the instance', () => {
      assert.match(expectRefused(linkTarget('https://user:secret@evil.example/x', INSTANCE)), /credentials/);
      assert.match(expectRefused(linkTarget('https://user@sourcegraph.example.com/github.com/acme/app', INSTANCE)), /credentials/);
    });

    it('does not repeat credentials in the reason', () => {
      assert.ok(!expectRefused(linkTarget('https://user:secret@evil.example/x', INSTANCE)).includes('secret'));
    });

    it('refuses garbage that is not a link', () => {
      for (const href of ['', '   ', 'not a link', 'src/config.ts', 'http://', '::::']) {
        expectRefused(linkTarget(href, INSTANCE));
      }
    });

    it('shortens a long garbage link in the reason', () => {
      const reason = expectRefused(linkTarget(`not a link ${'x'.repeat(500)}`, INSTANCE));
      assert.ok(reason.length < 200, reason);
      assert.match(reason, /…/);
    });
  });
});
