/**
 * Questions a newcomer asks about this very repository, each with the file its answer must lead
 * with: the answerer searches as the tools do (natural-language search, BM25 over stems and
 * whole identifiers), so these fail if the answers drift back to quoting whatever mentions a word.
 */
import assert from 'node:assert/strict';
import { cp } from 'node:fs/promises';
import * as path from 'node:path';
import { Answerer } from '../../../src/engine/conversations/answerer';
import { discoverRepositories, type ServedRepository } from '../../../src/engine/repos';
import { createTempDir, DEFAULT_AUTHOR, git, removeDir } from '../../support/gitRepos';

const ROOT = path.resolve(__dirname, '..', '..', '..');
/** What a newcomer would ask about: the sources, the tests and the docs (not dependencies or builds). */
const COPIED = ['src', 'test', 'bench', 'scripts', 'README.md', 'CHANGELOG.md', 'package.json'];

const QUESTIONS: ReadonlyArray<{ question: string; leadsWith: string; quotes: RegExp }> = [
  { question: 'How does the poller back off after errors?', leadsWith: 'src/conversations/poller.ts', quotes: /backoff|back off/i },
  // Since the engine has an OAuth server, "the Authorization header" names two files' topics; this asks for auth.ts alone.
  { question: 'Where does the engine compare tokens in constant time?', leadsWith: 'src/engine/auth.ts', quotes: /timingSafeEqual|constant time/ },
  { question: 'Where are the tool server endpoints defined?', leadsWith: 'src/contract/toolServers.ts', quotes: /TOOL_SERVER_ENDPOINTS/ },
];

describe('answers about this repository', function () {
  this.timeout(60_000);
  let copy: string;
  let repositories: ServedRepository[];

  // A git repository of this checkout's files as they are now (CI's checkout may not be a clone).
  before(async function () {
    copy = await createTempDir('dse-this-repo-');
    // Not this file: its questions, word for word, would answer themselves.
    const filter = (source: string): boolean => path.resolve(source) !== path.resolve(__filename);
    for (const entry of COPIED) await cp(path.join(ROOT, entry), path.join(copy, entry), { recursive: true, filter });
    const author = { GIT_AUTHOR_NAME: DEFAULT_AUTHOR.name, GIT_AUTHOR_EMAIL: DEFAULT_AUTHOR.email, GIT_COMMITTER_NAME: DEFAULT_AUTHOR.name, GIT_COMMITTER_EMAIL: DEFAULT_AUTHOR.email };
    await git(copy, ['init', '--quiet', '--initial-branch', 'main']);
    await git(copy, ['add', '--all']);
    await git(copy, ['commit', '--quiet', '-m', 'This repository'], author);
    repositories = await discoverRepositories([copy]);
  });
  after(async function () {
    if (copy) await removeDir(copy);
  });

  for (const { question, leadsWith, quotes } of QUESTIONS) {
    it(`"${question}" leads with ${leadsWith} and quotes it`, async function () {
      const answerer = new Answerer({ repositories, instanceUrl: 'http://127.0.0.1:9', paceMs: 0 });
      const { answer } = await answerer.answer({ question, earlierQuestions: [], signal: new AbortController().signal, report: async () => undefined });
      const first = /^### 1\. `([^`]+)`[^\n]*\n([\s\S]*?)(?=^### 2\. |(?![\s\S]))/m.exec(answer);
      assert.equal(first?.[1], leadsWith, answer.slice(0, 2000));
      assert.match(first?.[2] ?? '', quotes, 'the quoted code is the part that answers');
    });
  }
});
