/**
 * A file an answer generated is read with the user's sign-in, so the client reads it from the
 * instance only: against the engine, the file comes back for a link on the instance, and a link
 * anywhere else (another origin, a protocol-relative one, one carrying credentials, one outside the
 * instance's path) is refused before any request leaves, which a second server on loopback, that
 * counts what reaches it, shows.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DeepSearchClient } from '../../../src/api/client';
import type { DeepSearchError } from '../../../src/api/errors';
import { startTestEngine, TEST_TOKENS, type TestEngine } from '../../support/engineHarness';
import { answeredConversation, storeConversations } from '../../support/storedConversations';

describe('reading a file an answer generated (DeepSearchClient.fetchGeneratedFile, against the engine)', function () {
  this.timeout(60_000);
  let engine: TestEngine;
  let elsewhere: Server;
  let elsewhereUrl = '';
  const reachedElsewhere: string[] = [];

  before(async () => {
    engine = await startTestEngine();
    await engine.stop();
    const record = answeredConversation({
      id: 31,
      question: 'Prices?',
      title: 'Prices',
      answer: '[prices](/deepsearch/files/31/prices.csv)',
      at: new Date().toISOString(),
    });
    record.files = [{ name: 'prices.csv', content_type: 'text/csv', text: 'cents,price\n199,$1.99\n' }];
    await storeConversations(engine.dataDir, [record]);
    await engine.restart({});
    elsewhere = createServer((request, response) => {
      reachedElsewhere.push(`${request.method} ${request.url} ${request.headers.authorization ?? 'no authorization'}`);
      response.writeHead(200, { 'content-type': 'text/csv' }).end('stolen,0\n');
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
  });

  after(async () => {
    elsewhere?.closeAllConnections();
    await new Promise((resolve) => elsewhere?.close(resolve));
    await engine?.stop();
  });

  const client = (instanceUrl = engine.url) => new DeepSearchClient({ instanceUrl, token: TEST_TOKENS[0] });

  it('reads the file from a link on the instance, relative or absolute', async () => {
    assert.deepEqual(await client().fetchGeneratedFile('/deepsearch/files/31/prices.csv'), {
      text: 'cents,price\n199,$1.99\n',
      contentType: 'text/csv; charset=utf-8',
    });
    assert.equal((await client().fetchGeneratedFile(`${engine.url}/deepsearch/files/31/prices.csv`)).text, 'cents,price\n199,$1.99\n');
  });

  it('refuses a link anywhere else before sending anything, the token least of all', async () => {
    const port = new URL(engine.url).port;
    const refused = [
      `${elsewhereUrl}/deepsearch/files/31/prices.csv`,
      `//127.0.0.1:${new URL(elsewhereUrl).port}/deepsearch/files/31/prices.csv`,
      `http://user:secret@127.0.0.1:${port}/deepsearch/files/31/prices.csv`,
      `http://localhost:${port}/deepsearch/files/31/prices.csv`,
      'javascript:alert(1)',
    ];
    for (const href of refused) {
      await assert.rejects(client().fetchGeneratedFile(href), (error: DeepSearchError) => error.kind === 'badRequest', href);
    }
    // An instance under a path: a file of the same host outside that path is not the instance's.
    await assert.rejects(
      client(`${engine.url}/sourcegraph`).fetchGeneratedFile(`${engine.url}/deepsearch/files/31/prices.csv`),
      (error: DeepSearchError) => error.kind === 'badRequest',
    );
    assert.deepEqual(reachedElsewhere, []);
  });

  it('says why, and what to do instead', async () => {
    await assert.rejects(client().fetchGeneratedFile(`${elsewhereUrl}/file.csv`), {
      message: 'Only files on the instance are read with your sign-in: open this link in the browser instead.',
    });
  });
});
