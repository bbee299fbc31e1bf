/**
 * The world the MCP tool tests run in: real git repositories (several, with branches, a tag, a
 * rename, a file over 128 KB, a binary file, a Latin-1 file, symbolic links in and out, commits by
 * several authors at set dates, code in five languages), a real engine over them, and an MCP client
 * of the official SDK that talks to it over HTTP with a token.
 */
import assert from 'node:assert/strict';
import { symlink, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MCP_PATH } from '../../../../src/contract/legacyWire';
import { startTestEngine, TEST_TOKENS, type TestEngine, type TestEngineOptions } from '../../../support/engineHarness';
import { createTestRepo, type CommitAuthor, type TestRepo, SAMPLE_APP_FILES } from '../../../support/gitRepos';

export const ADA: CommitAuthor = { name: 'Ada Lovelace', email: 'ada@example.com' };
export const ALAN: CommitAuthor = { name: 'Alan Turing', email: 'alan@example.com' };
export const GRACE: CommitAuthor = { name: 'Grace Hopper', email: 'grace@navy.example' };

export const APP = 'github.com/acme/app';
export const LIB = 'github.com/acme/lib';
export const TOOLS = 'github.com/other/tools';
export const EMPTY = 'empty';

/** 3000 lines of 60 characters: about 180 KB. */
export const BIG_LINES = 3000;
export const BIG_FILE = Array.from({ length: BIG_LINES }, (_, index) => `row ${String(index + 1).padStart(5, '0')} ${'x'.repeat(49)}`).join('\n') + '\n';
/** "café naïve" in Latin-1: not valid UTF-8. */
export const LATIN1_BYTES = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x6e, 0x61, 0xef, 0x76, 0x65, 0x0a]);

const CONFIG_TS = SAMPLE_APP_FILES['src/config.ts'];

const SERVER_TS = (logLine: string): string =>
  [
    "import { formatPrice } from '@acme/lib';",
    "import { loadConfig } from './config';",
    '',
    'export function startServer(): void {',
    "  const config = loadConfig('app.json');",
    `  ${logLine}`,
    '  formatPrice(config.port);',
    '}',
    '',
  ].join('\n');

const UTIL_TS = 'export function slugify(text: string): string {\n  return text.toLowerCase().replace(/[^a-z0-9]+/g, "-");\n}\n';

const CONNECTION_TS = [
  '/** Keeps database connections open and hands them out. */',
  'export class ConnectionPool {',
  '  private readonly open: number[] = [];',
  '',
  '  openConnection(): number {',
  '    const id = this.open.length + 1;',
  '    this.open.push(id);',
  '    return id;',
  '  }',
  '',
  '  closeConnection(id: number): void {',
  '    this.open.splice(this.open.indexOf(id), 1);',
  '  }',
  '}',
  '',
].join('\n');

export interface McpWorld {
  engine: TestEngine;
  app: TestRepo;
  lib: TestRepo;
  tools: TestRepo;
  empty: TestRepo;
  /** Commit hashes by label. */
  commits: Record<string, string>;
  dispose(): Promise<void>;
}

async function head(repo: TestRepo): Promise<string> {
  return (await repo.git('rev-parse', 'HEAD')).trim();
}

/** Builds the repositories and starts an engine over them. */
export async function createWorld(overrides: TestEngineOptions = {}): Promise<McpWorld> {
  const commits: Record<string, string> = {};
  const app = await createTestRepo({
    name: 'app',
    origin: 'https://github.com/acme/app.git',
    commits: [
      {
        message: 'Initial import of the billing app',
        author: ADA,
        date: '2024-01-10T09:00:00Z',
        files: {
          'README.md': '# Acme billing\n\nParse the settings with parseConfig. Database connections are opened by openConnection.\n',
          'src/config.ts': CONFIG_TS,
          'src/server.ts': SERVER_TS('console.log(`listening on ${config.port}`);'),
          'src/util.ts': UTIL_TS,
          'src/db/connection.ts': CONNECTION_TS,
          'lib/retry_policy.py':
            'import time\n\n\ndef retry_with_backoff(action, retries=3):\n    for attempt in range(retries):\n        try:\n          ' +
            '  return action()\n        except OSError:\n            time.sleep(2 ** attempt)\n    raise RuntimeError("gave up")\n',
          'assets/logo.png': '\u0089PNG\r\n\u001a\n\u0000\u0000\u0000\rIHDR\u0000\u0000\u0000\u0001',
        },
      },
    ],
  });
  commits.initial = await head(app);
  await app.commit({
    message: 'Fix retry bug in config parsing\n\nThe default was too low for flaky networks.',
    author: ALAN,
    date: '2024-02-15T10:00:00Z',
    files: { 'src/config.ts': CONFIG_TS.replace('raw.retries ?? 3', 'raw.retries ?? 5') },
  });
  commits.retryFix = await head(app);
  await app.git('tag', 'v1.0');
  await app.commit({
    message: 'Rename util to helpers',
    author: GRACE,
    date: '2024-03-01T11:00:00Z',
    files: { 'src/util.ts': null, 'src/helpers.ts': UTIL_TS },
  });
  commits.rename = await head(app);
  await writeFile(path.join(app.dir, 'notes-latin1.txt'), LATIN1_BYTES);
  await app.commit({
    message: 'Add big data file and Latin-1 notes',
    author: ADA,
    date: '2024-03-20T12:00:00Z',
    files: { 'data/big.txt': BIG_FILE, 'assets/logo.png': '\u0089PNG\r\n\u001a\n\u0000\u0000\u0000\rIHDR\u0000\u0000\u0000\u0002' },
  });
  commits.big = await head(app);
  await symlink('../README.md', path.join(app.dir, 'src', 'readme-link'));
  await symlink('../../../../../../../../etc/passwd', path.join(app.dir, 'escape'));
  await symlink('/etc', path.join(app.dir, 'outside-dir'));
  await symlink('db', path.join(app.dir, 'src', 'database'));
  await app.commit({ message: 'Add documentation links', author: GRACE, date: '2024-04-05T08:00:00Z', files: {} });
  commits.links = await head(app);
  await app.git('checkout', '--quiet', '-b', 'feature/login');
  await app.commit({
    message: 'Add login',
    author: ALAN,
    date: '2024-04-10T08:00:00Z',
    files: { 'src/login.ts': 'export function login(user: string): boolean {\n  return user.length > 0;\n}\n' },
  });
  commits.login = await head(app);
  await app.git('checkout', '--quiet', 'main');
  const recent = new Date(Date.now() - 2 * 86_400_000).toISOString();
  await app.commit({
    message: 'Remove console logging',
    author: ADA,
    date: recent,
    files: { 'src/server.ts': SERVER_TS('logger.info(`listening on ${config.port}`);') },
  });
  commits.recent = await head(app);

  const lib = await createTestRepo({
    name: 'lib',
    origin: 'git@github.com:acme/lib.git',
    commits: [
      {
        message: 'Polyglot helpers',
        author: GRACE,
        date: '2024-01-20T09:00:00Z',
        files: {
          'ts/price.ts': 'export function formatPrice(cents: number): string {\n  return `$${(cents / 100).toFixed(2)}`;\n}\n',
          'go/server.go':
            'package main\n\ntype Config struct {\n\tPort int\n}\n\nfunc StartServer(cfg Config) error {\n\tif cfg.Port == 0 {\n\t\treturn nil\n\t}\n\treturn nil\n}\n',
          'go/main.go': 'package main\n\nfunc main() {\n\tStartServer(Config{Port: 8080})\n}\n',
          'java/Billing.java':
            'public class Billing {\n    public int computeTotal(int[] items) {\n        int sum = 0;\n        for (int item : items) ' +
            '{\n            sum += item;\n        }\n        return sum;\n    }\n}\n',
          'java/Invoice.java': 'public class Invoice {\n    int total(int[] items) {\n        return new Billing().computeTotal(items);\n    }\n}\n',
          'rust/lib.rs':
            'pub struct Header {\n    pub name: String,\n}\n\npub fn parse_header(line: &str) -> Header {\n    Header { name: line.to_string() }\n}\n',
          'rust/main.rs': 'fn main() {\n    let header = parse_header("x");\n    println!("{}", header.name);\n}\n',
          'python/retry.py': 'class RetryPolicy:\n    def next_delay(self, attempt):\n        return 2 ** attempt\n\n\nMAX_ATTEMPTS = 5\n',
          'python/use.py': 'from retry import RetryPolicy, MAX_ATTEMPTS\n\npolicy = RetryPolicy()\nprint(policy.next_delay(MAX_ATTEMPTS))\n',
          'redos.txt': `${'a'.repeat(40)}!\n`,
          [`${'a'.repeat(40)}.txt`]: 'a file whose name alone makes a careless path regex backtrack\n',
        },
      },
      {
        message: 'Speed up price formatting',
        author: ALAN,
        date: '2024-05-01T09:00:00Z',
        files: {
          'ts/price.ts':
            'export function formatPrice(cents: number): string {\n  return `$${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;\n}\n',
        },
      },
    ],
  });
  await writeFile(path.join(lib.dir, '.git', 'description'), 'Shared helpers in five languages\n');
  const tools = await createTestRepo({
    name: 'tools',
    origin: 'https://github.com/other/tools.git',
    bare: true,
    commits: [{ message: 'Add deploy script', author: GRACE, date: '2024-06-01T09:00:00Z', files: { 'deploy.sh': '#!/bin/sh\necho "deploying billing"\n' } }],
  });
  const empty = await createTestRepo({ name: 'empty', commits: [] });
  const engine = await startTestEngine({ repos: [app.dir, lib.dir, tools.dir, empty.dir], ...overrides });
  return {
    engine,
    app,
    lib,
    tools,
    empty,
    commits,
    async dispose() {
      await engine.dispose();
      for (const repo of [app, lib, tools, empty]) await repo.remove();
    },
  };
}

export interface ToolReply {
  isError: boolean;
  /** The first text block. */
  text: string;
  /** Every text block (notes follow the first). */
  texts: string[];
  structured: unknown;
}

/** An MCP client session against the engine, as user 0 unless told otherwise. */
export class McpSession {
  private constructor(readonly client: Client) {}

  static async open(url: string, token: string = TEST_TOKENS[0], endpoint = MCP_PATH): Promise<McpSession> {
    const client = new Client({ name: 'engine-mcp-tests', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(url + endpoint), { requestInit: { headers: { Authorization: `token ${token}` } } });
    await client.connect(transport);
    // Listing the tools makes the client check every structuredContent against its output schema.
    await client.listTools();
    return new McpSession(client);
  }

  async call(name: string, args: Record<string, unknown>): Promise<ToolReply> {
    const result = await this.client.callTool({ name, arguments: args });
    const blocks = Array.isArray(result.content) ? (result.content as Array<{ type: string; text?: string }>) : [];
    const texts = blocks.filter((block) => block.type === 'text').map((block) => block.text ?? '');
    return { isError: result.isError === true, text: texts[0] ?? '', texts, structured: result.structuredContent };
  }

  /** Calls a tool that must succeed; returns its text and structured result. */
  async ok<T>(name: string, args: Record<string, unknown>): Promise<{ text: string; texts: string[]; structured: T }> {
    const reply = await this.call(name, args);
    assert.equal(reply.isError, false, `${name} failed: ${reply.text}`);
    assert.ok(reply.structured, `${name} returned no structuredContent`);
    return { text: reply.text, texts: reply.texts, structured: reply.structured as T };
  }

  /** Calls a tool that must fail with a tool error; returns the message. */
  async fails(name: string, args: Record<string, unknown>): Promise<string> {
    const reply = await this.call(name, args);
    assert.equal(reply.isError, true, `${name} should have failed but answered: ${reply.text.slice(0, 300)}`);
    assert.ok(reply.text.length > 10, 'the error explains itself');
    return reply.text;
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

export interface Block {
  type: string;
  repo: string;
  file: string;
  rev?: string;
  chunks: Array<{ startLine: number; endLine: number; content: string }>;
}

/**
 * Registers the suite's hooks: build the world and open an MCP session before its tests, close
 * both after them. `assign` hands the two to the suite's own variables.
 */
export function useMcpWorld(
  assign: (made: { world: McpWorld; mcp: McpSession }) => void,
  options: { overrides?: TestEngineOptions; token?: string } = {},
): void {
  let made: { world: McpWorld; mcp: McpSession } | undefined;
  before(async function () {
    const world = await createWorld(options.overrides);
    made = { world, mcp: await McpSession.open(world.engine.url, options.token) };
    assign(made);
  });
  after(async function () {
    await made?.mcp.close();
    await made?.world.dispose();
  });
}
