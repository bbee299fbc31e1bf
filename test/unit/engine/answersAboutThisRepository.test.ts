/**
 * Questions a newcomer asks about this very repository, each with the file its answer must lead
 * with: the first link of the answer is to that file (the definition that answers), and the first
 * quote, from it, holds the code that answers. These fail if the answers drift back to leading with
 * tests, or with whatever mentions a word most.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { Answerer } from '../../../src/engine/answers/answerer';
import { discoverRepositories, type ServedRepository } from '../../../src/engine/git/repos';
import { createTempDir, DEFAULT_AUTHOR, git, removeDir } from '../../support/gitRepos';

const ROOT = path.resolve(__dirname, '..', '..', '..');
/**
 * The commit of this repository's own history the questions are asked of, not the moving tree: a
 * change elsewhere cannot make them fail or pass. Move it on deliberately, when an answer should
 * change with the code (every clone has it: CI runs on a clone with the whole history).
 */
const PINNED_COMMIT = 'd805cbc50fdabf7d3c6c55cb8ae649ae73667358';
/** What a newcomer would ask about: the sources, the tests and the docs (not dependencies or builds). */
const COPIED = ['src', 'test', 'bench', 'scripts', 'README.md', 'CHANGELOG.md', 'package.json'];
/** Not this file: its questions, word for word, would answer themselves. */
const THIS_FILE = path.relative(ROOT, __filename).split(path.sep).join('/');

const QUESTIONS: ReadonlyArray<{ question: string; leadsWith: string | readonly string[]; quotes: RegExp }> = [
  { question: 'How does the poller back off after errors?', leadsWith: 'src/conversations/poller.ts', quotes: /backoff|back off/i },
  // Since the engine has an OAuth server, "the Authorization header" names two files' topics; this asks for auth.ts alone.
  { question: 'Where does the engine compare tokens in constant time?', leadsWith: 'src/engine/http/auth.ts', quotes: /timingSafeEqual|constant time/ },
  { question: 'Where are the tool server endpoints defined?', leadsWith: 'src/contract/toolServers.ts', quotes: /TOOL_SERVER_ENDPOINTS/ },
  // Three that once led with tests, or with the OAuth token's session rather than the store.
  {
    question: 'How is the nonce for the webview content security policy generated?',
    leadsWith: 'src/vscode/conversations/panelHtml.ts',
    quotes: /randomBytes|nonce/,
  },
  // The retry loop (http.ts) and the decision which errors are retried (errors.ts) both answer it.
  { question: 'How are GET requests retried after network errors?', leadsWith: ['src/api/http.ts', 'src/api/errors.ts'], quotes: /attempt|retry/i },
  {
    question: 'Where does the extension keep the access token?',
    leadsWith: ['src/vscode/auth/credentialVault.ts', 'src/vscode/auth/session.ts'],
    quotes: /secrets/,
  },
];

describe('answers about this repository', function () {
  this.timeout(60_000);
  let copy: string;
  let repositories: ServedRepository[];

  // A git repository of this repository's files at the pinned commit, from git archive.
  before(async function () {
    const run = promisify(execFile);
    const known = await run('git', ['cat-file', '-t', `${PINNED_COMMIT}^{commit}`], { cwd: ROOT }).then(
      () => true,
      () => false,
    );
    assert.ok(known, `this checkout lacks commit ${PINNED_COMMIT}: run the tests in a clone with its history (git fetch --unshallow)`);
    copy = await createTempDir('dse-this-repo-');
    const archive = path.join(copy, '.archive.tar');
    await run('git', ['archive', '--format=tar', '-o', archive, PINNED_COMMIT, '--', ...COPIED, `:(exclude)${THIS_FILE}`], { cwd: ROOT });
    await run('tar', ['-x', '-f', archive, '-C', copy]);
    await rm(archive);
    const author = {
      GIT_AUTHOR_NAME: DEFAULT_AUTHOR.name,
      GIT_AUTHOR_EMAIL: DEFAULT_AUTHOR.email,
      GIT_COMMITTER_NAME: DEFAULT_AUTHOR.name,
      GIT_COMMITTER_EMAIL: DEFAULT_AUTHOR.email,
    };
    await git(copy, ['init', '--quiet', '--initial-branch', 'main']);
    await git(copy, ['add', '--all']);
    await git(copy, ['commit', '--quiet', '-m', 'This repository'], author);
    repositories = await discoverRepositories([copy]);
  });
  after(async function () {
    if (copy) await removeDir(copy);
  });

  for (const { question, leadsWith, quotes } of QUESTIONS) {
    const leads = typeof leadsWith === 'string' ? [leadsWith] : leadsWith;
    it(`"${question}" leads with ${leads.join(' or ')} and quotes it`, async function () {
      const answerer = new Answerer({ repositories, instanceUrl: 'http://127.0.0.1:9', paceMs: 0 });
      const { answer } = await answerer.answer({ question, earlierQuestions: [], signal: new AbortController().signal, report: async () => undefined });
      const firstLink = /\]\(http:\/\/127\.0\.0\.1:9\/[^/]+\/-\/blob\/([^?)]+)/.exec(answer);
      assert.ok(leads.includes(firstLink?.[1] ?? ''), `leads with ${firstLink?.[1]}:\n${answer.slice(0, 2000)}`);
      const firstQuote = /^\[([^\]]+), lines \d+–\d+\]\([^)]*\):\n\n```[a-z]*\n([\s\S]*?)\n```/m.exec(answer);
      assert.equal(firstQuote?.[1], firstLink?.[1], 'the first quote is from the file the answer leads with');
      assert.match(firstQuote?.[2] ?? '', quotes, 'the quoted code is the part that answers');
    });
  }
});
