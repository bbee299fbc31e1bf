/**
 * sg_keyword_search and sg_nls_search on real repositories: terms, phrases, regular expressions,
 * AND/OR/NOT, repo:/file:/rev:/lang:/case:/count: filters, grouping and bounds; stemming, identifier
 * splitting and ranking; and hostile queries (catastrophic regexes, option-like patterns) answered
 * safely.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { APP, LIB, McpSession, TOOLS, type Block, useMcpWorld } from './fixture';

interface Blocks {
  blocks: Block[];
}

function files(result: Blocks): string[] {
  return result.blocks.map((block) => `${block.repo}:${block.file}`);
}

describe('MCP tools: code search', function () {
  let mcp: McpSession;

  useMcpWorld((made) => ({ mcp } = made));

  const search = async (query: string): Promise<Blocks> => (await mcp.ok<Blocks>('sg_keyword_search', { query })).structured;

  describe('sg_keyword_search', function () {
    it('finds a term, grouped by file with numbered chunks around the matches', async function () {
      const { text, structured } = await mcp.ok<Blocks>('sg_keyword_search', { query: 'parseConfig' });
      assert.deepEqual(files(structured), [`${APP}:src/config.ts`, `${APP}:README.md`]);
      const [config] = structured.blocks;
      assert.equal(config?.type, 'file');
      assert.equal(config?.rev, 'HEAD');
      const lines = config?.chunks.flatMap((chunk) => chunk.content.split('\n')) ?? [];
      assert.ok(lines.includes('11: export function parseConfig(text: string): AppConfig {'));
      assert.ok(lines.includes("18:   return parseConfig(readFileSync(file, 'utf8'));"));
      for (const chunk of config?.chunks ?? []) {
        assert.equal(Number(chunk.content.split(':')[0]), chunk.startLine);
        assert.ok(chunk.endLine >= chunk.startLine);
      }
      assert.match(text, /2 files match "parseConfig"/);
      assert.match(text, /## github\.com\/acme\/app — src\/config\.ts/);
    });

    it('is case-insensitive unless case:yes', async function () {
      assert.deepEqual(files(await search('PARSECONFIG')), [`${APP}:src/config.ts`, `${APP}:README.md`]);
      assert.deepEqual(files(await search('PARSECONFIG case:yes')), []);
    });

    it('needs every plain term in the same file (AND by default), or either with OR', async function () {
      assert.deepEqual(files(await search('loadConfig readFileSync')), [`${APP}:src/config.ts`]);
      assert.deepEqual(files(await search('loadConfig AND formatPrice')), [`${APP}:src/server.ts`]);
      assert.deepEqual(
        files(await search('slugify OR computeTotal')).sort(),
        [`${APP}:src/helpers.ts`, `${LIB}:java/Billing.java`, `${LIB}:java/Invoice.java`].sort(),
      );
      assert.deepEqual(files(await search('formatPrice NOT loadConfig')), [`${LIB}:ts/price.ts`]);
      assert.deepEqual(files(await search('formatPrice AND (cents OR logger)')).sort(), [`${APP}:src/server.ts`, `${LIB}:ts/price.ts`].sort());
    });

    it('matches quoted phrases exactly, and /regular expressions/', async function () {
      assert.deepEqual(files(await search('"port must be a number"')), [`${APP}:src/config.ts`]);
      assert.deepEqual(files(await search('"must port"')), []);
      assert.deepEqual(files(await search('/def \\w+_with_backoff/')), [`${APP}:lib/retry_policy.py`]);
      assert.deepEqual(files(await search('/retries \\?\\? [0-9]/')), [`${APP}:src/config.ts`]);
      assert.deepEqual(files(await search('patterntype:regexp comp.teTotal')).sort(), [`${LIB}:java/Billing.java`, `${LIB}:java/Invoice.java`]);
    });

    it('filters by repo:, file:, lang: (and their negations) and combines repo filters with OR', async function () {
      assert.deepEqual(files(await search('repo:^github\\.com/acme/lib$ formatPrice')), [`${LIB}:ts/price.ts`]);
      assert.deepEqual(files(await search('-repo:lib formatPrice')), [`${APP}:src/server.ts`]);
      assert.deepEqual(
        files(await search('file:\\.py$ retry')).sort(),
        [`${APP}:lib/retry_policy.py`, `${LIB}:python/retry.py`, `${LIB}:python/use.py`].sort(),
      );
      assert.deepEqual(files(await search('-file:\\.py$ -file:\\.md$ retries')), [`${APP}:src/config.ts`]);
      assert.deepEqual(files(await search('lang:go Config')).sort(), [`${LIB}:go/main.go`, `${LIB}:go/server.go`]);
      assert.deepEqual(
        files(await search('(repo:tools OR repo:lib) billing')).sort(),
        [`${LIB}:java/Billing.java`, `${LIB}:java/Invoice.java`, `${TOOLS}:deploy.sh`].sort(),
      );
      const pathsOnly = await search('file:README\\.md$');
      assert.deepEqual(files(pathsOnly), [`${APP}:README.md`]);
      assert.deepEqual(pathsOnly.blocks[0]?.chunks, []);
    });

    it('searches another revision with rev: (and repo:name@rev)', async function () {
      assert.deepEqual(files(await search('repo:acme/app rev:v1.0 slugify')), [`${APP}:src/util.ts`]);
      const branch = await search(`repo:acme/app@feature/login "function login"`);
      assert.deepEqual(files(branch), [`${APP}:src/login.ts`]);
      assert.equal(branch.blocks[0]?.rev, 'feature/login');
      assert.match(await mcp.fails('sg_keyword_search', { query: 'repo:acme/app rev:nope slugify' }), /does not exist in github\.com\/acme\/app/);
      assert.match(await mcp.fails('sg_keyword_search', { query: 'rev:--output=/tmp/x slugify' }), /starts with "-"/);
    });

    it('bounds the results: 15 files by default, count: for more, at most 3 chunks of 1024 characters', async function () {
      const many = await mcp.ok<Blocks>('sg_keyword_search', { query: 'row file:big' });
      assert.equal(many.structured.blocks.length, 1);
      const chunks = many.structured.blocks[0]?.chunks ?? [];
      // The file matches on every line: the chunk's size bound is what stops it, so it must be reached.
      assert.ok(chunks.length >= 1 && chunks.length <= 3, `1 to 3 chunks: ${JSON.stringify(chunks.map((chunk) => chunk.content.length))}`);
      for (const chunk of chunks) assert.ok(chunk.content.length > 0 && chunk.content.length <= 1024, `chunk of ${chunk.content.length} characters`);
      assert.ok(
        chunks.some((chunk) => chunk.content.length > 900),
        'a chunk is cut near its bound, not short of it',
      );
      const everything = await mcp.ok<Blocks>('sg_keyword_search', { query: '/./' });
      assert.equal(everything.structured.blocks.length, 15);
      assert.match(everything.texts.join('\n'), /more matching files are not shown/);
      const more = await search('/./ count:17');
      assert.equal(more.blocks.length, 17);
    });

    it('explains malformed queries', async function () {
      assert.match(await mcp.fails('sg_keyword_search', { query: '' }), /query is empty/);
      assert.match(await mcp.fails('sg_keyword_search', { query: '(foo OR bar' }), /unmatched "\("/);
      assert.match(await mcp.fails('sg_keyword_search', { query: 'foo OR' }), /OR needs a term on both sides/);
      assert.match(await mcp.fails('sg_keyword_search', { query: 'AND foo' }), /AND needs a term/);
      assert.match(await mcp.fails('sg_keyword_search', { query: '"unclosed' }), /unclosed "/);
      assert.match(await mcp.fails('sg_keyword_search', { query: 'file:( foo' }), /file: filter "\(" is not a valid regular expression/);
      assert.match(await mcp.fails('sg_keyword_search', { query: 'lang:cobol foo' }), /lang:cobol is not a language/);
      assert.match(await mcp.fails('sg_keyword_search', { query: 'repo:nothing-like-this foo' }), /No served repository matches/);
      assert.match(await mcp.fails('sg_keyword_search', { query: '/(unclosed/' }), /regular expression/);
      assert.match(await mcp.fails('sg_keyword_search', { query: 'type:commit fix' }), /sg_commit_search/);
    });

    it('stops a catastrophic regular expression and says to simplify it', async function () {
      const message = await mcp.fails('sg_keyword_search', { query: 'repo:lib /(a+)+$/' });
      assert.match(message, /simplify it/);
      // Only a path of many a's makes this one explode; the fixture has one.
      const filter = await mcp.fails('sg_keyword_search', { query: 'repo:lib file:^(a+)+$' });
      assert.match(filter, /file: filter "\^\(a\+\)\+\$" takes too long to match and was stopped: simplify it/);
    });

    it('treats option-like text as a term to find, never as an option', async function () {
      const target = path.join(tmpdir(), `mcp-grep-injection-${process.pid}`);
      const result = await search(`"--output=${target}"`);
      assert.deepEqual(result.blocks, []);
      assert.deepEqual(files(await search('--open-files-in-pager=touch')), []);
      assert.equal(existsSync(target), false);
    });
  });

  describe('sg_nls_search', function () {
    it('matches stems of words, more broadly than keyword search', async function () {
      const keyword = await search('closing connections');
      assert.deepEqual(keyword.blocks, []);
      const { structured, text } = await mcp.ok<Blocks>('sg_nls_search', { query: 'closing database connections' });
      assert.equal(structured.blocks[0]?.file, 'src/db/connection.ts');
      assert.match(text, /clos, databas, connect/);
      const chunk = structured.blocks[0]?.chunks.map((each) => each.content).join('\n') ?? '';
      assert.match(chunk, /closeConnection/);
    });

    it('searches an identifier whole, in its camelCase and snake_case spellings, never by its parts', async function () {
      const camel = await mcp.ok<Blocks>('sg_nls_search', { query: 'computeTotal' });
      assert.deepEqual(
        camel.structured.blocks
          .slice(0, 2)
          .map((block) => block.file)
          .sort(),
        ['java/Billing.java', 'java/Invoice.java'],
      );
      const snake = await mcp.ok<Blocks>('sg_nls_search', { query: 'retry_with_backoff' });
      assert.equal(snake.structured.blocks[0]?.file, 'lib/retry_policy.py');
      assert.ok(!snake.structured.blocks.some((block) => block.file === 'python/retry.py'), 'the "retry" part alone does not match');
      assert.match(snake.text, /\(retrywithbackoff, retry_with_backoff\)/);
    });

    it('ranks files that mention more of the words, more specifically, first', async function () {
      const { structured } = await mcp.ok<Blocks>('sg_nls_search', { query: 'price formatting cents' });
      assert.equal(`${structured.blocks[0]?.repo}:${structured.blocks[0]?.file}`, `${LIB}:ts/price.ts`);
      assert.ok(structured.blocks.length <= 15);
      for (const block of structured.blocks) assert.ok(block.chunks.length <= 3);
    });

    it('honours repo:, file: and rev: filters', async function () {
      const scoped = await mcp.ok<Blocks>('sg_nls_search', { query: 'repo:acme/app retry backoff' });
      assert.ok(scoped.structured.blocks.length > 0);
      assert.ok(scoped.structured.blocks.every((block) => block.repo === APP));
      const typed = await mcp.ok<Blocks>('sg_nls_search', { query: 'file:\\.py$ retry' });
      assert.ok(typed.structured.blocks.length > 0, 'the filter leaves the Python files that mention it');
      assert.ok(typed.structured.blocks.every((block) => block.file.endsWith('.py')));
      const older = await mcp.ok<Blocks>('sg_nls_search', { query: 'repo:acme/app rev:v1.0 slug text' });
      assert.equal(older.structured.blocks[0]?.file, 'src/util.ts');
    });

    it('asks for words when there are none', async function () {
      assert.match(await mcp.fails('sg_nls_search', { query: 'repo:acme how does the' }), /no words to search for/);
    });
  });
});
