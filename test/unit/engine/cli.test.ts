import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { API_PATH, type WireConversation } from '../../../src/contract/legacyWire';
import { DEFAULT_DATA_DIR, parseArgs } from '../../../src/engine/cliArgs';
import { CLIENT_HEADER, waitFor } from '../../support/engineHarness';
import { createSampleAppRepo, createTempDir, removeDir, type TestRepo } from '../../support/gitRepos';
import { startScriptedModel } from '../../support/scriptedModel';

describe('engine CLI arguments', function () {
  it('asks for help with --help or -h, wherever it appears', function () {
    assert.deepEqual(parseArgs(['--help']), { kind: 'help' });
    assert.deepEqual(parseArgs(['--repo', '.', '-h']), { kind: 'help' });
  });

  it('uses defaults when given nothing', function () {
    assert.deepEqual(parseArgs([]), {
      kind: 'run',
      config: { repos: [], tokens: [], dataDir: DEFAULT_DATA_DIR, sharing: true, limits: {}, oauth: true, oauthClients: [] },
    });
  });

  it('reads every option, repeatable ones repeated, in both "--flag value" and "--flag=value" forms', function () {
    const command = parseArgs([
      '--repo',
      'a',
      '--repo=b',
      '--port',
      '3370',
      '--token',
      't1',
      '--token=t2',
      '--data',
      'd',
      '--pace=5',
      '--no-sharing',
      '--max-answers',
      '2',
      '--max-tool-calls=8',
      '--oauth-client',
      'app=http://127.0.0.1/callback,vscode://x.y/oauth',
      '--oauth-client=other=http://localhost/cb',
      '--no-oauth',
    ]);
    assert.deepEqual(command, {
      kind: 'run',
      config: {
        repos: ['a', 'b'],
        port: 3370,
        tokens: ['t1', 't2'],
        dataDir: 'd',
        paceMs: 5,
        sharing: false,
        limits: { answers: 2, toolCalls: 8 },
        oauth: false,
        oauthClients: [
          { id: 'app', redirectUris: ['http://127.0.0.1/callback', 'vscode://x.y/oauth'] },
          { id: 'other', redirectUris: ['http://localhost/cb'] },
        ],
      },
    });
  });

  it('reports unknown options, stray arguments and missing or bad values as errors', function () {
    const cases: Array<[string[], RegExp]> = [
      [['--bogus'], /^Unknown option --bogus\.$/],
      [['-x'], /^Unknown option -x\.$/],
      [['--no-sharing=yes'], /^--no-sharing takes no value\.$/],
      [['extra'], /^Unexpected argument "extra"\.$/],
      [['--repo'], /^--repo needs a value\.$/],
      [['--repo', '--port', '1'], /^--repo needs a value\.$/],
      [['--data='], /^--data needs a non-empty value\.$/],
      [['--port', '70000'], /--port must be a whole number from 0 to 65535/],
      [['--port', 'http'], /--port must be a whole number/],
      [['--pace', '-1'], /^--pace needs a value\.$/],
      [['--pace', '1.5'], /--pace must be a whole number of milliseconds/],
      [['--max-answers', '0'], /--max-answers must be a whole number from 1 to 1000, not "0"/],
      [['--max-tool-calls', 'many'], /--max-tool-calls must be a whole number from 1 to 1000/],
      [['--token', 'a', '--token', 'a'], /given twice/],
      [['--token', 'has space'], /must not contain spaces/],
      [['--oauth-client', 'app'], /--oauth-client takes <client id>=<redirect URI>/],
      [['--oauth-client', 'app=not a uri'], /"not a uri" is not an absolute URI/],
      [['--oauth-client', 'a=http://127.0.0.1/', '--oauth-client', 'a=http://127.0.0.1/x'], /--oauth-client a was given twice/],
      [['--no-oauth=1'], /^--no-oauth takes no value\.$/],
    ];
    for (const [argv, message] of cases) {
      const command = parseArgs(argv);
      assert.equal(command.kind, 'error', argv.join(' '));
      assert.match(command.kind === 'error' ? command.message : '', message, argv.join(' '));
    }
  });

  it('reads --conversation-apis (legacy, both or connect) and rejects other values', function () {
    for (const value of ['legacy', 'both', 'connect'] as const) {
      const command = parseArgs(['--conversation-apis', value]);
      assert.equal(command.kind, 'run');
      assert.equal(command.kind === 'run' ? command.config.conversationApis : undefined, value);
    }
    const equals = parseArgs(['--conversation-apis=connect']);
    assert.equal(equals.kind === 'run' ? equals.config.conversationApis : undefined, 'connect');
    const bad = parseArgs(['--conversation-apis', 'v2']);
    assert.equal(bad.kind, 'error');
    assert.match(bad.kind === 'error' ? bad.message : '', /^--conversation-apis must be one of legacy, both, connect, not "v2"\.$/);
    assert.deepEqual(parseArgs(['--conversation-apis']), { kind: 'error', message: '--conversation-apis needs a value.' });
  });
});

describe('engine CLI arguments: --cors-origin', function () {
  it('reads space-separated origins, repeated, as a browser sends them (no trailing slash, no duplicates)', function () {
    const command = parseArgs(['--cors-origin', 'https://vscode.dev  http://localhost:3000/', '--cors-origin=https://vscode.dev https://*.vscode-cdn.net']);
    assert.deepEqual(command.kind === 'run' ? command.config.corsOrigins : undefined, [
      'https://vscode.dev',
      'http://localhost:3000',
      'https://*.vscode-cdn.net',
    ]);
    const none = parseArgs([]);
    assert.equal(none.kind === 'run' ? none.config.corsOrigins : 'not run', undefined, 'none by default');
  });

  it('refuses what is not an origin, saying what to write instead', function () {
    for (const [value, why] of [
      [
        'https://vscode.dev/edit',
        /^--cors-origin: "https:\/\/vscode\.dev\/edit" is not an origin \(it has a path, query, user or fragment\): name each origin as a browser sends it/,
      ],
      ['https://a*.vscode.dev', /^--cors-origin takes a wildcard only as a whole first label/],
      ['*', /^--cors-origin takes a wildcard only as a whole first label/],
      ['https://*.dev', /would allow every site under a top-level domain/],
      ['vscode.dev', /^--cors-origin: "vscode\.dev" is not an http or https origin/],
      ['https://vscode.dev?x=1', /is not an origin/],
    ] as const) {
      const command = parseArgs(['--cors-origin', value]);
      assert.equal(command.kind, 'error', value);
      assert.match(command.kind === 'error' ? command.message : '', why);
    }
    assert.deepEqual(parseArgs(['--cors-origin']), { kind: 'error', message: '--cors-origin needs a value.' });
  });
});

describe('engine CLI arguments: the tool server', function () {
  it('reads --tool-server (both, current, v1 or none) and rejects other values', function () {
    for (const value of ['both', 'current', 'v1', 'none'] as const) {
      const command = parseArgs(['--tool-server', value]);
      assert.equal(command.kind === 'run' ? command.config.toolServer : undefined, value);
    }
    assert.equal(parseArgs(['--tool-server=current']).kind, 'run');
    assert.deepEqual(parseArgs(['--tool-server', 'v2']), { kind: 'error', message: '--tool-server must be one of both, current, v1, none, not "v2".' });
    assert.deepEqual(parseArgs(['--tool-server']), { kind: 'error', message: '--tool-server needs a value.' });
  });

  it('reads --disable-tool, repeated, by 2026 names (an sg_ name is taken as its tool), and rejects unknown tools', function () {
    const command = parseArgs(['--disable-tool', 'nls_search', '--disable-tool=sg_deepsearch', '--disable-tool', 'nls_search']);
    assert.deepEqual(command.kind === 'run' ? command.config.disabledTools : undefined, ['nls_search', 'deepsearch']);
    const none = parseArgs([]);
    assert.equal(none.kind === 'run' ? none.config.disabledTools : 'not run', undefined, 'none by default');
    const bad = parseArgs(['--disable-tool', 'code_finder']);
    assert.equal(bad.kind, 'error');
    assert.match(bad.kind === 'error' ? bad.message : '', /^--disable-tool takes a tool name \(read_file, .*deepsearch_read\), not "code_finder"\.$/);
  });

  it('reads --tool-protocol (2025, 2026 or both) and rejects other values', function () {
    for (const value of ['2025', '2026', 'both'] as const) {
      const command = parseArgs(['--tool-protocol', value]);
      assert.equal(command.kind === 'run' ? command.config.toolProtocol : undefined, value);
    }
    const wrong = parseArgs(['--tool-protocol', '2024']);
    assert.equal(wrong.kind === 'error' ? wrong.message : '', '--tool-protocol must be one of 2025, 2026, both, not "2024".');
  });

  it('reads --scopes as a comma-separated list, repeated, and rejects scopes 7.x servers do not know', function () {
    const command = parseArgs(['--scopes', 'mcp, externalapi:read', '--scopes=mcp,offline_access']);
    assert.deepEqual(command.kind === 'run' ? command.config.scopes : undefined, ['mcp', 'externalapi:read', 'offline_access']);
    const none = parseArgs([]);
    assert.equal(none.kind === 'run' ? none.config.scopes : 'not run', undefined, 'unscoped by default');
    const bad = parseArgs(['--scopes', 'mcp,externalapi:admin']);
    assert.equal(bad.kind, 'error');
    assert.match(bad.kind === 'error' ? bad.message : '', /^--scopes takes user:all, externalapi:read, .*offline_access, not "externalapi:admin"\.$/);
  });
});

describe('engine CLI arguments: the model', function () {
  it('reads the model server, the model, where its key is and the limits (seconds for the timeout)', function () {
    const command = parseArgs([
      '--model-url',
      'http://127.0.0.1:11434/v1',
      '--model',
      'llama3.1',
      '--model-key-env',
      'OLLAMA_KEY',
      '--model-steps',
      '8',
      '--model-tokens=50000',
      '--model-timeout',
      '90',
    ]);
    assert.equal(command.kind, 'run');
    assert.deepEqual(command.kind === 'run' ? command.config.model : undefined, {
      baseUrl: 'http://127.0.0.1:11434/v1',
      name: 'llama3.1',
      key: { env: 'OLLAMA_KEY' },
      limits: { maxSteps: 8, maxTokens: 50_000, timeoutMs: 90_000 },
    });
    const file = parseArgs(['--model-url', 'https://api.example.com/v1', '--model', 'm', '--model-key-file', 'key.txt']);
    assert.deepEqual(file.kind === 'run' ? file.config.model?.key : undefined, { file: 'key.txt' });
  });

  it('refuses a model without its server or name, two key sources, a key on the command line, credentials in the URL and limits out of range', function () {
    const cases: Array<[string[], RegExp]> = [
      [['--model', 'm'], /^--model needs --model-url/],
      [['--model-url', 'http://127.0.0.1:1/v1'], /^--model-url needs --model/],
      [['--model-url', 'http://127.0.0.1:1/v1', '--model', 'm', '--model-key-env', 'A', '--model-key-file', 'f'], /not both/],
      [
        ['--model-url', 'http://127.0.0.1:1/v1', '--model', 'm', '--model-key-env', 'sk-live-1234'],
        /name of an environment variable .* the key itself never goes on the command line/,
      ],
      [['--model-url', 'http://user:sk-1@127.0.0.1:1/v1', '--model', 'm'], /must not hold a user name or password/],
      [
        ['--model-url', 'https://gw.example/v1?api-key=sk-1', '--model', 'm'],
        /must not hold a credential \(its query has "api-key"\): give the key with --model-key-env/,
      ],
      [['--model-url', 'https://gw.example/v1?x=1&access_token=sk-1', '--model', 'm'], /its query has "access_token"/],
      [['--model-url', 'https://gw.example/v1?sig=abc', '--model', 'm'], /its query has "sig"/],
      [['--model-url', 'file:///etc/passwd', '--model', 'm'], /must be an http or https URL/],
      [['--model-url', 'http://127.0.0.1:1/v1', '--model', 'm', '--model-steps', '0'], /--model-steps must be a whole number from 1 to 100/],
      [['--model-url', 'http://127.0.0.1:1/v1', '--model', 'm', '--model-timeout', '99999'], /--model-timeout must be a whole number from 1 to 3600/],
      [['--model-url', 'http://127.0.0.1:1/v1', '--model-url', 'http://127.0.0.1:2/v1', '--model', 'm'], /--model-url was given twice/],
    ];
    for (const [args, message] of cases) {
      const command = parseArgs(args);
      assert.equal(command.kind, 'error', args.join(' '));
      assert.match(command.kind === 'error' ? command.message : '', message, args.join(' '));
      assert.ok(!(command.kind === 'error' && command.message.includes('sk-1')), 'the credential is not repeated');
    }
    // A query that carries no credential (Azure's api-version) is the server's own business.
    assert.equal(parseArgs(['--model-url', 'https://x.openai.azure.com/openai/v1?api-version=preview', '--model', 'm']).kind, 'run');
  });
});

describe('engine CLI process', function () {
  const cli = path.resolve(__dirname, '../../../src/engine/cli.ts');
  // Resolved here so the CLI can run from any working directory.
  const tsxRegister = require.resolve('tsx/cjs');
  // And for `import()` (the CLI loads its model client so).
  const tsxImport = pathToFileURL(require.resolve('tsx/esm')).href;
  let repo: TestRepo;
  let dataRoot: string;
  before(async function () {
    repo = await createSampleAppRepo();
    dataRoot = await createTempDir('dse-cli-');
  });
  after(async function () {
    await repo?.remove();
    await removeDir(dataRoot);
  });

  interface Exit {
    code: number | null;
    stdout: string;
    stderr: string;
  }

  function start(
    args: string[],
    cwd = process.cwd(),
    env: NodeJS.ProcessEnv = {},
  ): { child: ChildProcessWithoutNullStreams; output: { stdout: string; stderr: string }; exit: Promise<Exit> } {
    const child = spawn(process.execPath, ['--require', tsxRegister, '--import', tsxImport, cli, ...args], {
      cwd,
      env: { ...process.env, NODE_OPTIONS: '', ...env },
    });
    const output = { stdout: '', stderr: '' };
    child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
    const exit = new Promise<Exit>((resolve) => child.on('close', (code) => resolve({ code, ...output })));
    return { child, output, exit };
  }

  /** Starts the CLI and waits until it has said where it listens (its whole banner, up to `Data:`). */
  async function started(
    args: string[],
    env: NodeJS.ProcessEnv = {},
  ): Promise<{ child: ChildProcessWithoutNullStreams; printed: string; url: string; exit: Promise<Exit> }> {
    const { child, output, exit } = start(args, process.cwd(), env);
    const printed = await waitFor(
      async () => output.stdout,
      (stdout) => /Data: .*\n/.test(stdout) || child.exitCode !== null,
      { description: 'the CLI to print where it listens', timeoutMs: 15_000 },
    );
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(printed)?.[1];
    assert.ok(url, printed + output.stderr);
    return { child, printed, url, exit };
  }

  it('prints usage and exits 0 for --help', async function () {
    const { exit } = start(['--help']);
    const result = await exit;
    assert.equal(result.code, 0);
    assert.match(result.stdout, /^Usage: deep-search-engine/);
  });

  it('prints the problem and usage on stderr and exits 2 for a bad flag', async function () {
    const { exit } = start(['--port', 'nope']);
    const result = await exit;
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--port must be a whole number/);
    assert.match(result.stderr, /Usage: deep-search-engine/);
    assert.equal(result.stdout, '');
  });

  it('exits 2 when no --repo is given outside a git repository', async function () {
    const { exit } = start(['--data', path.join(dataRoot, 'unused')], dataRoot);
    const result = await exit;
    assert.equal(result.code, 2);
    assert.match(result.stderr, /No --repo given and .* is not a git repository/);
  });

  it('serves the repository, prints the URL and a generated token, and stops cleanly on SIGINT', async function () {
    const dataDir = path.join(dataRoot, 'data');
    const { child, output, exit } = start(['--repo', repo.dir, '--data', dataDir, '--pace', '0']);
    const printed = await waitFor(
      async () => output.stdout,
      (stdout) => /Access token \(generated for this run\): dse_[0-9a-f]{32}\n/.test(stdout) || child.exitCode !== null,
      { description: 'the CLI to print its token', timeoutMs: 15_000 },
    );
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(printed)?.[1];
    const token = /(dse_[0-9a-f]{32})/.exec(printed)?.[1];
    assert.ok(url && token, printed + output.stderr);
    assert.match(printed, /Repositories: github\.com\/acme\/app/);

    const headers = { Authorization: `token ${token}`, 'X-Requested-With': CLIENT_HEADER, 'Content-Type': 'application/json' };
    const created = await fetch(`${url}${API_PATH}/`, { method: 'POST', headers, body: JSON.stringify({ question: 'Where is `parseConfig` defined?' }) });
    assert.equal(created.status, 200);
    const conversation = (await created.json()) as WireConversation;
    assert.equal((await fetch(`${url}${API_PATH}/`, { headers: { 'X-Requested-With': CLIENT_HEADER } })).status, 401);

    child.kill('SIGINT');
    const result = await exit;
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /Received SIGINT: stopping/);
    assert.ok(!result.stderr.includes(token), 'the token is never logged');
    assert.ok((await readdir(path.join(dataDir, 'conversations'))).includes(`${conversation.id}.json`), 'the conversation was stored');
  });

  it('serves the tool server generation asked for, without the disabled tools, to tokens of the scopes given, and says where', async function () {
    const { child, printed, url, exit } = await started([
      '--repo',
      repo.dir,
      '--data',
      path.join(dataRoot, 'tools-v1'),
      '--token',
      'dse_cli_tools',
      '--tool-server',
      'v1',
      '--disable-tool',
      'nls_search',
      '--scopes',
      'mcp',
    ]);
    assert.match(printed, /Tool server \(MCP 2026-07-28 and 2025-11-25\): http:\/\/127\.0\.0\.1:\d+\/\.api\/mcp\/v1\n/);
    assert.match(printed, /Token scopes: mcp \(/);
    const list = async (endpoint: string): Promise<Response> =>
      fetch(`${url}${endpoint}`, {
        method: 'POST',
        headers: { Authorization: 'token dse_cli_tools', 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    assert.equal((await list('/.api/mcp/all')).status, 404);
    const names = ((await (await list('/.api/mcp/v1')).json()) as { result: { tools: Array<{ name: string }> } }).result.tools.map((tool) => tool.name);
    assert.equal(names.length, 11);
    assert.ok(names.includes('sg_read_file') && !names.includes('sg_nls_search'), names.join(', '));
    // --scopes mcp: the token reaches the tool server and nothing else.
    const conversations = await fetch(`${url}${API_PATH}/`, { headers: { Authorization: 'token dse_cli_tools', 'X-Requested-With': CLIENT_HEADER } });
    assert.equal(conversations.status, 403);
    assert.match(await conversations.text(), /lacks the scope externalapi:read/);
    child.kill('SIGINT');
    assert.equal((await exit).code, 0);
  });

  it('serves only the Connect API with --conversation-apis connect, to the web origins of --cors-origin, and says where', async function () {
    const { child, printed, url, exit } = await started([
      '--repo',
      repo.dir,
      '--data',
      path.join(dataRoot, 'connect-only'),
      '--token',
      'dse_cli_connect',
      '--conversation-apis',
      'connect',
      '--cors-origin',
      'https://vscode.dev',
    ]);
    assert.match(printed, /Web origins allowed \(CORS\): https:\/\/vscode\.dev\n/);
    const preflight = await fetch(`${url}/api/deepsearch.v1.Service/ListConversationSummaries`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://vscode.dev', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization' },
    });
    assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://vscode.dev');
    assert.match(printed, /Conversation API \(Connect\): http:\/\/127\.0\.0\.1:\d+\/api\/deepsearch\.v1\.Service\n/);
    assert.ok(!printed.includes(API_PATH), printed);
    const authorization = 'token dse_cli_connect';
    assert.equal((await fetch(`${url}${API_PATH}/`, { headers: { Authorization: authorization, 'X-Requested-With': CLIENT_HEADER } })).status, 404);
    const listed = await fetch(`${url}/api/deepsearch.v1.Service/ListConversationSummaries`, {
      method: 'POST',
      headers: { Authorization: authorization, 'Content-Type': 'application/json', 'Connect-Protocol-Version': '1' },
      body: JSON.stringify({ parent: 'users/~self' }),
    });
    assert.equal(listed.status, 200);
    assert.deepEqual(await listed.json(), { conversationSummaries: [] });
    child.kill('SIGINT');
    assert.equal((await exit).code, 0);
  });

  it('investigates with the model of --model-url, its key read from the variable --model-key-env names and never printed', async function () {
    const key = 'sk-cli-secret-0815';
    const model = await startScriptedModel((_request, index) =>
      index === 0 ? { toolCalls: [{ name: 'keyword_search', arguments: { query: 'parseConfig' } }] } : { text: 'It is defined in src/config.ts.' },
    );
    try {
      const args = [
        '--repo',
        repo.dir,
        '--data',
        path.join(dataRoot, 'model'),
        '--token',
        'dse_cli_model',
        '--pace',
        '0',
        '--model-url',
        model.baseUrl,
        '--model',
        'scripted-1',
        '--model-key-env',
        'DSE_TEST_MODEL_KEY',
      ];
      const { child, printed, url, exit } = await started(args, { DSE_TEST_MODEL_KEY: key });
      assert.match(printed, /Answers: investigated by scripted-1 at http:\/\/127\.0\.0\.1:\d+\/v1 with the engine's tools/);
      const headers = { Authorization: 'token dse_cli_model', 'X-Requested-With': CLIENT_HEADER, 'Content-Type': 'application/json' };
      const created = (await (
        await fetch(`${url}${API_PATH}/`, { method: 'POST', headers, body: JSON.stringify({ question: 'Where is `parseConfig` defined?' }) })
      ).json()) as WireConversation;
      const finished = await waitFor(
        async () => (await (await fetch(`${url}${API_PATH}/${created.id}`, { headers })).json()) as WireConversation,
        (conversation) => conversation.questions.every((question) => question.status !== 'processing'),
        { description: 'the answer' },
      );
      assert.equal(finished.questions[0]?.answer, 'It is defined in src/config.ts.');
      assert.equal(model.requests[0]?.authorization, `Bearer ${key}`);
      child.kill('SIGINT');
      const result = await exit;
      assert.equal(result.code, 0, result.stderr);
      assert.ok(!result.stdout.includes(key) && !result.stderr.includes(key), 'the key is never printed');
    } finally {
      await model.close();
    }
  });

  it('takes the key out of the environment before it starts any process: no git it runs, from the first, inherits it', async function () {
    const key = 'sk-cli-secret-env-4711';
    const model = await startScriptedModel([{ text: 'unused' }]);
    // A git first on PATH that writes down whether it sees the key, then runs the real git.
    const bin = path.join(dataRoot, 'bin');
    const seen = path.join(dataRoot, 'git-saw-key.txt');
    const realGit = execFileSync('sh', ['-c', 'command -v git']).toString().trim();
    await mkdir(bin, { recursive: true });
    await writeFile(path.join(bin, 'git'), `#!/bin/sh\necho "\${DSE_TEST_ENV_KEY:-absent}" >> '${seen}'\nexec '${realGit}' "$@"\n`);
    await chmod(path.join(bin, 'git'), 0o755);
    try {
      // No --repo: the CLI first asks git whether its working folder is a repository.
      const { child, output, exit } = start(
        [
          '--data',
          path.join(dataRoot, 'env-key'),
          '--token',
          'dse_cli_env',
          '--model-url',
          model.baseUrl,
          '--model',
          'scripted-1',
          '--model-key-env',
          'DSE_TEST_ENV_KEY',
        ],
        repo.dir,
        { DSE_TEST_ENV_KEY: key, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` },
      );
      await waitFor(
        async () => output.stdout,
        (stdout) => /Data: .*\n/.test(stdout) || child.exitCode !== null,
        { description: 'the CLI to print where it listens', timeoutMs: 15_000 },
      );
      child.kill('SIGINT');
      const result = await exit;
      assert.equal(result.code, 0, result.stderr);
      const lines = (await readFile(seen, 'utf8')).trim().split('\n');
      assert.ok(lines.length > 0, 'git ran');
      assert.deepEqual([...new Set(lines)], ['absent'], 'no git saw the key');
    } finally {
      await model.close();
    }
  });

  it('exits 2, saying which, when the variable that should hold the key is not set', async function () {
    const { exit } = start(
      [
        '--repo',
        repo.dir,
        '--data',
        path.join(dataRoot, 'nokey'),
        '--model-url',
        'http://127.0.0.1:9/v1',
        '--model',
        'm',
        '--model-key-env',
        'DSE_TEST_UNSET_KEY',
      ],
      process.cwd(),
      { DSE_TEST_UNSET_KEY: '' },
    );
    const result = await exit;
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--model-key-env DSE_TEST_UNSET_KEY: that environment variable is not set or is empty/);
  });
});
