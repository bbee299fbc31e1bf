/**
 * The reads of the citation check, over a real repository as the engine serves it: files named the
 * way the engine names them (the repository's own name, the path normalised), nothing outside the
 * commit, a revision a link names, and a line found with the tools' search.
 */
import assert from 'node:assert/strict';
import { citationReader } from '../../../src/engine/answers/citationReader';
import { checkCitations } from '../../../src/engine/answers/citations';
import { createTestRepo, type TestRepo } from '../../support/gitRepos';
import { toolContext } from './search/searchFiles';

const REPO = 'github.com/acme/app';

describe('the citation reader', function () {
  let repo: TestRepo;
  before(async function () {
    repo = await createTestRepo({
      name: 'app',
      commits: [
        { message: 'first', files: { 'lib/utils.js': 'exports.sign = function sign(val) {\n  return val;\n};\n' } },
        { message: 'second', files: { 'lib/utils.js': 'exports.sign = function sign(val, secret) {\n  return val + secret;\n};\n' } },
      ],
    });
    await repo.git('tag', 'v1', 'HEAD~1');
  });
  after(async function () {
    await repo?.remove();
  });

  it("names a file by its repository's own name and the normalised path", async function () {
    const reader = citationReader(toolContext(repo, REPO));
    const file = await reader.file('GitHub.com/ACME/app', './lib//utils.js');
    assert.deepEqual(file && { repo: file.repo, path: file.path, first: file.lines[0] }, {
      repo: REPO,
      path: 'lib/utils.js',
      first: 'exports.sign = function sign(val, secret) {',
    });
  });

  it('reads nothing outside the commit, in a repository it does not serve, or at a revision it does not have', async function () {
    const reader = citationReader(toolContext(repo, REPO));
    for (const path of ['../app/lib/utils.js', 'lib/../../utils.js', '/etc/passwd', 'lib']) assert.equal(await reader.file(REPO, path), undefined, path);
    assert.equal(await reader.file('github.com/acme/billing', 'lib/utils.js'), undefined);
    assert.equal(await reader.file(REPO, 'lib/utils.js', 'no-such-branch'), undefined);
  });

  it('reads a file at the revision a link names, and finds a line in the repository', async function () {
    const reader = citationReader(toolContext(repo, REPO));
    assert.equal((await reader.file(REPO, 'lib/utils.js', 'v1'))?.lines[1], '  return val;');
    assert.deepEqual(await reader.find(REPO, 'return val + secret;'), { path: 'lib/utils.js', line: 2 });
  });

  it('lets the check write a kept link the way the engine does', async function () {
    const context = toolContext(repo, REPO);
    const answer = `[sign](http://localhost:1/GitHub.com/ACME/app/-/blob/lib/x/%2e%2e/utils.js?L1-2) and [gone](http://127.0.0.1:1/${REPO}/-/blob/lib%2F..%2F..%2Fapp/lib/utils.js)`;
    const checked = await checkCitations(answer, context.instanceUrl, citationReader(context));
    assert.ok(
      checked.markdown.startsWith(`[sign](http://127.0.0.1:1/${REPO}/-/blob/lib/utils.js?L1-2) and gone\n\n_Citations checked: one link`),
      checked.markdown,
    );
  });
});
