import assert from 'node:assert/strict';
import { Answerer } from '../../../src/engine/answers/answerer';
import { blobUrl, languageOf, titleFor } from '../../../src/engine/answers/answerWriter';
import { discoverRepositories, type ServedRepository } from '../../../src/engine/git/repos';
import { SearchIndexes } from '../../../src/engine/search/searchIndex';
import { queryTerms } from '../../../src/engine/search/ranking';
import { extractSearchTerms, identifierSpellings, splitIdentifier } from '../../../src/engine/search/searchTerms';
import { createSampleAppRepo, createTestRepo, SAMPLE_APP_NAME, type TestRepo } from '../../support/gitRepos';

describe('search terms', function () {
  it('takes identifiers from code spans whole, never their camelCase parts, and drops stopwords', function () {
    assert.deepEqual(extractSearchTerms('Where is `parseConfig` used?'), ['parseConfig']);
  });

  it('takes identifiers from fenced code blocks without language keywords', function () {
    const question = 'Why does this throw?\n```ts\nconst settings = loadServerConfig(path);\n```';
    assert.deepEqual(extractSearchTerms(question), ['settings', 'loadServerConfig', 'path', 'throw']);
  });

  it('recognises snake_case and mixed-case words in prose and keeps at most eight terms', function () {
    const terms = extractSearchTerms('How do retry_with_backoff and HTTPServer2 handle timeouts, sockets, pools, queues and workers?');
    assert.deepEqual(terms.slice(0, 2), ['retry_with_backoff', 'HTTPServer2']);
    assert.ok(!terms.some((term) => ['retry', 'backoff', 'HTTP', 'Server'].includes(term)), `no parts of identifiers: ${terms.join(', ')}`);
    assert.ok(terms.includes('timeouts') && terms.includes('workers'));
    assert.ok(terms.length <= 8);
    assert.ok(!terms.some((term) => ['how', 'and', 'with'].includes(term.toLowerCase())));
  });

  it('finds nothing to search in a question of stopwords only', function () {
    assert.deepEqual(extractSearchTerms('What is it? How does it work?'), []);
  });

  it('splits camelCase, acronyms, snake_case and digits', function () {
    assert.deepEqual(splitIdentifier('parseHTTPConfig_v2'), ['parse', 'HTTP', 'Config', 'v', '2']);
    assert.deepEqual(splitIdentifier('simple'), []);
  });

  it('searches an identifier in its camelCase and snake_case spellings, never by its parts', function () {
    assert.deepEqual(identifierSpellings('parseConfig'), ['parseconfig', 'parse_config']);
    assert.deepEqual(identifierSpellings('parse_config'), ['parseconfig', 'parse_config']);
    assert.deepEqual(identifierSpellings('simple'), []);
    assert.deepEqual(
      queryTerms(['how', 'does', 'parseConfig', 'handle', 'errors']).map((term) => term.text),
      ['parseconfig', 'parse_config', 'handl', 'error'],
    );
  });
});

describe('answer writing', function () {
  it('titles a question by its first line without code or trailing punctuation', function () {
    assert.equal(titleFor('where is `parseConfig` defined?'), 'Where is parseConfig defined');
    assert.equal(titleFor('```\ncode\n```\nexplain this'), 'Explain this');
    const long = titleFor('How does the configuration loader decide which of the many settings files wins when two disagree?');
    assert.ok(long.length <= 61 && long.endsWith('…'), long);
  });

  it('picks a fence language from the extension or file name', function () {
    assert.equal(languageOf('src/config.ts'), 'typescript');
    assert.equal(languageOf('lib/retry.py'), 'python');
    assert.equal(languageOf('Dockerfile'), 'dockerfile');
    assert.equal(languageOf('notes.unknownext'), '');
  });

  it('builds absolute blob links with encoded path segments and a line range', function () {
    assert.equal(
      blobUrl('http://127.0.0.1:1234', 'github.com/acme/app', 'docs/my file#1.md', { start: 3, end: 9 }),
      'http://127.0.0.1:1234/github.com/acme/app/-/blob/docs/my%20file%231.md?L3-9',
    );
  });
});

describe('answerer', function () {
  let sample: TestRepo;
  let repositories: ServedRepository[];
  before(async function () {
    sample = await createSampleAppRepo();
    repositories = await discoverRepositories([sample.dir]);
  });
  after(async function () {
    await sample?.remove();
  });

  function answerer(paceMs = 0): Answerer {
    return new Answerer({ repositories, instanceUrl: 'http://127.0.0.1:9', paceMs });
  }

  it('leads with the definition the question names, linked, and quotes it first; stats claim no model tokens', async function () {
    const turns: string[] = [];
    const answer = await answerer().answer({
      question: 'Where is `retry_with_backoff` defined?',
      earlierQuestions: [],
      signal: new AbortController().signal,
      report: async (reasoning) => void turns.push(reasoning),
    });
    const link = 'http://127.0.0.1:9/github.com/acme/app/-/blob/lib/retry_policy.py?L4-10';
    assert.ok(answer.answer.startsWith(`\`retry_with_backoff\` ([lib/retry\\_policy.py:4](${link})) is the function the question names`), answer.answer);
    const firstQuote = /```python\n([^\n]*)\n/.exec(answer.answer);
    assert.equal(firstQuote?.[1], 'def retry_with_backoff(action, retries=3):', 'the first quote is the definition, from its signature');
    assert.match(answer.answer, /raise RuntimeError\("gave up"\)\n```/, 'a small function is quoted whole');
    assert.deepEqual(answer.sources, [
      {
        type: 'File',
        link: `/${SAMPLE_APP_NAME}/-/blob/lib/retry_policy.py`,
        label: 'lib/retry_policy.py',
        metadata: { repoName: SAMPLE_APP_NAME, revision: (await sample.git('rev-parse', 'HEAD')).trim() },
      },
    ]);
    assert.equal(answer.stats.total_tokens, 0, 'no model wrote it');
    assert.equal(answer.stats.prompt_tokens, 0);
    const read = Number(/Reading (\d+) candidate file/.exec(turns.join('\n'))?.[1]);
    assert.ok(read >= 1, turns.join('\n'));
    assert.equal(answer.stats.tool_calls, 1 + read + 1, 'one search, one read per candidate, one search for its uses');
    assert.equal(turns[0], 'Searching 1 repository for `retry_with_backoff`…');
    assert.ok(turns.includes('Found `retry_with_backoff` in lib/retry_policy.py'), turns.join('\n'));
    assert.equal(turns[turns.length - 1], 'Writing the answer');
    assert.doesNotMatch(answer.answer, /\(\d+ lines?\)/, 'no keyword counts');
  });

  it('says how the definition is reached (callers by the definition they sit in) and lists docs that name it', async function () {
    const answer = await answerer().answer({
      question: 'Where is `parseConfig` used?',
      earlierQuestions: [],
      signal: new AbortController().signal,
      report: async () => undefined,
    });
    assert.match(answer.answer, /^`parseConfig` \(\[src\/config\.ts:11\]\([^)]*\?L11-15\)\) is the function the question names/);
    assert.match(
      answer.answer,
      /```typescript\n\/\*\* Reads the JSON settings file and checks its fields\. \*\/\nexport function parseConfig\(text: string\): AppConfig \{\n/,
    );
    assert.match(
      answer.answer,
      /#### How it is reached\n\n`parseConfig` is used by:\n\n- \[src\/config\.ts:18\]\([^)]*\) in `loadConfig`: `return parseConfig\(readFileSync\(file, 'utf8'\)\);`/,
    );
    assert.match(answer.answer, /#### See also\n\n- Docs: \[README\.md:3\]/);
    // src/server.ts imports loadConfig from './config': "config" is a part of parseConfig, not the name.
    assert.doesNotMatch(answer.answer, /src\/server\.ts/);
    assert.ok(answer.suggestedFollowups.includes('How is `loadConfig` reached?'), answer.suggestedFollowups.join(' | '));
  });

  it('leads with the implementation: a test is "see also", a file the repository marks generated never leads', async function () {
    const files = {
      'src/cookies.ts': [
        'export function signCookie(value: string, secret: string): string {',
        '  return `${value}.${digest(value, secret)}`;',
        '}',
        '',
        'function digest(value: string, secret: string): string {',
        '  return value + secret;',
        '}',
        '',
      ].join('\n'),
      'test/cookies.test.ts': [
        "import { signCookie } from '../src/cookies';",
        '',
        "it('signs a cookie value with its secret', () => signCookie('cookie value', 'secret'));",
        "it('signs an empty cookie value', () => signCookie('', 'secret'));",
        '',
      ].join('\n'),
      'gen/client.ts': [
        '// The cookie service client: it signs a cookie value with the secret remotely.',
        'export function signCookie(value: string, secret: string): string {',
        '  // sign the cookie value with the secret',
        "  return remote('signCookie', value, secret);",
        '}',
        '',
      ].join('\n'),
    };
    const repo = await createTestRepo({ name: 'kinds', commits: [{ files, message: 'cookies' }] });
    try {
      const ask = async (): Promise<string> => {
        const answerer = new Answerer({ repositories: await discoverRepositories([repo.dir]), instanceUrl: 'http://x', paceMs: 0 });
        const { answer } = await answerer.answer({
          question: 'How is a cookie value signed with the secret?',
          earlierQuestions: [],
          signal: new AbortController().signal,
          report: async () => undefined,
        });
        return answer;
      };
      const leadOf = (answer: string): string | undefined => /\]\(http:\/\/x\/kinds\/-\/blob\/([^?)]+)/.exec(answer)?.[1];
      const before = await ask();
      assert.equal(leadOf(before), 'gen/client.ts', 'the client says the most about it: without the attribute, it leads');
      assert.match(before, /#### See also\n\n- Tests and examples: \[test\/cookies\.test\.ts/);
      assert.doesNotMatch(before, /\(http:\/\/x\/kinds\/-\/blob\/test\/[^)]*\):\n\n```/, 'no test is quoted');
      await repo.commit({ files: { '.gitattributes': 'gen/** linguist-generated\n' }, message: 'mark the client generated' });
      const after = await ask();
      assert.equal(leadOf(after), 'src/cookies.ts', after);
      assert.match(after, /^`signCookie` \(\[src\/cookies\.ts:1\]/);
    } finally {
      await repo.remove();
    }
  });

  it('counts as callers only calls of the definition: not imports, nor a function of the same name elsewhere', async function () {
    const repo = await createTestRepo({
      name: 'callers',
      commits: [
        {
          message: 'net',
          files: {
            'src/net.ts': 'export function connect(host: string): string {\n  return host;\n}\n',
            'src/client.ts':
              "import * as net from './net';\nimport { connect } from './net';\n\nexport function open(): string {\n  return net.connect('example.org');\n}\n",
            'src/tls.ts':
              "import type { Socket } from './socket';\n\nexport function secure(socket: Socket): string {\n  return socket.connect('example.org');\n}\n",
            'src/direct.ts': "import { connect } from './net';\n\nexport function dial(): string {\n  return connect('example.org');\n}\n",
          },
        },
      ],
    });
    try {
      const answerer = new Answerer({ repositories: await discoverRepositories([repo.dir]), instanceUrl: 'http://x', paceMs: 0 });
      const { answer } = await answerer.answer({
        question: 'Where is `connect` defined?',
        earlierQuestions: [],
        signal: new AbortController().signal,
        report: async () => undefined,
      });
      const reached = /#### How it is reached\n\n([\s\S]*?)(\n\n####|$)/.exec(answer)?.[1] ?? '';
      assert.match(reached, /\[src\/client\.ts:5\][^\n]* in `open`: `return net\.connect\('example\.org'\);`/);
      assert.match(reached, /\[src\/direct\.ts:4\][^\n]* in `dial`/);
      assert.doesNotMatch(reached, /tls\.ts|import/, reached);
    } finally {
      await repo.remove();
    }
  });

  it('follows a short wrapper to the definition it hands its work to, and quotes that next', async function () {
    const filler = Array.from({ length: 30 }, (_, at) => `        step_${at} = ${at}`).join('\n');
    const client = [
      'class Client:',
      '    def call(self):',
      '        return self._send()',
      '',
      '    def _send(self):',
      filler,
      '        if self.status >= 400:',
      '            raise HTTPError(self.status)',
      '        return self.body',
      '',
    ].join('\n');
    const repo = await createTestRepo({ name: 'wrapper', commits: [{ message: 'client', files: { 'client.py': client } }] });
    try {
      const answerer = new Answerer({ repositories: await discoverRepositories([repo.dir]), instanceUrl: 'http://x', paceMs: 0 });
      const { answer } = await answerer.answer({
        question: 'Why does call() fail?',
        earlierQuestions: [],
        signal: new AbortController().signal,
        report: async () => undefined,
      });
      assert.match(answer, /^`Client\.call` \(\[client\.py:2\]/);
      const also = answer.slice(answer.indexOf('#### Also relevant'));
      assert.match(also, /^#### Also relevant\n\n`Client\._send` in \[client\.py:5\]/);
      assert.match(also, /raise HTTPError\(self\.status\)/, 'the delegate is quoted where its work is, past its first lines');
    } finally {
      await repo.remove();
    }
  });

  it('lists as sources the files it quotes, their paths encoded as its links are', async function () {
    const repo = await createTestRepo({
      name: 'odd',
      commits: [{ message: 'odd', files: { 'src/odd name (v2)#1.ts': 'export function frobnicateWidgets(): number {\n  return 1;\n}\n' } }],
    });
    try {
      const answerer = new Answerer({ repositories: await discoverRepositories([repo.dir]), instanceUrl: 'http://x', paceMs: 0 });
      const answer = await answerer.answer({
        question: 'Where is `frobnicateWidgets` defined?',
        earlierQuestions: [],
        signal: new AbortController().signal,
        report: async () => undefined,
      });
      assert.deepEqual(
        answer.sources.map((source) => [source.link, source.label]),
        [['/odd/-/blob/src/odd%20name%20%28v2%29%231.ts', 'src/odd name (v2)#1.ts']],
      );
      assert.ok(answer.answer.includes('](http://x/odd/-/blob/src/odd%20name%20%28v2%29%231.ts?L1-3)'), answer.answer.slice(0, 300));
    } finally {
      await repo.remove();
    }
  });

  it('quotes the lines around the name in a long file without definitions', async function () {
    const lines = Array.from({ length: 100_000 }, (_, index) => (index === 49_999 ? 'fetchWidgets();' : 'x'));
    const long = await createTestRepo({ name: 'long', commits: [{ files: { 'gen/long.ts': `${lines.join('\n')}\n` }, message: 'long' }] });
    try {
      const answer = await new Answerer({ repositories: await discoverRepositories([long.dir]), instanceUrl: 'http://x', paceMs: 0 }).answer({
        question: 'Where is `fetchWidgets` called?',
        earlierQuestions: [],
        signal: new AbortController().signal,
        report: async () => undefined,
      });
      assert.match(answer.answer, /^The closest lines are in \[gen\/long\.ts:49992\]\([^)]*\?L49992-50008\)[^\n]*\[line 50000\]/);
      assert.match(answer.answer, /\[gen\/long\.ts, lines 49992–50008\]\([^)]*\):\n\n```typescript\n(x\n){8}fetchWidgets\(\);\n(x\n){8}```/);
    } finally {
      await long.remove();
    }
  });

  it("uses the earlier question's terms when a follow-up names nothing", async function () {
    const answer = await answerer().answer({
      question: 'And why is that?',
      earlierQuestions: ['Where is `startServer` defined?'],
      signal: new AbortController().signal,
      report: async () => undefined,
    });
    assert.match(answer.answer, /src\/server\.ts/);
  });

  it('says honestly that it found nothing to search when the question has no terms', async function () {
    const answer = await answerer().answer({
      question: 'What is it?',
      earlierQuestions: [],
      signal: new AbortController().signal,
      report: async () => undefined,
    });
    assert.match(answer.answer, /could not find anything to search for/);
    assert.deepEqual(answer.suggestedFollowups, []);
    assert.equal(answer.stats.tool_calls, 0);
  });

  it('notes a repository without commits instead of failing', async function () {
    const empty = await createTestRepo({ name: 'empty', commits: [] });
    try {
      const both = await discoverRepositories([sample.dir, empty.dir]);
      const answer = await new Answerer({ repositories: both, instanceUrl: 'http://x', paceMs: 0 }).answer({
        question: 'Where is `parseConfig` defined?',
        earlierQuestions: [],
        signal: new AbortController().signal,
        report: async () => undefined,
      });
      assert.match(answer.answer, /Note: Skipped \(no commits\): empty\./);
      assert.match(answer.answer, /src\/config\.ts/);
    } finally {
      await empty.remove();
    }
  });

  it('waits for the search index being built rather than grepping meanwhile, and answers from it', async function () {
    const indexes = new SearchIndexes({ log: () => undefined });
    try {
      const indexed = new Answerer({ repositories, instanceUrl: 'http://127.0.0.1:9', paceMs: 0, searchIndexes: indexes });
      const ask = async (): Promise<{ turns: string[]; answer: string }> => {
        const turns: string[] = [];
        const { answer } = await indexed.answer({
          question: 'Where is `parseConfig` defined?',
          earlierQuestions: [],
          signal: new AbortController().signal,
          report: async (reasoning) => void turns.push(reasoning),
        });
        return { turns, answer };
      };
      const first = await ask();
      assert.ok(first.turns.includes(`Waiting for the search index of ${SAMPLE_APP_NAME} to be built`), first.turns.join('\n'));
      assert.match(first.answer, /^`parseConfig` \(\[src\/config\.ts:11\]/);
      const second = await ask();
      assert.ok(!second.turns.some((turn) => turn.startsWith('Waiting')), 'the index is ready: no wait');
      const grepped = await answerer().answer({
        question: 'Where is `parseConfig` defined?',
        earlierQuestions: [],
        signal: new AbortController().signal,
        report: async () => undefined,
      });
      assert.equal(second.answer, grepped.answer, 'the index answers as git grep does');
    } finally {
      indexes.close();
    }
  });

  it('stops at once when cancelled mid-way, reporting nothing more', async function () {
    const controller = new AbortController();
    const turns: string[] = [];
    const running = answerer(200).answer({
      question: 'Where is `parseConfig` defined?',
      earlierQuestions: [],
      signal: controller.signal,
      report: async (reasoning) => {
        turns.push(reasoning);
        controller.abort();
      },
    });
    await assert.rejects(running, (error: unknown) => error instanceof Error && error.name === 'AbortError');
    assert.equal(turns.length, 1);
  });
});
