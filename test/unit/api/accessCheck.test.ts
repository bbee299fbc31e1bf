/**
 * What sign-in learns about a token, against the real engine over loopback: both interfaces are
 * checked, a token refused by one of them (a scoped token) still signs in with the refusal named,
 * and only a token refused outright, or by both, is turned away.
 */
import assert from 'node:assert/strict';
import { checkAccess, signInVerdict, toolServerAbsent, type AccessReport } from '../../../src/api/accessCheck';
import { connectToInstance, type InstanceConnection } from '../../../src/api/connections';
import { createUndiciTransport } from '../../../src/api/undiciTransport';
import type { EngineOptions } from '../../../src/engine/options';
import { startTestEngine, type TestEngine } from '../../support/engineHarness';

const SCOPED = {
  full: 'dse_access_full_token',
  mcpOnly: 'dse_access_mcp_only_token',
  conversationsOnly: 'dse_access_conversations_only_token',
  identityOnly: 'dse_access_identity_only_token',
} as const;

describe('access check (sign-in) against the engine', () => {
  const engines: TestEngine[] = [];
  const connections: InstanceConnection[] = [];

  async function engineWith(options: Partial<EngineOptions> = {}): Promise<TestEngine> {
    const engine = await startTestEngine({
      users: [
        { token: SCOPED.full },
        { token: SCOPED.mcpOnly, scopes: ['mcp'] },
        { token: SCOPED.conversationsOnly, scopes: ['externalapi:read', 'externalapi:write'] },
        { token: SCOPED.identityOnly, scopes: ['openid'] },
      ],
      ...options,
    });
    engines.push(engine);
    return engine;
  }

  async function check(url: string, token: string): Promise<AccessReport> {
    const connection = connectToInstance(url, token, createUndiciTransport());
    connections.push(connection);
    return checkAccess(connection);
  }

  after(async () => {
    await Promise.all(connections.map((connection) => connection.transport.destroy()));
    await Promise.all(engines.map((engine) => engine.dispose()));
  });

  it('reports both interfaces working with an unscoped token on a 7.x server', async () => {
    const engine = await engineWith();
    const report = await check(engine.url, SCOPED.full);
    assert.deepEqual(report.conversations, { ok: true, value: 'connect' });
    assert.ok(report.tools.ok);
    assert.deepEqual(report.tools.value.missing, []);
    assert.equal(report.tools.value.server.url, `${engine.url}/.api/mcp/all`);
    assert.deepEqual(signInVerdict(report), { kind: 'usable' });
  });

  it('signs in a token scoped to mcp only, naming the scope conversations need', async () => {
    const engine = await engineWith();
    const report = await check(engine.url, SCOPED.mcpOnly);
    assert.ok(report.tools.ok, 'the tool server takes it');
    assert.ok(!report.conversations.ok);
    assert.equal(report.conversations.error.kind, 'forbidden');
    assert.match(report.conversations.error.message, /The server said: .*lacks the scope externalapi:read/);
    assert.deepEqual(signInVerdict(report), { kind: 'usable' });
  });

  it('signs in a token without mcp, saying the tool server refused it and why', async () => {
    const engine = await engineWith();
    const report = await check(engine.url, SCOPED.conversationsOnly);
    assert.ok(report.conversations.ok);
    assert.ok(!report.tools.ok);
    assert.equal(report.tools.error.kind, 'forbidden');
    assert.match(report.tools.error.message, /MCP#ACCESS permission, or the token lacks the "mcp" scope.*The server said: .*lacks the scope mcp/);
    assert.deepEqual(signInVerdict(report), { kind: 'usable' });
  });

  it('turns away a token both interfaces refuse, with both reasons, and a token that is wrong', async () => {
    const engine = await engineWith();
    const refused = signInVerdict(await check(engine.url, SCOPED.identityOnly));
    assert.equal(refused.kind, 'badToken');
    assert.match(refused.kind === 'badToken' ? refused.message : '', /Conversations: .*externalapi:read.* Tools: .*mcp/);
    const wrong = signInVerdict(await check(engine.url, 'dse_nobody_has_this_token'));
    assert.equal(wrong.kind, 'badToken');
  });

  it('lists the tools an instance lacks, and an instance without a tool server', async () => {
    const curated = await engineWith({ variant: { toolServer: 'current', disabledTools: ['go_to_definition', 'compare_revisions'] } });
    const report = await check(curated.url, SCOPED.full);
    assert.ok(report.tools.ok);
    assert.deepEqual(report.tools.value.missing, ['go_to_definition', 'compare_revisions']);

    const bare = await engineWith({ variant: { toolServer: 'none', conversationApis: 'legacy' } });
    const bareReport = await check(bare.url, SCOPED.full);
    assert.deepEqual(bareReport.conversations, { ok: true, value: 'legacy' });
    assert.ok(toolServerAbsent(bareReport));
    assert.deepEqual(signInVerdict(bareReport), { kind: 'usable' });
  });

  it('calls a URL without a conversation API a wrong URL, whatever else answers there', async () => {
    const engine = await engineWith();
    const verdict = signInVerdict(await check(`${engine.url}/nothing-here`, SCOPED.full));
    assert.equal(verdict.kind, 'badUrl');
  });
});
