import assert from 'node:assert/strict';
import { Answerer } from '../../../src/engine/answers/answerer';
import { mentionScope } from '../../../src/engine/answers/mentions';
import { discoverRepositories, type ServedRepository } from '../../../src/engine/git/repos';
import { createTestRepo, type TestRepo } from '../../support/gitRepos';

const SERVED: ServedRepository[] = [
  { name: 'github.com/acme/app', dir: '/repos/app', bare: false },
  { name: 'github.com/acme/billing', dir: '/repos/billing', bare: false },
];

describe('engine: @-mentions scope a question', function () {
  it('reads a repository by its whole name or its last parts, and a path as a file', function () {
    const whole = mentionScope('How is a price formatted in @github.com/acme/billing?', SERVED);
    assert.deepEqual(
      whole.repositories.map((repository) => repository.name),
      ['github.com/acme/billing'],
    );
    assert.deepEqual(whole.named, ['github.com/acme/billing']);
    assert.equal(whole.text, 'How is a price formatted in ?');
    const short = mentionScope('What does @src/price.ts do in @billing.', SERVED);
    assert.deepEqual(short.named, ['github.com/acme/billing', 'src/price.ts']);
    assert.deepEqual(
      short.query?.filters.map((filter) => [filter.field, filter.value]),
      [
        ['repo', '^(github\\.com\\/acme\\/billing)$'],
        ['file', '(^|/)(src\\/price\\.ts)$'],
      ],
    );
  });

  it('leaves mail addresses, annotations and text without mentions alone', function () {
    for (const question of ['Mail me@example.com about it', 'Why is @Override needed here?', 'Plain question']) {
      const scope = mentionScope(question, SERVED);
      assert.equal(scope.text, question);
      assert.equal(scope.repositories.length, 2);
      assert.equal(scope.query, undefined);
    }
  });

  it('reads at most ten mentions, each of at most 300 characters', function () {
    const many = Array.from({ length: 15 }, (_, index) => `@dir/file${index}.ts`).join(' ');
    assert.equal(mentionScope(many, SERVED).named.length, 10);
    assert.deepEqual(mentionScope(`@${'a/'.repeat(200)}x.ts`, SERVED).named, []);
  });

  describe('answers', function () {
    let app: TestRepo;
    let billing: TestRepo;
    let repositories: ServedRepository[];
    const files = (name: string) => ({ 'src/format.ts': `export function formatAmount(value: number): string {\n  return '${name}' + value.toFixed(2);\n}\n` });
    before(async function () {
      app = await createTestRepo({ name: 'app', origin: 'https://github.com/acme/app.git', commits: [{ files: files('app'), message: 'Add formatAmount' }] });
      billing = await createTestRepo({
        name: 'billing',
        origin: 'https://github.com/acme/billing.git',
        commits: [{ files: files('billing'), message: 'Add formatAmount' }],
      });
      repositories = await discoverRepositories([app.dir, billing.dir]);
    });
    after(async function () {
      await app?.remove();
      await billing?.remove();
    });

    async function ask(question: string): Promise<{ answer: string; turns: string[]; sources: string[] }> {
      const turns: string[] = [];
      const answered = await new Answerer({ repositories, instanceUrl: 'http://127.0.0.1:9', paceMs: 0 }).answer({
        question,
        earlierQuestions: [],
        signal: new AbortController().signal,
        report: async (reasoning) => void turns.push(reasoning),
      });
      return { answer: answered.answer, turns, sources: answered.sources.map((source) => `${source.metadata?.repoName}:${source.label}`) };
    }

    it('searches only the repository a question names', async function () {
      for (const [mention, repo] of [
        ['@acme/billing', 'github.com/acme/billing'],
        ['@github.com/acme/app', 'github.com/acme/app'],
      ]) {
        const scoped = await ask(`Where is \`formatAmount\` defined? ${mention}`);
        assert.ok(scoped.turns.includes(`Searching only what the question names: @${repo}`), scoped.turns.join('\n'));
        assert.ok(
          scoped.turns.some((turn) => turn.startsWith('Searching 1 repository for')),
          scoped.turns.join('\n'),
        );
        assert.deepEqual(scoped.sources, [`${repo}:src/format.ts`]);
        assert.ok(!scoped.answer.includes(repo === 'github.com/acme/app' ? 'acme/billing' : 'acme/app/'), scoped.answer);
      }
      const both = await ask('Where is `formatAmount` defined?');
      assert.ok(
        both.turns.some((turn) => turn.startsWith('Searching 2 repositories for')),
        both.turns.join('\n'),
      );
    });

    it('searches only the file a question names', async function () {
      const scoped = await ask('What does `formatAmount` return? @src/other.ts');
      assert.ok(scoped.turns.includes('Searching only what the question names: @src/other.ts'));
      assert.deepEqual(scoped.sources, [], 'nothing outside the named file');
    });
  });
});
