/**
 * Questions a newcomer asks about this very repository, each with the file its answer must lead
 * with: the answerer searches as the tools do (natural-language search, BM25 over stems and
 * identifier parts), so these fail if the answers drift back to quoting whatever mentions a word.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { Answerer } from '../../../src/engine/conversations/answerer';
import { discoverRepositories } from '../../../src/engine/repos';

const ROOT = path.resolve(__dirname, '..', '..', '..');

const QUESTIONS: ReadonlyArray<{ question: string; leadsWith: string; quotes: RegExp }> = [
  { question: 'How does the poller back off after errors?', leadsWith: 'src/conversations/poller.ts', quotes: /backoff|back off/i },
  { question: 'How does the engine check the Authorization header?', leadsWith: 'src/engine/auth.ts', quotes: /authorization/i },
  { question: 'Where are the tool server endpoints defined?', leadsWith: 'src/contract/toolServers.ts', quotes: /TOOL_SERVER_ENDPOINTS/ },
];

describe('answers about this repository', function () {
  this.timeout(60_000);

  for (const { question, leadsWith, quotes } of QUESTIONS) {
    it(`"${question}" leads with ${leadsWith} and quotes it`, async function () {
      const answerer = new Answerer({ repositories: await discoverRepositories([ROOT]), instanceUrl: 'http://127.0.0.1:9', paceMs: 0 });
      const { answer } = await answerer.answer({ question, earlierQuestions: [], signal: new AbortController().signal, report: async () => undefined });
      const first = /^### 1\. `([^`]+)`[^\n]*\n([\s\S]*?)(?=^### 2\. |(?![\s\S]))/m.exec(answer);
      assert.equal(first?.[1], leadsWith, answer.slice(0, 2000));
      assert.match(first?.[2] ?? '', quotes, 'the quoted code is the part that answers');
    });
  }
});
