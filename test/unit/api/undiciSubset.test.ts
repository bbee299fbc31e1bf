/**
 * The part of undici the bundles carry (src/api/undiciSubset.cjs, which esbuild.mjs puts where the
 * sources import `undici`): it must hold every value the sources import from undici, and its
 * dispatchers and `request` must work as undici's own do, directly and through a proxy. It requires
 * undici's own files (`undici/lib/…`), which no version promises to keep: undici is pinned to one
 * version, and these tests fail when an update moves, renames or changes the files it takes.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as Undici from 'undici';
import { startConnectProxy, type ConnectProxy } from './connectProxy';
import { json, startScriptedInstance, type ScriptedInstance } from './scriptedInstance';

const ROOT = path.join(__dirname, '..', '..', '..');
const SUBSET = path.join(ROOT, 'src', 'api', 'undiciSubset.cjs');
const subset = createRequire(__filename)(path.join(ROOT, 'src', 'api', 'undiciSubset.cjs')) as Pick<
  typeof Undici,
  'Agent' | 'EnvHttpProxyAgent' | 'request' | 'getGlobalDispatcher'
>;

/** The names a source file imports from `undici` as values (not as types). */
function valueImports(text: string): string[] {
  return [...text.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s*from\s*'undici'/g)]
    .filter((match) => match[1] === undefined)
    .flatMap((match) => match[2].split(','))
    .map((name) => name.trim())
    .filter((name) => name !== '' && !name.startsWith('type '))
    .map((name) => name.split(/\s+as\s+/)[0]);
}

describe('the part of undici in the bundles', function () {
  let instance: ScriptedInstance | undefined;
  let proxy: ConnectProxy | undefined;
  const dispatchers: Undici.Dispatcher[] = [];

  afterEach(async () => {
    await Promise.all(dispatchers.splice(0).map((dispatcher) => dispatcher.destroy()));
    await proxy?.close();
    await instance?.close();
    proxy = instance = undefined;
  });

  it("is pinned to one version of undici, and takes from its files the very objects undici's entry exports", function () {
    const declared = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies.undici;
    const installed = (JSON.parse(readFileSync(path.join(ROOT, 'node_modules', 'undici', 'package.json'), 'utf8')) as { version: string }).version;
    assert.match(declared ?? '', /^\d+\.\d+\.\d+$/, 'package.json names an exact version of undici, not a range');
    assert.equal(installed, declared, 'the installed undici is the pinned one');
    const files = [...readFileSync(SUBSET, 'utf8').matchAll(/require\('(undici\/lib\/[^']+)'\)/g)].map((match) => match[1]);
    assert.deepEqual(files, [
      'undici/lib/dispatcher/dispatcher',
      'undici/lib/dispatcher/agent',
      'undici/lib/dispatcher/env-http-proxy-agent',
      'undici/lib/api',
      'undici/lib/global',
    ]);
    const load = createRequire(SUBSET);
    const [Dispatcher, Agent, EnvHttpProxyAgent, api, global] = files.map((file) => load(file) as unknown);
    // The same objects, not look-alikes: undici's entry is built from these files.
    assert.equal(Dispatcher, Undici.Dispatcher);
    assert.equal(Agent, Undici.Agent);
    assert.equal(EnvHttpProxyAgent, Undici.EnvHttpProxyAgent);
    assert.equal((global as { getGlobalDispatcher: unknown }).getGlobalDispatcher, Undici.getGlobalDispatcher);
    for (const method of ['request', 'stream', 'pipeline', 'upgrade', 'connect'] as const) {
      assert.equal(typeof (api as Record<string, unknown>)[method], 'function', `undici/lib/api exports ${method}`);
      assert.equal(
        (api as Record<string, unknown>)[method],
        (Undici.Dispatcher.prototype as unknown as Record<string, unknown>)[method],
        `dispatchers get ${method} from undici/lib/api`,
      );
    }
  });

  it('answers each form of request the client sends as the public undici does', async function () {
    instance = await startScriptedInstance((request) =>
      request.url.startsWith('/missing')
        ? { status: 404, body: 'no such thing', headers: { 'x-kind': 'absent' } }
        : json({
            method: request.method,
            url: request.url,
            body: request.body,
            type: request.headers['content-type'] ?? null,
            custom: request.headers['x-custom'] ?? null,
          }),
    );
    const base = instance.url;
    const forms: Array<[string, string | URL, Parameters<typeof Undici.request>[1]]> = [
      ['a GET of a string URL', `${base}/a`, {}],
      ['a URL with a query', new URL('/b/c?d=1&e=%20', base), {}],
      [
        'a POST with headers and a body',
        `${base}/post`,
        { method: 'POST', headers: { 'content-type': 'application/json', 'x-custom': 'yes' }, body: '{"x":1}' },
      ],
      ['a body without a method', `${base}/put`, { body: 'text' }],
      ['a DELETE', `${base}/gone`, { method: 'DELETE' }],
      ['a HEAD', `${base}/head`, { method: 'HEAD' }],
      ['a refusal', `${base}/missing?x`, {}],
    ];
    const agent = new subset.Agent();
    dispatchers.push(agent);
    for (const [form, url, options] of forms) {
      const seen = async (send: typeof subset.request): Promise<unknown> => {
        const response = await send(url, { ...options, dispatcher: agent });
        const { date: _date, ...headers } = response.headers;
        return { status: response.statusCode, headers, body: await response.body.text() };
      };
      assert.deepEqual(await seen(subset.request), await seen(Undici.request), form);
    }
  });

  it('holds every value the sources import from undici', function () {
    const sources = readdirSync(path.join(ROOT, 'src'), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
    const imported = new Set(sources.flatMap((file) => valueImports(readFileSync(path.join(ROOT, 'src', file), 'utf8'))));
    assert.ok(imported.has('request') && imported.has('Agent'), `found: ${[...imported].join(', ')}`);
    assert.deepEqual(
      [...imported].filter((name) => !(name in subset)),
      [],
      'imported from undici but missing from src/api/undiciSubset.cjs',
    );
    assert.deepEqual(
      valueImports("import { request, type Dispatcher } from 'undici';\nimport type { Agent } from 'undici';"),
      ['request'],
      'the scan tells values from types',
    );
  });

  it('sends a request through an agent, and through the global dispatcher when given none', async function () {
    instance = await startScriptedInstance((request) => json({ seen: `${request.method} ${request.url}`, body: request.body }));
    const agent = new subset.Agent();
    dispatchers.push(agent);
    const sent = await subset.request(new URL('/a/b?c=1', instance.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"x":1}',
      dispatcher: agent,
    });
    assert.equal(sent.statusCode, 200);
    assert.deepEqual(await sent.body.json(), { seen: 'POST /a/b?c=1', body: '{"x":1}' });
    const global = await subset.request(`${instance.url}/d`);
    assert.deepEqual(await global.body.json(), { seen: 'GET /d', body: '' });
    assert.equal(typeof subset.getGlobalDispatcher().dispatch, 'function');
  });

  it('tunnels through a proxy with the proxy agent, and stops when the signal aborts', async function () {
    instance = await startScriptedInstance((request) => (request.url === '/slow' ? { delayMs: 5_000, then: { status: 200 } } : json({ ok: true })));
    proxy = await startConnectProxy(instance.port);
    const agent = new subset.EnvHttpProxyAgent({ httpProxy: proxy.url, httpsProxy: proxy.url, noProxy: ',' });
    dispatchers.push(agent);
    const answered = await subset.request(`http://deepsearch.invalid:${instance.port}/x`, { dispatcher: agent });
    assert.deepEqual(await answered.body.json(), { ok: true });
    assert.deepEqual(proxy.tunnels, [`deepsearch.invalid:${instance.port}`]);
    const controller = new AbortController();
    const slow = subset.request(`http://deepsearch.invalid:${instance.port}/slow`, { dispatcher: agent, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(slow, (error: Error) => error.name === 'AbortError' || /abort/i.test(error.message));
  });
});
