/**
 * The citation check of answers a model writes (issue 24): links into files checked against a real
 * git repository made here, through a reader that runs git as the engine does (`git show`, `git grep`).
 */
import assert from 'node:assert/strict';
import { checkCitations, type CitationReader } from '../../../src/engine/answers/citations';
import { createTestRepo, type TestRepo } from '../../support/gitRepos';

const URL = 'http://127.0.0.1:9';
const REPO = 'github.com/acme/app';

const FILES = {
  'lib/response.js': [
    '// the response',
    '',
    'res.cookie = function (name, value, options) {',
    '  if (signed) {',
    "    val = 's:' + sign(val, secret);",
    '  }',
    '};',
    '',
  ].join('\n'),
  'lib/utils.js': ['exports.sign = function sign(val, secret) {', '  return val + secret;', '};', ''].join('\n'),
};

/** A reader over the repository's HEAD, with git. */
function gitReader(repo: TestRepo, reads: string[] = []): CitationReader {
  return {
    lines: async (name, path) => {
      reads.push(path);
      if (name !== REPO) return undefined;
      const text = await repo.git('show', `HEAD:${path}`).catch(() => undefined);
      return text?.replace(/\n$/, '').split('\n');
    },
    find: async (name, text) => {
      if (name !== REPO) return undefined;
      const out = await repo.git('grep', '-n', '-F', '-e', text, 'HEAD').catch(() => '');
      const match = /^HEAD:([^:]+):(\d+):/.exec(out);
      return match?.[1] ? { path: match[1], line: Number(match[2]) } : undefined;
    },
  };
}

function link(path: string, range: string): string {
  return `${URL}/${REPO}/-/blob/${path}?L${range}`;
}

describe('citations that are real', function () {
  let repo: TestRepo;
  before(async function () {
    repo = await createTestRepo({ name: 'app', commits: [{ message: 'app', files: FILES }] });
  });
  after(async function () {
    await repo?.remove();
  });

  it('keeps a link whose lines hold the code it quotes', async function () {
    const answer = `It signs here: [lib/response.js:5](${link('lib/response.js', '3-7')}):\n\n\`\`\`js\n    val = 's:' + sign(val, secret);\n\`\`\``;
    const checked = await checkCitations(answer, URL, gitReader(repo));
    assert.equal(checked.markdown, answer);
    assert.deepEqual([checked.checked, checked.repaired, checked.removed], [1, 0, 0]);
  });

  it('moves a link to the lines that hold its quote, in its file or in another', async function () {
    const wrongLines = `[lib/response.js:40](${link('lib/response.js', '40-42')}):\n\n\`\`\`js\nval = 's:' + sign(val, secret);\n\`\`\``;
    const invented = `[lib/signing.js:2](${link('lib/signing.js', '2-3')}):\n\n\`\`\`js\nexports.sign = function sign(val, secret) {\n  return val + secret;\n\`\`\``;
    const checked = await checkCitations(`${wrongLines}\n\n${invented}`, URL, gitReader(repo));
    assert.deepEqual([checked.repaired, checked.removed], [2, 0]);
    assert.ok(checked.markdown.includes(`[lib/response.js:40](${link('lib/response.js', '5-5')})`), checked.markdown);
    assert.ok(checked.markdown.includes(`[lib/signing.js:2](${link('lib/utils.js', '1-2')})`), checked.markdown);
    assert.match(checked.markdown, /_Citations checked: 2 links pointed at lines that do not hold what was cited and now point where the code is\._$/);
  });

  it('removes a link to a file or code that does not exist, keeping its text, and says so', async function () {
    const answer = `See [the retry loop](${link('lib/retry.js', '1-9')}):\n\n\`\`\`js\nwhile (attempts < max) retry();\n\`\`\`\n\nand [the docs](${link('docs/missing.md', '3')}).`;
    const checked = await checkCitations(answer, URL, gitReader(repo));
    assert.deepEqual([checked.repaired, checked.removed], [0, 2]);
    assert.ok(checked.markdown.startsWith('See the retry loop:\n\n```js\nwhile (attempts < max) retry();\n```\n\nand the docs.'), checked.markdown);
    assert.match(checked.markdown, /2 links named a file or lines that do not exist and were removed/);
  });

  it('brings a range past the end of a file back inside it, and leaves other links alone', async function () {
    const answer = `[utils](${link('lib/utils.js', '10-20')}) and [elsewhere](https://example.com/a/-/blob/b.js?L1-2) and [relative](/x).`;
    const checked = await checkCitations(answer, URL, gitReader(repo));
    assert.equal(
      checked.markdown.split('\n')[0],
      `[utils](${link('lib/utils.js', '3-3')}) and [elsewhere](https://example.com/a/-/blob/b.js?L1-2) and [relative](/x).`,
    );
    assert.deepEqual([checked.checked, checked.repaired], [1, 1]);
  });
});
