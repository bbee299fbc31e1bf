/**
 * The web build as it ships (dist/web/extension.js, package.json `browser`): what VS Code for the
 * Web's web-worker extension host can load. Its bundle holds no Node module, no undici and no
 * child process, requires nothing but `vscode`, and it activates and talks to the local engine in a
 * context that has a web worker's globals only (no `process`, no `Buffer`, no `require` but the one
 * the host gives), loaded the way the host loads it (the file's text as a function of `module`,
 * `exports` and `require`).
 *
 * What cannot run here: the `vscode` module is a stand-in (`fakeVscode` below: records what the
 * extension registers, keeps settings, state and secrets in memory), and the worker a `vm` context
 * of Node; the real VS Code for the Web in Chromium is the web tests'.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import vm from 'node:vm';
import { startTestEngine, TEST_TOKENS, type TestEngine } from '../support/engineHarness';
import { SAMPLE_APP_NAME } from '../support/gitRepos';

const ROOT = path.join(__dirname, '..', '..');
const BUNDLE = path.join(ROOT, 'dist', 'web', 'extension.js');

/** Sources that only a Node extension host has: none of them may be in the web bundle. */
const NODE_ONLY = [
  'src/api/network.ts',
  'src/api/undiciTransport.ts',
  'src/api/oauth/loopbackRedirect.ts',
  'src/vscode/auth/nodeNetwork.ts',
  'src/vscode/engine/localEngine.ts',
  'src/vscode/engine/engineProcess.ts',
  'src/vscode/workspace/git.ts',
  'src/vscode/workspace/gitRepositories.ts',
];

interface Metafile {
  outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }>; imports: { path: string; external?: boolean }[] }>;
}

describe('the web bundle (dist/web/extension.js)', function () {
  this.timeout(120_000);
  let source: string;
  let meta: Metafile;

  before(() => {
    execFileSync(process.execPath, ['esbuild.mjs', '--only', 'web'], { cwd: ROOT, stdio: 'pipe' });
    source = readFileSync(BUNDLE, 'utf8');
    meta = JSON.parse(readFileSync(path.join(ROOT, 'out', 'meta', 'web.json'), 'utf8')) as Metafile;
  });

  it("is the manifest's browser entry, beside the Node one", () => {
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { main: string; browser: string };
    assert.equal(manifest.browser, './dist/web/extension.js');
    assert.equal(manifest.main, './dist/extension.js');
  });

  it('requires nothing but vscode, and holds no Node module, no undici, no child process', () => {
    const [output] = Object.values(meta.outputs).filter((_, index) => Object.keys(meta.outputs)[index].endsWith('.js'));
    const externals = [...new Set(output.imports.filter((entry) => entry.external).map((entry) => entry.path))];
    assert.deepEqual(externals, ['vscode']);
    const inputs = Object.entries(output.inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([file]) => file);
    assert.deepEqual(
      inputs.filter((input) => input.startsWith('node_modules/undici/')),
      [],
    );
    assert.deepEqual(
      inputs.filter((input) => NODE_ONLY.includes(input)),
      [],
    );
    assert.ok(inputs.includes('src/api/fetchTransport.ts'), 'the web bundle sends with fetch');
    const required = [...new Set([...source.matchAll(/\brequire\(\s*["'`]([^"'`]+)["'`]\s*\)/g)].map((match) => match[1]))];
    assert.deepEqual(required, ['vscode']);
    assert.doesNotMatch(source, /["'`]node:[a-z_/]+["'`]/);
    assert.doesNotMatch(source, /child_process|worker_threads|\bundici\b/);
  });

  describe('loaded as the web worker host loads it', function () {
    let engine: TestEngine;
    before(async () => {
      engine = await startTestEngine({ paceMs: 5 });
    });
    after(() => engine.dispose());

    it('activates with web globals only, registers every command, and signs in and talks to the engine over fetch', async () => {
      const vscode = fakeVscode();
      const context = fakeContext();
      const module = { exports: {} as { activate?: (context: unknown) => WebApi } };
      const worker = vm.createContext(webWorkerGlobals());
      const load = vm.runInContext(`(function (module, exports, require) {\n${source}\n})`, worker, { filename: BUNDLE }) as (
        module: unknown,
        exports: unknown,
        require: (name: string) => unknown,
      ) => void;
      load(module, module.exports, (name) => {
        if (name === 'vscode') return vscode.api;
        throw new Error(`Cannot load module '${name}'`);
      });
      const api = module.exports.activate!(context);
      const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { contributes: { commands: { command: string }[] } };
      const declared = manifest.contributes.commands.map((entry) => entry.command).sort();
      assert.deepEqual(
        declared.filter((command) => !vscode.commands.has(command)),
        [],
        'every command of the manifest is registered on the web',
      );
      assert.ok(vscode.uriHandlers > 0, 'browser sign-ins come back through the URI handler');
      assert.equal((await api.signIn.redirects.choose('loopback')).kind, 'uriHandler', 'a web worker has no loopback listener, whatever the setting says');
      await api.session.whenRestored();
      assert.deepEqual(vscode.shown, [], 'activating and restoring said nothing went wrong');

      // The command's path: the token checked against both interfaces over fetch, stored, then connected.
      assert.equal(await vscode.commands.get('deepSearch.signIn')!({ instanceUrl: engine.url, token: TEST_TOKENS[0] }), true);
      assert.deepEqual(vscode.shown, [], 'the check found both interfaces working');
      const connection = api.session.current!;
      assert.equal(connection.instanceUrl, engine.url);
      assert.equal(vscode.settings.get('deepSearch.instanceUrl'), engine.url);
      assert.equal(context.secretCount(), 1, 'the token went to SecretStorage');
      const created = await connection.client.createConversation('Where is parseConfig defined?');
      const page = await connection.client.listConversations();
      assert.ok(page.conversations.some((conversation) => conversation.id === created.id));
      const repos = await connection.tools.listRepositories('');
      assert.ok(repos.repositories.some((repo) => repo.name === SAMPLE_APP_NAME));
      assert.equal(await api.session.signOut(), undefined);
      assert.deepEqual(vscode.shown, []);
      for (const disposable of context.subscriptions) (disposable as { dispose(): void }).dispose();
    });
  });
});

interface WebApi {
  signIn: { redirects: { choose(preference: 'auto' | 'uriHandler' | 'loopback'): Promise<{ kind: string }> } };
  session: {
    whenRestored(): Promise<void>;
    signOut(): Promise<string | undefined>;
    current?: {
      instanceUrl: string;
      client: { createConversation(question: string): Promise<{ id: number }>; listConversations(): Promise<{ conversations: { id: number }[] }> };
      tools: { listRepositories(query: string): Promise<{ repositories: { name: string }[] }> };
    };
  };
}

/** What a dedicated worker of a browser has (and Node has too), and nothing of Node's own. */
function webWorkerGlobals(): Record<string, unknown> {
  const names = [
    'fetch',
    'Headers',
    'Request',
    'Response',
    'ReadableStream',
    'URL',
    'URLSearchParams',
    'TextEncoder',
    'TextDecoder',
    'AbortController',
    'AbortSignal',
    'crypto',
    'btoa',
    'atob',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'queueMicrotask',
    'structuredClone',
    'performance',
    'console',
    'Event',
    'EventTarget',
  ] as const;
  const globals: Record<string, unknown> = Object.fromEntries(names.map((name) => [name, (globalThis as Record<string, unknown>)[name]]));
  globals.location = { origin: 'https://vscode.dev', href: 'https://vscode.dev/worker.js' };
  globals.self = globals;
  return globals;
}

/** A stand-in URI with the parts and calls the extension uses. */
class FakeUri {
  constructor(
    readonly scheme: string,
    readonly authority: string,
    readonly path: string,
    readonly query = '',
    readonly fragment = '',
  ) {}
  static parse(value: string): FakeUri {
    const url = new URL(value);
    return new FakeUri(url.protocol.slice(0, -1), url.host, decodeURIComponent(url.pathname), url.search.slice(1), url.hash.slice(1));
  }
  static file(fsPath: string): FakeUri {
    return new FakeUri('file', '', fsPath);
  }
  static from(parts: { scheme: string; authority?: string; path?: string; query?: string; fragment?: string }): FakeUri {
    return new FakeUri(parts.scheme, parts.authority ?? '', parts.path ?? '', parts.query ?? '', parts.fragment ?? '');
  }
  static joinPath(base: FakeUri, ...segments: string[]): FakeUri {
    return base.with({ path: [base.path.replace(/\/$/, ''), ...segments].join('/') });
  }
  get fsPath(): string {
    return this.path;
  }
  with(change: Partial<Pick<FakeUri, 'scheme' | 'authority' | 'path' | 'query' | 'fragment'>>): FakeUri {
    return new FakeUri(
      change.scheme ?? this.scheme,
      change.authority ?? this.authority,
      change.path ?? this.path,
      change.query ?? this.query,
      change.fragment ?? this.fragment,
    );
  }
  toString(): string {
    return `${this.scheme}://${this.authority}${this.path}${this.query ? `?${this.query}` : ''}${this.fragment ? `#${this.fragment}` : ''}`;
  }
}

class FakeEventEmitter<T> {
  private readonly listeners = new Set<(value: T) => void>();
  readonly event = (listener: (value: T) => void) => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };
  fire(value: T): void {
    for (const listener of [...this.listeners]) listener(value);
  }
  dispose(): void {
    this.listeners.clear();
  }
}

/** Anything else the extension touches: callable, constructible, every member another of itself, a disposable. */
function anything(): unknown {
  const target = function () {};
  const assigned = new Map<string | symbol, unknown>();
  return new Proxy(target, {
    set: (_target, property, value) => {
      assigned.set(property, value);
      return true;
    },
    get: (_target, property) => {
      if (assigned.has(property)) return assigned.get(property);
      if (property === 'then') return undefined;
      if (property === 'dispose') return () => undefined;
      if (property === Symbol.iterator) return function* () {};
      if (property === Symbol.toPrimitive) return () => '';
      return anything();
    },
    apply: () => anything(),
    construct: () => anything() as object,
  });
}

/** The namespaces and classes of the `vscode` module the bundle reads (the rest of each is `anything`). */
const NAMESPACES = ['lm', 'chat', 'languages', 'authentication', 'extensions', 'tasks', 'debug', 'scm', 'tests', 'notebooks', 'comments'];
const CLASSES = [
  'ThemeIcon',
  'ThemeColor',
  'FileSystemError',
  'FileType',
  'FilePermission',
  'TreeItem',
  'TreeItemCollapsibleState',
  'Location',
  'Range',
  'Position',
  'Selection',
  'MarkdownString',
  'TextEditorRevealType',
  'ViewColumn',
  'StatusBarAlignment',
  'CancellationTokenSource',
  'McpHttpServerDefinition',
  'LanguageModelTextPart',
  'LanguageModelChatMessage',
  'LanguageModelToolResult',
  'LanguageModelToolCallPart',
  'LanguageModelToolResultPart',
  'LanguageModelError',
];

function fakeVscode() {
  const commands = new Map<string, (...args: unknown[]) => unknown>();
  const settings = new Map<string, unknown>();
  /** Every warning and error shown to the user. */
  const shown: string[] = [];
  let uriHandlers = 0;
  const disposable = { dispose: () => undefined };
  const format = (message: string, ...args: unknown[]) => message.replace(/\{(\d+)\}/g, (_, index: string) => String(args[Number(index)]));
  const known: Record<string, unknown> = {
    Uri: FakeUri,
    EventEmitter: FakeEventEmitter,
    Disposable: class {
      static from = () => disposable;
      constructor(private readonly onDispose: () => void) {}
      dispose() {
        this.onDispose();
      }
    },
    ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
    ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
    l10n: {
      t: (message: string | { message: string; args?: unknown[] }, ...args: unknown[]) =>
        typeof message === 'string' ? format(message, ...args) : format(message.message, ...(message.args ?? [])),
      bundle: undefined,
    },
    env: {
      uriScheme: 'vscode',
      appName: 'Visual Studio Code',
      asExternalUri: async (uri: FakeUri) => uri,
      openExternal: async () => true,
      clipboard: { writeText: async () => undefined },
    },
    commands: {
      registerCommand: (name: string, handler: (...args: unknown[]) => unknown) => {
        commands.set(name, handler);
        return disposable;
      },
      executeCommand: async () => undefined,
    },
    workspace: new Proxy(
      {
        workspaceFolders: undefined,
        getConfiguration: (section?: string) => ({
          get: <T>(key: string, fallback?: T) => (settings.has(`${section}.${key}`) ? settings.get(`${section}.${key}`) : fallback),
          has: () => false,
          inspect: () => undefined,
          update: async (key: string, value: unknown) => void settings.set(`${section}.${key}`, value),
        }),
      },
      { get: (target, property) => (property in target ? (target as Record<string | symbol, unknown>)[property] : anything()) },
    ),
    window: new Proxy(
      {
        registerUriHandler: () => {
          uriHandlers++;
          return disposable;
        },
        createOutputChannel: () => ({
          info: () => undefined,
          warn: () => undefined,
          error: () => undefined,
          debug: () => undefined,
          trace: () => undefined,
          appendLine: () => undefined,
          append: () => undefined,
          show: () => undefined,
          dispose: () => undefined,
        }),
        showWarningMessage: async (message: string) => void shown.push(message),
        showErrorMessage: async (message: string) => void shown.push(message),
        showInformationMessage: async () => undefined,
        withProgress: async <T>(_options: unknown, task: (progress: { report(): void }, token: unknown) => Promise<T>) =>
          task({ report: () => undefined }, { isCancellationRequested: false, onCancellationRequested: () => disposable }),
      },
      { get: (target, property) => (property in target ? (target as Record<string | symbol, unknown>)[property] : anything()) },
    ),
  };
  // The bundle copies the module's own properties (esbuild's interop): every name it reads must be one.
  for (const name of [...NAMESPACES, ...CLASSES]) known[name] ??= anything();
  const api = known;
  return {
    api,
    commands,
    settings,
    shown,
    get uriHandlers() {
      return uriHandlers;
    },
  };
}

function fakeContext() {
  const memento = () => {
    const values = new Map<string, unknown>();
    return {
      get: <T>(key: string, fallback?: T) => (values.has(key) ? values.get(key) : fallback),
      update: async (key: string, value: unknown) => void values.set(key, value),
      keys: () => [...values.keys()],
      setKeysForSync: () => undefined,
    };
  };
  const secrets = new Map<string, string>();
  const changed = new FakeEventEmitter<{ key: string }>();
  return {
    subscriptions: [] as unknown[],
    globalState: memento(),
    workspaceState: memento(),
    secrets: {
      get: async (key: string) => secrets.get(key),
      store: async (key: string, value: string) => {
        secrets.set(key, value);
        changed.fire({ key });
      },
      delete: async (key: string) => {
        secrets.delete(key);
        changed.fire({ key });
      },
      onDidChange: changed.event,
    },
    secretCount: () => secrets.size,
    extensionUri: FakeUri.parse('https://vscode.dev/extension'),
    extension: { id: 'deepsearch-team.deep-search-vscode' },
    storageUri: undefined,
    globalStorageUri: FakeUri.parse('https://vscode.dev/storage'),
  };
}
