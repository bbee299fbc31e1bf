import assert from 'node:assert/strict';
import type { WireConversation, WireErrorBody } from '../../../src/contract/legacyWire';
import type { EngineFault } from '../../../src/engine/options';
import { startTestEngine, type TestEngine } from '../../support/engineHarness';

describe('engine: injected request faults', function () {
  let engine: TestEngine;
  /** The fault to apply to the next request whose path ends with `target`, then cleared. */
  let next: { target: string; fault: EngineFault } | undefined;
  const seen: Array<{ method: string; path: string }> = [];

  before(async function () {
    engine = await startTestEngine({
      faults: {
        request: (request) => {
          seen.push(request);
          if (!next || !request.path.endsWith(next.target)) return undefined;
          const { fault } = next;
          next = undefined;
          return fault;
        },
      },
    });
  });
  after(async function () {
    await engine?.dispose();
  });

  it("passes each request's method and path to the hook", async function () {
    await engine.api('/?sort=id');
    assert.deepEqual(seen[seen.length - 1], { method: 'GET', path: '/.api/deepsearch/v1/' });
  });

  it('answers with the given status, body and content type (an HTML 502 page from a proxy)', async function () {
    next = { target: '/v1/', fault: { kind: 'status', status: 502, body: '<html><body>Bad gateway</body></html>', contentType: 'text/html' } };
    const response = await engine.api('/');
    assert.equal(response.status, 502);
    assert.equal(response.headers.get('content-type'), 'text/html');
    assert.equal(response.text, '<html><body>Bad gateway</body></html>');
    assert.equal((await engine.api('/')).status, 200, 'only the one request');
  });

  it('answers a JSON error when a status fault has no body', async function () {
    next = { target: '/v1/', fault: { kind: 'status', status: 503 } };
    const response = await engine.api<WireErrorBody>('/');
    assert.equal(response.status, 503);
    assert.match(response.json.error, /Injected fault/);
  });

  it('resets the connection', async function () {
    next = { target: '/v1/', fault: { kind: 'reset' } };
    await assert.rejects(engine.api('/'), TypeError);
    assert.equal((await engine.api('/')).status, 200);
  });

  it('delays the answer by at least the given time, then serves it', async function () {
    next = { target: '/v1/', fault: { kind: 'delay', ms: 300 } };
    const started = Date.now();
    const response = await engine.api<WireConversation[]>('/');
    assert.ok(Date.now() - started >= 290, 'not before the delay');
    assert.equal(response.status, 200);
    assert.ok(Array.isArray(response.json));
  });

  it('answers 200 with a cut-off JSON body, after handling the request', async function () {
    next = { target: '/v1/', fault: { kind: 'malformed' } };
    const response = await engine.api('/', { method: 'POST', body: { question: 'Where is `parseConfig` defined?' } });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    assert.throws(() => JSON.parse(response.text) as unknown, SyntaxError);
    assert.ok(response.text.startsWith('{"id":'));
    const listed = await engine.api<WireConversation[]>('/');
    assert.equal(listed.json.length, 1, 'the create did happen');
    await engine.waitUntilFinished(listed.json[0]?.id ?? 0);
  });
});
