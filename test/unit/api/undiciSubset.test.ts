/**
 * The part of undici the bundles carry (src/api/undiciSubset.cjs, which esbuild.mjs puts where the
 * sources import `undici`): it must hold every value the sources import from undici, and its
 * dispatchers and `request` must work as undici's own do, directly and through a proxy.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as Undici from 'undici';
import { startConnectProxy, type ConnectProxy } from './connectProxy';
import { json, startScriptedInstance, type ScriptedInstance } from './scriptedInstance';

const ROOT = path.join(__dirname, '..', '..', '..');
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
