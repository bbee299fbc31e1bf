import assert from 'node:assert/strict';
import { API_PATH } from '../../../src/contract/legacyWire';
import { CONNECT_SERVICE_PATH } from '../../../src/contract/connectWire';
import { OAUTH_PATHS, PROTECTED_RESOURCE_METADATA_PATH } from '../../../src/contract/oauthWire';
import { PREFLIGHT_MAX_AGE_SECONDS } from '../../../src/engine/http/cors';
import { startEngine } from '../../../src/engine/server';
import { CLIENT_HEADER, startTestEngine, TEST_TOKENS, type TestEngine } from '../../support/engineHarness';

const PAGE = 'http://localhost:3123';
const OTHER_PAGE = 'https://vscode.dev';
const STRANGER = 'https://evil.example';
const AUTHORIZATION = `token ${TEST_TOKENS[0]}`;

/** A request of each API family, as a page's `fetch` sends it (the Origin header added by the browser). */
const FAMILIES: ReadonlyArray<{ name: string; path: string; init: RequestInit }> = [
  { name: 'the legacy conversation API', path: `${API_PATH}/`, init: { headers: { Authorization: AUTHORIZATION, 'X-Requested-With': CLIENT_HEADER } } },
  {
    name: 'the Connect conversation API',
    path: `${CONNECT_SERVICE_PATH}/ListConversationSummaries`,
    init: {
      method: 'POST',
      headers: { Authorization: AUTHORIZATION, 'Content-Type': 'application/json', 'Connect-Protocol-Version': '1' },
      body: JSON.stringify({ parent: 'users/~self' }),
    },
  },
  {
    name: 'the tool server',
    path: '/.api/mcp/all',
    init: {
      method: 'POST',
      headers: { Authorization: AUTHORIZATION, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    },
  },
  { name: "OAuth's discovery", path: '/.well-known/oauth-authorization-server', init: {} },
  {
    name: "OAuth's token endpoint",
    path: OAUTH_PATHS.token,
    init: { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'grant_type=refresh_token&refresh_token=nope&client_id=x' },
  },
  { name: "the tool server's protected-resource metadata", path: `${PROTECTED_RESOURCE_METADATA_PATH}/.api/mcp/all`, init: {} },
];

function withOrigin(init: RequestInit, origin: string | undefined): RequestInit {
  return { ...init, headers: { ...(init.headers as Record<string, string> | undefined), ...(origin ? { Origin: origin } : {}) } };
}

function preflight(engine: TestEngine, path: string, origin: string, requestHeaders: string): Promise<Response> {
  return fetch(`${engine.url}${path}`, {
    method: 'OPTIONS',
    headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': requestHeaders },
  });
}

function corsHeaders(response: Response): string[] {
  return [...response.headers.keys()].filter((name) => name.startsWith('access-control-'));
}

describe('engine: --cors-origin (web pages that may call the APIs)', function () {
  let engine: TestEngine;
  before(async function () {
    engine = await startTestEngine({ corsOrigins: [`${PAGE} ${OTHER_PAGE}/`] });
  });
  after(async function () {
    await engine?.dispose();
  });

  it('answers an allowed origin’s preflight with that origin, the methods, the headers clients send and a max age', async function () {
    for (const { path } of FAMILIES) {
      const response = await preflight(engine, path, PAGE, 'authorization,x-requested-with,content-type,mcp-session-id,mcp-param-repo');
      assert.equal(response.status, 204, path);
      assert.equal(response.headers.get('access-control-allow-origin'), PAGE, path);
      assert.equal(response.headers.get('vary'), 'Origin');
      assert.match(response.headers.get('access-control-allow-methods') ?? '', /\bGET\b.*\bPOST\b.*\bDELETE\b/);
      const allowed = (response.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/,\s*/);
      for (const header of [
        'authorization',
        'x-requested-with',
        'content-type',
        'accept',
        'mcp-session-id',
        'mcp-protocol-version',
        'last-event-id',
        'connect-protocol-version',
        'mcp-param-repo',
      ]) {
        assert.ok(allowed.includes(header), `${path}: ${header} in ${allowed.join(', ')}`);
      }
      assert.equal(response.headers.get('access-control-max-age'), String(PREFLIGHT_MAX_AGE_SECONDS));
    }
    // The second origin of the list (given with a trailing slash) is allowed too.
    const second = await preflight(engine, `${API_PATH}/`, OTHER_PAGE, 'authorization');
    assert.equal(second.headers.get('access-control-allow-origin'), OTHER_PAGE);
  });

  it('answers another origin’s preflight with no CORS header at all', async function () {
    for (const { path } of FAMILIES) {
      const response = await preflight(engine, path, STRANGER, 'authorization,x-requested-with');
      assert.equal(response.status, 204, path);
      assert.deepEqual(corsHeaders(response), [], path);
    }
  });

  it('lets an allowed origin read the answers of every API family, and exposes the headers clients read', async function () {
    for (const family of FAMILIES) {
      const response = await fetch(`${engine.url}${family.path}`, withOrigin(family.init, PAGE));
      assert.ok([200, 400, 401].includes(response.status), `${family.name}: ${response.status} ${await response.clone().text()}`);
      assert.equal(response.headers.get('access-control-allow-origin'), PAGE, family.name);
      assert.equal(response.headers.get('vary'), 'Origin', family.name);
      const exposed = (response.headers.get('access-control-expose-headers') ?? '').toLowerCase();
      for (const header of ['mcp-session-id', 'www-authenticate', 'retry-after']) assert.ok(exposed.includes(header), `${family.name}: ${exposed}`);
    }
    // The tool server's answer is a real one: the page gets the tools.
    const tools = FAMILIES.find((family) => family.name === 'the tool server');
    const listed = (await (await fetch(`${engine.url}${tools?.path}`, withOrigin(tools?.init ?? {}, PAGE))).json()) as { result: { tools: unknown[] } };
    assert.ok(listed.result.tools.length > 5);
  });

  it('lets an allowed origin read the errors too (a refused token, with its challenge)', async function () {
    const response = await fetch(
      `${engine.url}/.api/mcp/all`,
      withOrigin({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' }, PAGE),
    );
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('access-control-allow-origin'), PAGE);
    assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer /);
    const legacy = await fetch(`${engine.url}${API_PATH}/`, withOrigin({ headers: { 'X-Requested-With': CLIENT_HEADER } }, PAGE));
    assert.equal(legacy.status, 401);
    assert.equal(legacy.headers.get('access-control-allow-origin'), PAGE);
  });

  it('sends another origin no CORS header, and its tool-server calls are still refused', async function () {
    for (const family of FAMILIES) {
      const response = await fetch(`${engine.url}${family.path}`, withOrigin(family.init, STRANGER));
      assert.deepEqual(corsHeaders(response), [], family.name);
    }
    const tools = await fetch(`${engine.url}/.api/mcp/all`, withOrigin(FAMILIES[2]?.init ?? {}, STRANGER));
    assert.equal(tools.status, 403);
    assert.match(await tools.text(), /web origin \\?"https:\/\/evil\.example\\?" are not accepted.*--cors-origin/);
  });

  it('puts no CORS header on the pages a person opens (consent, share), even for an allowed origin', async function () {
    const consent = await fetch(`${engine.url}${OAUTH_PATHS.authorize}?client_id=x`, withOrigin({}, PAGE));
    assert.deepEqual(corsHeaders(consent), []);
    const share = await fetch(`${engine.url}/deepsearch/nothing-here`, withOrigin({}, PAGE));
    assert.equal(share.status, 404);
    assert.deepEqual(corsHeaders(share), []);
  });
});

describe('engine: --cors-origin for every subdomain of a host (https://*.vscode-cdn.net)', function () {
  let engine: TestEngine;
  before(async function () {
    engine = await startTestEngine({ corsOrigins: ['https://*.vscode-cdn.net'] });
  });
  after(async function () {
    await engine?.dispose();
  });

  it('allows each subdomain, and neither the host itself, another scheme or port, nor a host that only starts like one', async function () {
    for (const origin of ['https://0a1b2c3d.vscode-cdn.net', 'https://x.y.vscode-cdn.net']) {
      const response = await preflight(engine, `${API_PATH}/`, origin, 'authorization');
      assert.equal(response.headers.get('access-control-allow-origin'), origin, origin);
      const listed = await fetch(`${engine.url}${API_PATH}/`, withOrigin(FAMILIES[0]?.init ?? {}, origin));
      assert.equal(listed.headers.get('access-control-allow-origin'), origin, origin);
    }
    for (const origin of [
      'https://vscode-cdn.net',
      'http://0a1b2c3d.vscode-cdn.net',
      'https://0a1b2c3d.vscode-cdn.net:8443',
      'https://0a1b2c3d.vscode-cdn.net.evil.example',
      'https://evilvscode-cdn.net',
    ]) {
      const response = await preflight(engine, `${API_PATH}/`, origin, 'authorization');
      assert.deepEqual(corsHeaders(response), [], origin);
    }
  });
});

describe('engine: without --cors-origin', function () {
  let engine: TestEngine;
  before(async function () {
    engine = await startTestEngine();
  });
  after(async function () {
    await engine?.dispose();
  });

  it('sends no CORS header and no Vary to any origin, answers preflights without them, and refuses web pages at the tool server', async function () {
    const listed = await fetch(`${engine.url}${API_PATH}/`, withOrigin(FAMILIES[0]?.init ?? {}, PAGE));
    assert.equal(listed.status, 200);
    assert.deepEqual(corsHeaders(listed), []);
    assert.equal(listed.headers.get('vary'), null);
    const asked = await preflight(engine, `${API_PATH}/`, PAGE, 'authorization');
    assert.equal(asked.status, 204);
    assert.deepEqual(corsHeaders(asked), []);
    const tools = await fetch(`${engine.url}/.api/mcp/all`, withOrigin(FAMILIES[2]?.init ?? {}, OTHER_PAGE));
    assert.equal(tools.status, 403);
  });

  it('refuses to start with an origin that is not one, saying what to write', async function () {
    for (const [bad, why] of [
      ['https://vscode.dev/path', /not an origin \(it has a path/],
      ['*', /takes a wildcard only as a whole first label/],
      ['https://*.net', /would allow every site under a top-level domain/],
      ['vscode.dev', /not an http or https origin/],
      ['https://user@vscode.dev', /not an origin/],
      ['ftp://vscode.dev', /not an http or https origin/],
    ] as const) {
      await assert.rejects(
        startEngine({ repos: [engine.sampleRepo?.dir ?? ''], users: [{ token: 't' }], dataDir: `${engine.dataDir}-bad`, corsOrigins: [bad] }),
        (error: Error) => why.test(error.message) && /https:\/\/(vscode\.dev|\*\.vscode-cdn\.net)/.test(error.message),
        bad,
      );
    }
  });
});
