/**
 * What each bundle is made of, from esbuild's own record of a fresh build: activating the extension
 * loads no HTTP, MCP or Markdown code (they are bundles of their own, required on first use), and
 * the code shared between bundles is linked, not copied.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { ENTRY_MODULES } from '../../src/engine/runtime/entryPoints';

const ROOT = path.join(__dirname, '..', '..');

/** The bundle of one of the engine's threads or its helper process: its file's name. */
const bundleOf = (module: string): string => path.posix.basename(module);

interface Metafile {
  inputs: Record<string, unknown>;
  outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }>; imports: { path: string; kind?: string; external?: boolean }[] }>;
}

const metas: Record<string, Metafile> = {};

function bundle(name: string): { inputs: string[]; externals: string[] } {
  const meta = metas[name];
  assert.ok(meta, `no metafile for ${name}`);
  // A bundle split into chunks (the webview's) is all of its scripts together.
  const outputs = Object.entries(meta.outputs)
    .filter(([file]) => file.endsWith('.js'))
    .map(([, output]) => output);
  assert.ok(outputs.length > 0, `no output in ${name}'s metafile`);
  return {
    inputs: [
      ...new Set(
        outputs.flatMap((output) =>
          Object.entries(output.inputs)
            .filter(([, input]) => input.bytesInOutput > 0)
            .map(([file]) => file),
        ),
      ),
    ],
    externals: [...new Set(outputs.flatMap((output) => output.imports.filter((entry) => entry.external).map((entry) => entry.path)))],
  };
}

const from = (inputs: string[], pkg: string) => inputs.filter((input) => input.startsWith(`node_modules/${pkg}/`));

describe('bundles', function () {
  this.timeout(60_000);

  before(() => {
    execFileSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, stdio: 'pipe' });
    for (const name of ['extension', 'network', 'mcp', 'webview', 'engineServer', 'engine', 'engineHosted', 'openaiModel', ...ENTRY_MODULES.map(bundleOf)]) {
      metas[name] = JSON.parse(readFileSync(path.join(ROOT, 'out', 'meta', `${name}.json`), 'utf8')) as Metafile;
    }
  });

  it('keeps undici, the MCP SDK, zod, marked and DOMPurify out of the activation bundle', () => {
    const { inputs } = bundle('extension');
    for (const pkg of ['undici', '@modelcontextprotocol', 'zod', 'marked', 'dompurify', 'ajv']) assert.deepEqual(from(inputs, pkg), [], pkg);
    assert.ok(!inputs.includes('src/api/client.ts') && !inputs.includes('src/api/http.ts'), 'the HTTP client is in the activation bundle');
  });

  it('requires the network bundle at run time instead of copying it', () => {
    assert.ok(bundle('extension').externals.includes('./network.js'));
    const network = bundle('network');
    assert.ok(network.inputs.includes('src/api/client.ts') && from(network.inputs, 'undici').length > 0);
    assert.deepEqual(from(network.inputs, '@modelcontextprotocol'), [], 'the MCP SDK is copied into the network bundle');
    assert.ok(network.externals.includes('./mcp.js'));
  });

  it("puts the extension's own MCP client in its own bundle: no SDK (its 1.x and 2.x are for tests only), no zod, no ajv, no HTTP code", () => {
    const { inputs } = bundle('mcp');
    assert.ok(inputs.includes('src/api/tools/mcpSession.ts') && inputs.includes('src/api/tools/sseEvents.ts'), inputs.join('\n'));
    assert.ok(from(inputs, 'eventsource-parser').length > 0, 'the event stream is read by eventsource-parser, carried in the bundle');
    for (const name of ['extension', 'network', 'mcp', 'engineServer', 'engine', 'engineHosted']) {
      assert.deepEqual(from(bundle(name).inputs, '@modelcontextprotocol'), [], `the MCP SDK in ${name}`);
      assert.deepEqual(from(bundle(name).inputs, 'zod'), [], `zod in ${name}`);
    }
    // ajv is a package of its own, or inlined in the SDK's ajvProvider chunk: neither is read.
    assert.deepEqual(
      inputs.filter((input) => input.startsWith('node_modules/') && /ajv/i.test(input)),
      [],
    );
    assert.deepEqual(from(inputs, 'undici'), []);
    assert.ok(!inputs.includes('src/api/errors.ts') && !inputs.includes('src/api/http.ts'), 'the network code is copied into the MCP bundle');
  });

  it('reads replies sent as server-sent events with the parser it carries (dist/mcp.js), however the bytes are cut', async () => {
    const { McpSession } = createRequire(__filename)(path.join(ROOT, 'dist', 'mcp.js')) as typeof import('../../src/api/tools/mcpSession');
    const discover = { supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, resultType: 'complete', ttlMs: 0, cacheScope: 'private' };
    const http = (request: { body?: string }) => {
      const sent = JSON.parse(request.body ?? '{}') as { id?: number; method?: string };
      const result = sent.method === 'server/discover' ? discover : { tools: [{ name: 'read_file', inputSchema: { type: 'object' } }], resultType: 'complete' };
      // A byte order mark, a comment, an id, CRLF line ends and the message over two data lines.
      const stream = `\uFEFF: open\r\nid: 1\r\ndata: {"jsonrpc":"2.0","id":${sent.id},\r\ndata: "result":${JSON.stringify(result)}}\r\n\r\n`;
      return Promise.resolve({
        status: 200,
        headers: { 'content-type': 'text/event-stream' },
        body: (async function* () {
          for (const byte of Buffer.from(stream)) yield Uint8Array.of(byte);
        })(),
      });
    };
    const session = new McpSession({ http, clientInfo: { name: 'test', version: '1.0.0' }, timeoutMs: 10_000 });
    await session.connect();
    assert.deepEqual(
      (await session.listTools(undefined)).tools.map((tool) => tool.name),
      ['read_file'],
    );
  });

  it('takes of undici only what the client calls: its dispatchers and request, not fetch, WebSocket, caches or mock agents', () => {
    const undici = from(bundle('network').inputs, 'undici');
    for (const part of ['lib/dispatcher/agent.js', 'lib/dispatcher/env-http-proxy-agent.js', 'lib/api/api-request.js'])
      assert.ok(undici.includes(`node_modules/undici/${part}`), part);
    assert.ok(!undici.includes('node_modules/undici/index.js'), "undici's entry, which loads all of it");
    // One HTTP parser: the portable one undici falls back to, not the SIMD copy it tries first (72 KB).
    assert.ok(undici.includes('node_modules/undici/lib/llhttp/llhttp-wasm.js'), 'the portable parser');
    assert.ok(!undici.includes('node_modules/undici/lib/llhttp/llhttp_simd-wasm.js'), 'the SIMD parser');
    for (const left of [
      'lib/web/fetch/index.js',
      'lib/web/websocket/',
      'lib/web/eventsource/',
      'lib/web/cache/',
      'lib/web/cookies/',
      'lib/mock/',
      'lib/cache/',
      'lib/interceptor/',
    ]) {
      assert.deepEqual(
        undici.filter((input) => input.startsWith(`node_modules/undici/${left}`)),
        [],
        left,
      );
    }
  });

  it('keeps the OpenAI client out of the engine library: the CLI loads it from a bundle of its own', () => {
    const library = bundle('engineServer');
    assert.deepEqual(from(library.inputs, 'openai'), []);
    assert.ok(library.externals.includes('./openaiModel.js'));
    assert.ok(from(bundle('openaiModel').inputs, 'openai').length > 0);
    assert.deepEqual(from(bundle('engineHosted').inputs, 'openai'), []);
  });

  it('links the engine CLI and the engine the extension starts to the engine library', () => {
    for (const name of ['engine', 'engineHosted']) {
      assert.ok(bundle(name).externals.includes('./engineServer.js'), name);
      assert.ok(!bundle(name).inputs.includes('src/engine/server.ts'), name);
    }
  });

  it("builds the engine's threads and its helper process as bundles of their own, beside the engine library that starts them", () => {
    for (const module of ENTRY_MODULES) {
      const name = bundleOf(module);
      // entryPoints.ts finds each as dist/<its file's name>.js.
      assert.ok(Object.keys(metas[name].outputs).includes(`dist/${name}.js`), name);
      assert.ok(bundle(name).inputs.includes(`src/engine/${module}.ts`), name);
      assert.ok(!bundle('engineServer').inputs.includes(`src/engine/${module}.ts`), `${name} is copied into the engine library`);
      assert.ok(!bundle(name).inputs.includes('src/engine/server.ts'), `the engine library is copied into ${name}`);
    }
    assert.ok(bundle('engineServer').inputs.includes('src/engine/runtime/entryPoints.ts'));
    // The launcher's helper stays as small as a bare Node: nothing of the engine's but itself.
    assert.deepEqual(bundle('processLauncherChild').inputs, ['src/engine/git/processLauncherChild.ts']);
  });

  it('keeps the engine out of the extension host: the extension bundle holds none of its code', () => {
    assert.deepEqual(
      bundle('extension').inputs.filter((input) => input.startsWith('src/engine/')),
      [],
    );
  });

  it('keeps Markdown in the webview bundle only', () => {
    assert.ok(from(bundle('webview').inputs, 'marked').length > 0 && from(bundle('webview').inputs, 'dompurify').length > 0);
    for (const name of ['extension', 'network', 'mcp']) assert.deepEqual(from(bundle(name).inputs, 'marked'), [], name);
  });

  it('loads the diagram library and the syntax colours with the webview only when an answer needs them', () => {
    const outputs = metas.webview.outputs;
    // The page's script and what it imports at once, without the chunks it imports later.
    const eager = new Set<string>();
    const visit = (file: string) => {
      if (eager.has(file)) return;
      eager.add(file);
      for (const entry of outputs[file]?.imports ?? []) if (entry.kind === 'import-statement') visit(entry.path);
    };
    visit('dist/webview/webview.js');
    const loadedAtOnce = [...eager].flatMap((file) =>
      Object.entries(outputs[file]?.inputs ?? {})
        .filter(([, input]) => input.bytesInOutput > 0)
        .map(([input]) => input),
    );
    assert.ok(from(loadedAtOnce, 'marked').length > 0 && loadedAtOnce.includes('src/webview/main.ts'), "the page's own script is found, with Markdown");
    for (const pkg of ['mermaid', 'highlight.js', 'd3', 'katex', 'cytoscape']) assert.deepEqual(from(loadedAtOnce, pkg), [], pkg);
    assert.ok(
      from(bundle('webview').inputs, 'mermaid').length > 0 && from(bundle('webview').inputs, 'highlight.js').length > 0,
      'both are chunks of the webview',
    );
  });
});
