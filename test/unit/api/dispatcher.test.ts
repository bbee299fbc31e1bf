/**
 * The dispatcher built from proxy and certificate settings, proven with a real CONNECT proxy and a
 * real HTTPS server whose self-signed certificate `openssl` makes at test time.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Dispatcher } from 'undici';
import { DeepSearchClient } from '../../../src/api/client';
import { createDispatcher, undiciTransport, type DispatcherOptions } from '../../../src/api/undiciTransport';
import { startConnectProxy, type ConnectProxy } from './connectProxy';
import { expectError } from './expectError';
import { completedConversation } from './samples';
import { json, startScriptedInstance, type ScriptedInstance } from './scriptedInstance';

describe('dispatcher', () => {
  let instance: ScriptedInstance | undefined;
  let proxy: ConnectProxy | undefined;
  let dispatcher: Dispatcher | undefined;

  afterEach(async () => {
    await dispatcher?.destroy();
    await proxy?.close();
    await instance?.close();
    dispatcher = proxy = instance = undefined;
  });

  function clientVia(instanceUrl: string, options: DispatcherOptions): DeepSearchClient {
    dispatcher = createDispatcher(options);
    return new DeepSearchClient({
      instanceUrl,
      token: 'sgp_dispatcher',
      transport: undiciTransport(dispatcher),
      retry: { maxAttempts: 1 },
      conversationApi: 'legacy',
    });
  }

  describe('proxy', () => {
    it('tunnels requests through the configured proxy', async () => {
      instance = await startScriptedInstance(() => json(completedConversation()));
      proxy = await startConnectProxy(instance.port);
      // `.invalid` never resolves: only the proxy can reach this "instance".
      const client = clientVia(`http://deepsearch.invalid:${instance.port}`, { proxyUrl: proxy.url });
      assert.equal((await client.getConversation(140)).id, 140);
      assert.deepEqual(proxy.tunnels, [`deepsearch.invalid:${instance.port}`]);
      assert.equal(instance.requests[0].headers.host, `deepsearch.invalid:${instance.port}`);
    });

    it('accepts a proxy given as host:port', async () => {
      instance = await startScriptedInstance(() => json(completedConversation()));
      proxy = await startConnectProxy(instance.port);
      const client = clientVia(`http://deepsearch.invalid:${instance.port}`, { proxyUrl: proxy.url.replace('http://', '') });
      await client.getConversation(140);
      assert.equal(proxy.tunnels.length, 1);
    });

    it('reaches the local engine on loopback directly, even with a proxy set', async () => {
      instance = await startScriptedInstance(() => json(completedConversation()));
      proxy = await startConnectProxy(instance.port);
      await clientVia(instance.url, { proxyUrl: proxy.url }).getConversation(140);
      assert.deepEqual(proxy.tunnels, []);
      assert.equal(instance.requests.length, 1);
    });

    it('sends loopback through the proxy when told to', async () => {
      instance = await startScriptedInstance(() => json(completedConversation()));
      proxy = await startConnectProxy(instance.port);
      await clientVia(instance.url, { proxyUrl: proxy.url, bypassProxyForLoopback: false }).getConversation(140);
      assert.equal(proxy.tunnels.length, 1);
    });

    it('skips the proxy for hosts in noProxy', async () => {
      instance = await startScriptedInstance(() => json(completedConversation()));
      proxy = await startConnectProxy(instance.port);
      await clientVia(`http://localhost:${instance.port}`, { proxyUrl: proxy.url, bypassProxyForLoopback: false, noProxy: ['localhost'] }).getConversation(140);
      assert.deepEqual(proxy.tunnels, []);
    });

    it('reports a proxy that refuses the tunnel as a network error that mentions proxy settings', async () => {
      instance = await startScriptedInstance(() => json(completedConversation()));
      proxy = await startConnectProxy(instance.port, { refuseWith: 407 });
      const error = await expectError(clientVia(`http://deepsearch.invalid:${instance.port}`, { proxyUrl: proxy.url }).getConversation(140), 'network');
      assert.match(error.message, /Could not reach http:\/\/deepsearch\.invalid:\d+ — check the instance URL, your network or proxy settings/);
      assert.equal(instance.requests.length, 0);
    });
  });

  describe('certificates', () => {
    let dir: string;
    let tls: { key: string; cert: string };

    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'deepsearch-tls-'));
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-days',
          '2',
          '-keyout',
          join(dir, 'key.pem'),
          '-out',
          join(dir, 'cert.pem'),
          '-subj',
          '/CN=127.0.0.1',
          '-addext',
          'subjectAltName=IP:127.0.0.1,DNS:localhost',
        ],
        { stdio: 'ignore' },
      );
      tls = { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
    });

    after(() => {
      rmSync(dir, { recursive: true, force: true });
    });

    it('rejects a certificate no trusted CA signed, naming the TLS problem', async () => {
      instance = await startScriptedInstance(() => json(completedConversation()), tls);
      const error = await expectError(clientVia(instance.url, {}).getConversation(140), 'network');
      assert.match(error.message, /TLS certificate of https:\/\/127\.0\.0\.1:\d+ could not be verified/);
      assert.equal(instance.requests.length, 0);
    });

    it('trusts a certificate signed by an extra CA from the settings', async () => {
      instance = await startScriptedInstance(() => json(completedConversation()), tls);
      const client = clientVia(instance.url, { caCertificates: [tls.cert] });
      assert.equal((await client.getConversation(140)).id, 140);
    });

    it('accepts any certificate when strict SSL is off', async () => {
      instance = await startScriptedInstance(() => json(completedConversation()), tls);
      assert.equal((await clientVia(instance.url, { strictSSL: false }).getConversation(140)).id, 140);
    });
  });
});
