/**
 * Scoped tokens on the engine (as 7.x servers have them): each interface takes the scopes that
 * grant it and refuses the others with a 403 that names the missing scope, on the legacy API, the
 * Connect API and the tool server alike.
 */
import assert from 'node:assert/strict';
import { CONNECT_SERVICE_PATH, type ConnectErrorBody } from '../../../src/contract/connectWire';
import { TOOL_SERVER_ENDPOINTS } from '../../../src/contract/toolServers';
import { API_PATH } from '../../../src/contract/legacyWire';
import { CLIENT_HEADER, startTestEngine, type TestEngine } from '../../support/engineHarness';

const TOKENS = {
  readOnly: 'dse_scoped_read_only_token',
  readWrite: 'dse_scoped_read_write_token',
  mcpOnly: 'dse_scoped_mcp_only_token',
  everything: 'dse_scoped_user_all_token',
  identityOnly: 'dse_scoped_identity_token',
} as const;

type Holder = keyof typeof TOKENS;

describe('engine: scoped tokens', () => {
  let engine: TestEngine;

  before(async () => {
    engine = await startTestEngine({
      users: [
        { token: TOKENS.readOnly, scopes: ['externalapi:read'] },
        { token: TOKENS.readWrite, scopes: ['externalapi:read', 'externalapi:write', 'offline_access'] },
        { token: TOKENS.mcpOnly, scopes: ['mcp'] },
        { token: TOKENS.everything, scopes: ['user:all'] },
        { token: TOKENS.identityOnly, scopes: ['openid', 'profile'] },
      ],
    });
  });
  after(() => engine.dispose());

  const legacy = (holder: Holder, method: 'GET' | 'POST') =>
    fetch(`${engine.url}${API_PATH}`, {
      method,
      headers: { Authorization: `token ${TOKENS[holder]}`, 'X-Requested-With': CLIENT_HEADER, 'Content-Type': 'application/json' },
      body: method === 'POST' ? JSON.stringify({ question: 'Where is parseConfig defined?' }) : undefined,
    });
  const connect = (holder: Holder, method: string, body: unknown) =>
    fetch(`${engine.url}${CONNECT_SERVICE_PATH}/${method}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKENS[holder]}`, 'Content-Type': 'application/json', 'Connect-Protocol-Version': '1' },
      body: JSON.stringify(body),
    });
  const createBody = { parent: 'users/~self', conversation: { questions: [{ input: [{ question: { text: 'Where is parseConfig defined?' } }] }] } };
  const mcp = (holder: Holder) =>
    fetch(`${engine.url}${TOOL_SERVER_ENDPOINTS.all}`, {
      method: 'POST',
      headers: { Authorization: `token ${TOKENS[holder]}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'scopes-test', version: '1' } },
      }),
    });

  it('reads conversations with externalapi:read, and refuses writes naming externalapi:write', async () => {
    assert.equal((await legacy('readOnly', 'GET')).status, 200);
    assert.equal((await connect('readOnly', 'ListConversationSummaries', { parent: 'users/~self' })).status, 200);

    const legacyWrite = await legacy('readOnly', 'POST');
    assert.equal(legacyWrite.status, 403);
    assert.match(await legacyWrite.text(), /lacks the scope externalapi:write.*its scopes: externalapi:read/);
    const connectWrite = await connect('readOnly', 'CreateConversation', createBody);
    assert.equal(connectWrite.status, 403);
    const body = (await connectWrite.json()) as ConnectErrorBody;
    assert.equal(body.code, 'permission_denied');
    assert.match(body.message, /lacks the scope externalapi:write/);
  });

  it('asks with externalapi:write, on both APIs', async () => {
    assert.equal((await legacy('readWrite', 'POST')).status, 200);
    assert.equal((await connect('readWrite', 'CreateConversation', createBody)).status, 200);
  });

  it('refuses the tool server to a token without mcp, and conversations to one with only mcp', async () => {
    const refused = await mcp('readWrite');
    assert.equal(refused.status, 403);
    assert.match(await refused.text(), /lacks the scope mcp/);
    assert.equal((await mcp('mcpOnly')).status, 200);

    const legacyRead = await legacy('mcpOnly', 'GET');
    assert.equal(legacyRead.status, 403);
    assert.match(await legacyRead.text(), /lacks the scope externalapi:read \(or externalapi:write\).*its scopes: mcp/);
    assert.equal((await connect('mcpOnly', 'GetConversation', { name: 'users/~self/conversations/1' })).status, 403);
  });

  it('lets user:all reach everything, and identity scopes reach nothing', async () => {
    assert.equal((await legacy('everything', 'POST')).status, 200);
    assert.equal((await mcp('everything')).status, 200);
    for (const response of [await legacy('identityOnly', 'GET'), await mcp('identityOnly'), await connect('identityOnly', 'ListConversationSummaries', {})]) {
      assert.equal(response.status, 403);
      assert.match(await response.text(), /its scopes: openid, profile/);
    }
  });
});
