/**
 * The citation check of answers a model writes (issue 24): links into files checked against a real
 * git repository made here, through a reader that runs git as the engine does (`git show`, `git grep`).
 */
import assert from 'node:assert/strict';
import { checkCitations, type CitationReader } from '../../../src/engine/answers/citations';
import { InstanceAddress } from '../../../src/engine/answers/instanceLinks';
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

/**
 * A reader over the repository's HEAD (or a revision), with git, naming files as the engine does:
 * the repository's own name for any casing of it, the path normalised (`..` reads nothing).
 */
function gitReader(repo: TestRepo, reads: string[] = []): CitationReader {
  return {
    file: async (name, path, revision) => {
      reads.push(path);
      if (name.toLowerCase() !== REPO) return undefined;
      const parts = path.split('/').filter((part) => part !== '' && part !== '.');
      if (parts.includes('..')) return undefined;
      const normalised = parts.join('/');
      const text = await repo.git('show', `${revision ?? 'HEAD'}:${normalised}`).catch(() => undefined);
      return text === undefined ? undefined : { repo: REPO, path: normalised, lines: text.replace(/\n$/, '').split('\n') };
    },
    find: async (name, text) => {
      if (name.toLowerCase() !== REPO) return undefined;
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

/** The canonical link to lines 1-2 of lib/utils.js, as the engine writes it. */
const REAL = link('lib/utils.js', '1-2');
const INVENTED = link('lib/nope.js', '1-2');

interface FormCase {
  form: string;
  /** The answer, given the link as this form spells it. */
  write: (url: string) => string;
  /** How this form spells a link to lib/utils.js, and to a file that does not exist. */
  real: string;
  invented: string;
  /** The answer once checked: the real link kept (in its canonical spelling), the invented one removed. */
  kept: string;
  removed: string;
}

const inline = (url: string) => `See [utils](${url}).`;
const FORMS: FormCase[] = [
  { form: 'inline', write: inline, real: REAL, invented: INVENTED, kept: `See [utils](${REAL}).`, removed: 'See utils.' },
  {
    form: 'inline with a title',
    write: (url) => `See [utils](${url} "the signer").`,
    real: REAL,
    invented: INVENTED,
    kept: `See [utils](${REAL} "the signer").`,
    removed: 'See utils.',
  },
  { form: '<…> destination', write: (url) => `See [utils](<${url}>).`, real: REAL, invented: INVENTED, kept: `See [utils](<${REAL}>).`, removed: 'See utils.' },
  { form: 'image', write: (url) => `See ![utils](${url}).`, real: REAL, invented: INVENTED, kept: `See ![utils](${REAL}).`, removed: 'See utils.' },
  {
    form: 'full reference and its definition',
    write: (url) => `See [utils][s].\n\n[s]: ${url}`,
    real: REAL,
    invented: INVENTED,
    kept: `See [utils][s].\n\n[s]: ${REAL}`,
    removed: 'See utils.\n\n',
  },
  {
    form: 'collapsed reference',
    write: (url) => `See [s][].\n\n[s]: ${url}`,
    real: REAL,
    invented: INVENTED,
    kept: `See [s][].\n\n[s]: ${REAL}`,
    removed: 'See s.\n\n',
  },
  {
    form: 'shortcut reference',
    write: (url) => `See [s].\n\n[s]: ${url}`,
    real: REAL,
    invented: INVENTED,
    kept: `See [s].\n\n[s]: ${REAL}`,
    removed: 'See s.\n\n',
  },
  {
    form: 'definition with a title, in another spelling',
    write: (url) => `See [s].\n\n[s]: ${url} "utils"`,
    real: `http://localhost:9/GitHub.com/ACME/app/-/blob/./lib//utils.js?L1-2`,
    invented: `http://localhost:9/GitHub.com/ACME/app/-/blob/lib/nope.js`,
    kept: `See [s].\n\n[s]: ${REAL} "utils"`,
    removed: 'See s.\n\n',
  },
  {
    form: 'autolink',
    write: (url) => `See <${url}>.`,
    real: REAL,
    invented: INVENTED,
    kept: `See <${REAL}>.`,
    removed: `See ${INVENTED.replace('://', ':\\/\\/')}.`,
  },
  {
    form: 'bare URL',
    write: (url) => `See ${url} for it.`,
    real: REAL,
    invented: INVENTED,
    kept: `See ${REAL} for it.`,
    removed: `See ${INVENTED.replace('://', ':\\/\\/')} for it.`,
  },
  {
    form: 'raw HTML',
    write: (url) => `See <a href="${url}">utils</a>.`,
    real: REAL,
    invented: INVENTED,
    kept: `See <a href="${REAL}">utils</a>.`,
    removed: 'See <a href="">utils</a>.',
  },
  {
    form: 'relative to the instance',
    write: inline,
    real: `/${REPO}/-/blob/lib/utils.js?L1-2`,
    invented: `/${REPO}/-/blob/lib/nope.js?L1-2`,
    kept: `See [utils](${REAL}).`,
    removed: 'See utils.',
  },
  {
    form: 'relative without a leading slash',
    write: inline,
    real: `${REPO}/-/blob/lib/utils.js?L1-2`,
    invented: `${REPO}/-/blob/lib/nope.js?L1-2`,
    kept: `See [utils](${REAL}).`,
    removed: 'See utils.',
  },
  {
    form: 'localhost',
    write: inline,
    real: `http://localhost:9/${REPO}/-/blob/lib/utils.js?L1-2`,
    invented: `http://localhost:9/${REPO}/-/blob/lib/nope.js?L1-2`,
    kept: `See [utils](${REAL}).`,
    removed: 'See utils.',
  },
  {
    form: '[::1]',
    write: inline,
    real: `http://[::1]:9/${REPO}/-/blob/lib/utils.js?L1-2`,
    invented: `http://[::1]:9/${REPO}/-/blob/lib/nope.js?L1-2`,
    kept: `See [utils](${REAL}).`,
    removed: 'See utils.',
  },
  {
    form: 'another 127.x.x.x and a #L range',
    write: inline,
    real: `http://127.0.0.2:9/${REPO}/-/blob/lib/utils.js#L1-L2`,
    invented: `http://127.1:9/${REPO}/-/blob/lib/nope.js#L1-2`,
    kept: `See [utils](${REAL}).`,
    removed: 'See utils.',
  },
  {
    form: 'percent-encoded',
    write: inline,
    real: `${URL}/github.com%2Facme%2Fapp/-/blob/lib%2F%75tils.js?L1-2`,
    invented: `${URL}/${REPO}/-/blob/lib%2F..%2F..%2Futils.js?L1-2`,
    kept: `See [utils](${REAL}).`,
    removed: 'See utils.',
  },
  {
    form: '..',
    write: inline,
    real: `${URL}/${REPO}/-/blob/lib/x/../utils.js?L1-2`,
    invented: `${URL}/${REPO}/-/blob/../../../../etc/passwd`,
    kept: `See [utils](${REAL}).`,
    removed: 'See utils.',
  },
  {
    form: '%2e%2e',
    write: inline,
    real: `${URL}/${REPO}/-/blob/lib/x/%2e%2e/utils.js?L1-2`,
    invented: `${URL}/${REPO}/-/blob/lib/%2e%2E/%2e%2e/%2e%2e/x.js`,
    kept: `See [utils](${REAL}).`,
    removed: 'See utils.',
  },
  {
    form: "another casing of the repository's name, and a path with ./ and //",
    write: inline,
    real: `${URL}/GitHub.com/ACME/app/-/blob/./lib//utils.js?L1-2`,
    invented: `${URL}/GitHub.com/ACME/billing/-/blob/lib/utils.js?L1-2`,
    kept: `See [utils](${REAL}).`,
    removed: 'See utils.',
  },
  {
    form: 'backslashes and a tab, as a browser reads them',
    write: (url) => `See [utils](<${url}>).`,
    real: `http://127.0.0.1:9\\\\github.com\\\\acme\\\\app\\\\-\\\\bl\tob\\\\lib\\\\utils.js?L1-2`,
    invented: `http:\\\\127.0.0.1:9\\\\github.com\\\\acme\\\\app\\\\-\\\\blob\\\\lib\\\\nope.js`,
    kept: `See [utils](${REAL}).`,
    removed: 'See utils.',
  },
  {
    form: 'character references, which the browser reads in the address',
    write: inline,
    real: `http&#58;//127.0.0.1:9/github.com/acme/app&sol;&#45;/blob/lib/utils.js?L1-2`,
    invented: `http://127.0.0.1:9/github.com/acme/app&#x2F;&#45;/blob/lib/nope.js`,
    kept: `See [utils](http&#58;//127.0.0.1:9/github.com/acme/app&sol;&#45;/blob/lib/utils.js?L1-2).`,
    removed: 'See utils.',
  },
  {
    form: 'a revision after the name',
    write: inline,
    real: `${URL}/${REPO}@main/-/blob/lib/utils.js?L1-2`,
    invented: `${URL}/${REPO}@no-such-branch/-/blob/lib/utils.js?L1-2`,
    kept: `See [utils](${URL}/${REPO}@main/-/blob/lib/utils.js?L1-2).`,
    removed: 'See utils.',
  },
  {
    form: 'over two lines of a quote',
    write: (url) => `> See [the\n> utils](${url}).`,
    real: REAL,
    invented: INVENTED,
    kept: `> See [the\n> utils](${REAL}).`,
    removed: '> See the\nutils.',
  },
  {
    form: 'in a list item and a table',
    write: (url) => `- See [utils](${url}).\n\n| a | b |\n| - | - |\n| x | [utils](${url}) |`,
    real: REAL,
    invented: INVENTED,
    kept: `- See [utils](${REAL}).\n\n| a | b |\n| - | - |\n| x | [utils](${REAL}) |`,
    removed: '- See utils.\n\n| a | b |\n| - | - |\n| x | utils |',
  },
];

describe('citations in every form the panel links', function () {
  let repo: TestRepo;
  before(async function () {
    repo = await createTestRepo({ name: 'app', commits: [{ message: 'app', files: FILES }] });
  });
  after(async function () {
    await repo?.remove();
  });

  for (const { form, write, real, invented, kept, removed } of FORMS) {
    it(`${form}: a real link is kept in the engine's spelling, an invented one removed`, async function () {
      const good = await checkCitations(write(real), URL, gitReader(repo));
      assert.equal(good.markdown, kept);
      assert.deepEqual([good.repaired, good.removed], [0, 0]);
      const bad = await checkCitations(write(invented), URL, gitReader(repo));
      const [text, note] = bad.markdown.split('\n\n_Citations checked: ');
      assert.equal(text, removed);
      assert.ok(bad.removed >= 1, bad.markdown);
      assert.match(note ?? '', /named a file or lines that do not exist and (was|were) removed\._$/);
    });
  }

  it('finds no links in code spans and code blocks, and leaves links elsewhere alone', async function () {
    const answer = `Not a link: \`[utils](${INVENTED})\`, nor\n\n\`\`\`md\n[utils](${INVENTED})\n\`\`\`\n\nand [docs](https://github.com/acme/app/-/blob/main/lib/nope.js), [page](${URL}/search?q=x).`;
    const checked = await checkCitations(answer, URL, gitReader(repo));
    assert.equal(checked.markdown, answer);
    assert.equal(checked.checked, 0);
  });

  it('checks links inside the label of another link', async function () {
    const answer = (url: string) => `See [<${url}>](https://example.com/a) and [![utils](${url})](https://example.com/b).`;
    const good = await checkCitations(answer(REAL), URL, gitReader(repo));
    assert.equal(good.markdown, answer(REAL));
    const bad = await checkCitations(answer(INVENTED), URL, gitReader(repo));
    assert.ok(bad.markdown.startsWith(`See [${INVENTED.replace('://', ':\\/\\/')}](https://example.com/a) and [utils](https://example.com/b).`), bad.markdown);
    assert.equal(bad.removed, 2);
  });

  it('reads a bare address after a word that ends in www, as the panel does', async function () {
    const checked = await checkCitations(`See awww.x/${INVENTED} now.`, URL, gitReader(repo));
    assert.ok(checked.markdown.startsWith(`See awww.x/${INVENTED.replace('://', ':\\/\\/')} now.`), checked.markdown);
  });

  it('does not let a removed link become a bare address again', async function () {
    const checked = await checkCitations(`See [${INVENTED}](${INVENTED}) and [www.example.com](${INVENTED}).`, URL, gitReader(repo));
    assert.ok(checked.markdown.startsWith(`See ${INVENTED.replace('://', ':\\/\\/')} and www\\.example.com.`), checked.markdown);
    assert.equal(checked.removed, 2);
  });
});

describe('quotes that are real', function () {
  let repo: TestRepo;
  before(async function () {
    repo = await createTestRepo({ name: 'app', commits: [{ message: 'app', files: FILES }] });
  });
  after(async function () {
    await repo?.remove();
  });

  const quoted = (url: string, ...lines: string[]) => `The cookie [is signed](${url}):\n\n\`\`\`js\n${lines.join('\n')}\n\`\`\`\n`;
  const check = (answer: string) => checkCitations(answer, URL, gitReader(repo));

  it('keeps a link whose lines hold every line of its quote, whitespace aside', async function () {
    const answer = quoted(
      link('lib/response.js', '3-7'),
      'res.cookie = function (name, value, options) {',
      'if (signed) {',
      "  val = 's:'  + sign(val, secret);",
    );
    const checked = await check(answer);
    assert.equal(checked.markdown, answer);
    assert.deepEqual([checked.checked, checked.repaired, checked.removed], [1, 0, 0]);
  });

  it('reads a quote in a list item to its indented closing fence', async function () {
    const answer = `- The cookie [is signed](${link('lib/response.js', '3-7')}):\n\n  \`\`\`js\n  if (signed) {\n  \`\`\`\n\n  and more words after it.\n`;
    const checked = await check(answer);
    assert.equal(checked.markdown, answer);
  });

  it('unlinks a quote whose first line is real and the rest invented', async function () {
    const answer = quoted(
      link('lib/response.js', '3-7'),
      'res.cookie = function (name, value, options) {',
      "  if (!name) throw new Error('no name');",
      '  return this;',
    );
    const checked = await check(answer);
    assert.ok(checked.markdown.startsWith('The cookie is signed:\n\n```js\n'), checked.markdown);
    assert.deepEqual([checked.repaired, checked.removed], [0, 1]);
  });

  it('unlinks a quote of real lines that are not consecutive in the file', async function () {
    const answer = quoted(link('lib/response.js', '3-7'), 'res.cookie = function (name, value, options) {', "    val = 's:' + sign(val, secret);");
    const checked = await check(answer);
    assert.ok(checked.markdown.startsWith('The cookie is signed:'), checked.markdown);
    assert.equal(checked.removed, 1);
  });

  it('takes a line that is only an ellipsis for elided lines', async function () {
    for (const ellipsis of ['...', '  // ...', '// … the signing']) {
      const answer = quoted(link('lib/response.js', '3-7'), 'res.cookie = function (name, value, options) {', ellipsis, '  }', '};');
      const checked = await check(answer);
      assert.equal(checked.markdown, answer, ellipsis);
    }
    const invented = quoted(link('lib/response.js', '3-7'), 'res.cookie = function (name, value, options) {', '// ...', '  return cookies;');
    assert.equal((await check(invented)).removed, 1);
  });

  it('moves a link to where its whole quote is: other lines of its file, or another file', async function () {
    const sameFile = quoted(link('lib/response.js', '1-3'), 'res.cookie = function (name, value, options) {', '  if (signed) {');
    const movedHere = await check(sameFile);
    assert.ok(movedHere.markdown.startsWith(`The cookie [is signed](${link('lib/response.js', '3-4')}):`), movedHere.markdown);
    const otherFile = quoted(link('lib/response.js', '3-7'), 'exports.sign = function sign(val, secret) {', '  return val + secret;');
    const movedThere = await check(otherFile);
    assert.ok(movedThere.markdown.startsWith(`The cookie [is signed](${link('lib/utils.js', '1-2')}):`), movedThere.markdown);
    assert.deepEqual([movedHere.repaired, movedThere.repaired], [1, 1]);
  });
});

describe('citations checked within bounds', function () {
  let repo: TestRepo;
  before(async function () {
    repo = await createTestRepo({ name: 'app', commits: [{ message: 'app', files: FILES }] });
  });
  after(async function () {
    await repo?.remove();
  });

  it('reads for 200 links at most in an answer of a megabyte, and makes the rest text', async function () {
    const line = (index: number) => `Step ${index}: [utils](${link(index % 2 ? 'lib/utils.js' : `lib/nope${index}.js`, '1-2')}) and some words.\n`;
    let answer = '';
    for (let index = 0; answer.length < 1024 * 1024 - 200; index++) answer += line(index);
    const reads: string[] = [];
    const checked = await checkCitations(answer, URL, gitReader(repo, reads));
    assert.equal(checked.checked, 200);
    assert.ok(reads.length <= 200, `${reads.length} reads`);
    const live = checked.markdown.match(/\]\(http:\/\/127\.0\.0\.1:9\//g) ?? [];
    assert.equal(live.length, 100);
    assert.match(checked.markdown, /links past the first 200 could not be checked and were made text\._$/);
  });

  it('reads answers that cost marked more than linear time in one pass each', async function () {
    for (const noise of ['_a'.repeat(300_000), '***a'.repeat(150_000), 'a_'.repeat(300_000)]) {
      const checked = await checkCitations(`${noise}\n\nSee [utils](${INVENTED}).`, URL, gitReader(repo));
      assert.ok(checked.markdown.includes('See utils.'), noise.slice(0, 10));
    }
  });

  it('shows an answer nested too deeply to read as text, so that none of its links is live', async function () {
    for (const nested of ['- '.repeat(50_000), '1. '.repeat(50_000), '> '.repeat(50_000), `${' '.repeat(10_000)}- `]) {
      const checked = await checkCitations(`${nested}[utils](${INVENTED})`, URL, gitReader(repo));
      assert.match(
        checked.markdown,
        /^_Citations could not be checked: it nests lists or quotes more than 64 levels deep, so the answer is shown as text\._\n\n```text\n/,
      );
      assert.equal(checked.checked, 0);
    }
  });

  it('follows a long answer of lists, quotes, tables and code to its last link', async function () {
    const block = (index: number) =>
      `${index + 1}. Step [${index}](https://example.com/${index}) goes on\n   over a second line\n\n   > quoted with [a link](https://example.com/q${index})\n   > and more\n\n   \`\`\`js\n   [not a link](${INVENTED})\n   \`\`\`\n\n| a | \`b \\| c\` |\n| - | - |\n| [x](https://example.com/t${index}) | y |\n\n`;
    let answer = '';
    for (let index = 0; answer.length < 400_000; index++) answer += block(index);
    const checked = await checkCitations(`${answer}Last: [utils](${INVENTED}).`, URL, gitReader(repo));
    assert.ok(checked.markdown.startsWith(answer), checked.markdown.slice(0, 300));
    assert.ok(checked.markdown.slice(answer.length).startsWith('Last: utils.'), checked.markdown.slice(answer.length));
    assert.deepEqual([checked.checked, checked.removed], [1, 1]);
  });
});

describe('the instance an answer links into', function () {
  const instance = new InstanceAddress('https://sg.example.com/prefix/');

  it('reads links on its origin under its path, and relative ones under its path too', function () {
    const file = { repo: REPO, path: 'src/a.ts', range: { start: 3, end: 3 } };
    assert.deepEqual(instance.fileLink(`https://SG.example.com:443/prefix/${REPO}/-/blob/src/a.ts#L3`), file);
    assert.deepEqual(instance.fileLink(`/${REPO}/-/blob/src/a.ts?L3`), file);
    assert.deepEqual(instance.fileLink(`//sg.example.com/prefix/${REPO}/-/blob/src/a.ts?L3`), file);
  });

  it('refuses a file link that leads out of its path, and leaves other hosts and pages alone', function () {
    assert.equal(instance.fileLink(`https://sg.example.com/other/${REPO}/-/blob/src/a.ts`), 'unreadable');
    assert.equal(instance.fileLink(`https://sg.example.com/prefix/${REPO}/-/blob/`), 'unreadable');
    assert.equal(instance.fileLink(`https://sg.example.com/prefix/${REPO}@/-/blob/a.ts`), 'unreadable');
    assert.equal(instance.fileLink(`https://sg.example.com/prefix/${REPO}/-/blob/a%ZZ.ts`), 'unreadable');
    assert.equal(instance.fileLink(`http://localhost/prefix/${REPO}/-/blob/src/a.ts`), undefined);
    assert.equal(instance.fileLink(`https://github.com/acme/app/-/blob/main/src/a.ts`), undefined);
    assert.equal(instance.fileLink(`https://sg.example.com/prefix/${REPO}/-/tree/src`), undefined);
    assert.equal(instance.fileLink('mailto:someone@sg.example.com'), undefined);
  });

  it('writes a file link as the engine does, a revision after the name', function () {
    assert.equal(
      instance.fileUrl({ repo: REPO, revision: 'v1.2', path: 'src/my file(1).ts', range: { start: 1, end: 2 } }),
      `https://sg.example.com/prefix/${REPO}@v1.2/-/blob/src/my%20file%281%29.ts?L1-2`,
    );
  });

  it('takes every loopback spelling with the same port for the engine on 127.0.0.1, and no other port', function () {
    const engine = new InstanceAddress('http://127.0.0.1:9');
    for (const host of [
      'localhost',
      'LOCALHOST.',
      'app.localhost',
      '127.0.0.1',
      '127.1',
      '0x7f.0.0.1',
      '2130706433',
      '127.8.9.10',
      '[::1]',
      '[0:0::1]',
      '[::ffff:127.0.0.1]',
      '0.0.0.0',
    ])
      assert.deepEqual(engine.fileLink(`http://${host}:9/${REPO}/-/blob/a.ts`), { repo: REPO, path: 'a.ts' }, host);
    assert.equal(engine.fileLink(`http://localhost:10/${REPO}/-/blob/a.ts`), undefined);
    assert.equal(engine.fileLink(`http://example.com:9/${REPO}/-/blob/a.ts`), undefined);
  });
});
