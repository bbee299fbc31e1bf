/**
 * sg_go_to_definition and sg_find_references: search-based navigation across two repositories, in
 * TypeScript, Python, Go, Java and Rust, at revisions, with the symbol and the path checked.
 */
import assert from 'node:assert/strict';
import { APP, LIB, McpSession, type Block, useMcpWorld } from './fixture';

interface FileBlocks {
  fileBlocks: Block[];
}

function locations(result: FileBlocks): string[] {
  return result.fileBlocks.flatMap((block) => block.chunks.map((chunk) => `${block.repo}:${block.file}:${chunk.startLine}`));
}

describe('MCP tools: code navigation', function () {
  let mcp: McpSession;

  useMcpWorld((made) => ({ mcp } = made));

  const definition = async (repo: string, path: string, symbol: string, revision?: string): Promise<FileBlocks> =>
    (await mcp.ok<FileBlocks>('sg_go_to_definition', { repo, path, symbol, ...(revision ? { revision } : {}) })).structured;
  const references = async (repo: string, path: string, symbol: string, revision?: string): Promise<FileBlocks> =>
    (await mcp.ok<FileBlocks>('sg_find_references', { repo, path, symbol, ...(revision ? { revision } : {}) })).structured;

  describe('sg_go_to_definition', function () {
    it('finds a TypeScript function in the same repository, with its whole body', async function () {
      const result = await definition(APP, 'src/server.ts', 'loadConfig');
      assert.deepEqual(locations(result), [`${APP}:src/config.ts:17`]);
      const chunk = result.fileBlocks[0]?.chunks[0];
      assert.equal(chunk?.endLine, 19);
      assert.equal(chunk?.content, "17: export function loadConfig(file: string): AppConfig {\n18:   return parseConfig(readFileSync(file, 'utf8'));\n19: }");
      assert.equal(result.fileBlocks[0]?.type, 'file');
      assert.equal(result.fileBlocks[0]?.rev, 'HEAD');
    });

    it('crosses repositories: a symbol used in one is defined in another', async function () {
      const { structured, text } = await mcp.ok<FileBlocks>('sg_go_to_definition', { repo: APP, path: 'src/server.ts', symbol: 'formatPrice' });
      assert.deepEqual(locations(structured), [`${LIB}:ts/price.ts:1`]);
      assert.match(text, /github\.com\/acme\/lib — ts\/price\.ts/);
    });

    it('finds classes, interfaces, methods and class members in TypeScript', async function () {
      assert.deepEqual(locations(await definition(APP, 'src/config.ts', 'AppConfig')), [`${APP}:src/config.ts:3`]);
      assert.deepEqual(locations(await definition(APP, 'src/config.ts', 'ConfigError')), [`${APP}:src/config.ts:8`]);
      const method = await definition(APP, 'README.md', 'closeConnection');
      assert.deepEqual(locations(method), [`${APP}:src/db/connection.ts:11`]);
      assert.equal(method.fileBlocks[0]?.chunks[0]?.endLine, 13);
      assert.deepEqual(locations(await definition(APP, 'src/db/connection.ts', 'ConnectionPool.openConnection')), [`${APP}:src/db/connection.ts:5`]);
    });

    it('finds Python functions, classes, methods and module constants', async function () {
      const fn = await definition(APP, 'lib/retry_policy.py', 'retry_with_backoff');
      assert.deepEqual(locations(fn), [`${APP}:lib/retry_policy.py:4`]);
      assert.equal(fn.fileBlocks[0]?.chunks[0]?.endLine, 10, 'the indented body is included');
      assert.deepEqual(locations(await definition(LIB, 'python/use.py', 'RetryPolicy')), [`${LIB}:python/retry.py:1`]);
      assert.deepEqual(locations(await definition(LIB, 'python/use.py', 'next_delay')), [`${LIB}:python/retry.py:2`]);
      assert.deepEqual(locations(await definition(LIB, 'python/use.py', 'MAX_ATTEMPTS')), [`${LIB}:python/retry.py:6`]);
    });

    it('finds Go functions and types', async function () {
      const fn = await definition(LIB, 'go/main.go', 'StartServer');
      assert.deepEqual(locations(fn), [`${LIB}:go/server.go:7`]);
      assert.equal(fn.fileBlocks[0]?.chunks[0]?.endLine, 12);
      assert.deepEqual(locations(await definition(LIB, 'go/main.go', 'Config')), [`${LIB}:go/server.go:3`]);
    });

    it('finds Java classes and methods', async function () {
      assert.deepEqual(locations(await definition(LIB, 'java/Invoice.java', 'Billing')), [`${LIB}:java/Billing.java:1`]);
      const method = await definition(LIB, 'java/Invoice.java', 'computeTotal');
      assert.deepEqual(locations(method), [`${LIB}:java/Billing.java:2`]);
      assert.equal(method.fileBlocks[0]?.chunks[0]?.endLine, 8);
    });

    it('finds Rust functions and structs', async function () {
      assert.deepEqual(locations(await definition(LIB, 'rust/main.rs', 'parse_header')), [`${LIB}:rust/lib.rs:5`]);
      const struct = await definition(LIB, 'rust/main.rs', 'Header');
      assert.deepEqual(locations(struct), [`${LIB}:rust/lib.rs:1`]);
      assert.equal(struct.fileBlocks[0]?.chunks[0]?.endLine, 3);
    });

    it('looks at the given revision of the repository', async function () {
      assert.deepEqual(locations(await definition(APP, 'src/util.ts', 'slugify', 'v1.0')), [`${APP}:src/util.ts:1`]);
      assert.deepEqual(locations(await definition(APP, 'src/server.ts', 'slugify')), [`${APP}:src/helpers.ts:1`]);
      assert.deepEqual(locations(await definition(APP, 'src/login.ts', 'login', 'feature/login')), [`${APP}:src/login.ts:1`]);
    });

    it('says "Symbol not found" without failing when nothing defines it', async function () {
      const { structured, text } = await mcp.ok<FileBlocks>('sg_go_to_definition', { repo: APP, path: 'src/server.ts', symbol: 'doesNotExistAnywhere' });
      assert.deepEqual(structured.fileBlocks, []);
      assert.match(text, /^Symbol not found/);
    });

    it('refuses symbols that are not identifiers, unknown paths and hostile revisions', async function () {
      assert.match(await mcp.fails('sg_go_to_definition', { repo: APP, path: 'src/server.ts', symbol: 'a b' }), /is not an identifier/);
      assert.match(await mcp.fails('sg_go_to_definition', { repo: APP, path: 'src/server.ts', symbol: '--output=/tmp/x' }), /is not an identifier/);
      assert.match(await mcp.fails('sg_go_to_definition', { repo: APP, path: 'src/server.ts', symbol: '.*' }), /is not an identifier/);
      assert.match(await mcp.fails('sg_go_to_definition', { repo: APP, path: 'src/nope.ts', symbol: 'loadConfig' }), /does not exist/);
      assert.match(await mcp.fails('sg_go_to_definition', { repo: APP, path: '../lib/ts/price.ts', symbol: 'formatPrice' }), /contains "\.\."/);
      assert.match(await mcp.fails('sg_go_to_definition', { repo: APP, path: 'src', symbol: 'loadConfig' }), /is not a file/);
      assert.match(await mcp.fails('sg_find_references', { repo: APP, path: 'src/config.ts', symbol: 'loadConfig', revision: '-p' }), /starts with "-"/);
    });
  });

  describe('sg_find_references', function () {
    it('lists whole-word uses without the definition', async function () {
      const { structured, text } = await mcp.ok<FileBlocks>('sg_find_references', { repo: APP, path: 'src/config.ts', symbol: 'parseConfig' });
      assert.deepEqual(locations(structured), [`${APP}:src/config.ts:18`]);
      assert.equal(structured.fileBlocks[0]?.chunks[0]?.content, "18:   return parseConfig(readFileSync(file, 'utf8'));");
      assert.match(text, /1 reference to parseConfig in 1 file \(TypeScript\/JavaScript files\)/);
    });

    it('finds uses in other repositories, definition file first', async function () {
      const result = await references(LIB, 'ts/price.ts', 'formatPrice');
      assert.deepEqual(locations(result), [`${APP}:src/server.ts:1`, `${APP}:src/server.ts:7`]);
      assert.equal(result.fileBlocks[0]?.chunks[0]?.endLine, 1, 'lines 1 and 7 are separate chunks');
      const own = await references(APP, 'src/config.ts', 'loadConfig');
      assert.deepEqual(locations(own), [`${APP}:src/server.ts:2`, `${APP}:src/server.ts:5`]);
    });

    it('stays within the language of the definition and matches whole words only', async function () {
      const config = await references(LIB, 'go/server.go', 'Config');
      assert.deepEqual(locations(config), [`${LIB}:go/server.go:7`, `${LIB}:go/main.go:4`], 'the definition file first');
      const python = await references(LIB, 'python/retry.py', 'RetryPolicy');
      assert.deepEqual(locations(python), [`${LIB}:python/use.py:1`, `${LIB}:python/use.py:3`]);
      assert.deepEqual(locations(await references(LIB, 'java/Billing.java', 'computeTotal')), [`${LIB}:java/Invoice.java:3`]);
      assert.deepEqual(locations(await references(LIB, 'rust/lib.rs', 'parse_header')), [`${LIB}:rust/main.rs:2`]);
    });

    it('searches the given revision of the repository', async function () {
      const old = await references(APP, 'src/util.ts', 'slugify', 'v1.0');
      assert.deepEqual(old.fileBlocks, []);
      const { text } = await mcp.ok<FileBlocks>('sg_find_references', { repo: APP, path: 'src/util.ts', symbol: 'slugify', revision: 'v1.0' });
      assert.match(text, /No references to slugify/);
    });
  });
});
