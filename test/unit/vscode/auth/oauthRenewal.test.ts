import assert from 'node:assert/strict';
import { mock } from 'node:test';
import { oauthCredential } from '../../../../src/api/credential';
import type { AuthorizationServerClient, OAuthTokens } from '../../../../src/api/oauth/authorizationServer';
import { TokenSession } from '../../../../src/api/oauth/tokenSession';
import type { StoredOAuthSignIn } from '../../../../src/vscode/auth/credentialVault';
import { OAuthRenewal, RenewalCount, renewalDelay, type OAuthRenewalParts } from '../../../../src/vscode/auth/oauthRenewal';

const HOUR = 3_600_000;
const network = { TokenSession, oauthCredential };

/** Tokens issued now that live an hour (renewed a minute before they expire). */
function tokensOfAnHour(n: number): OAuthTokens {
  return { accessToken: `access-${n}`, refreshToken: `refresh-${n}`, issuedAt: Date.now(), expiresAt: Date.now() + HOUR, scopes: ['mcp'] };
}

/** An OAuth renewal over a one-entry vault, its authorization server counting refreshes. */
function renewalOver(
  stored: StoredOAuthSignIn | undefined,
  signIn: StoredOAuthSignIn,
  options: { findServer?: OAuthRenewalParts['findServer']; duringRefresh?: () => void } = {},
) {
  const seen = { stored, refreshes: [] as string[], announced: [] as string[], finds: 0 };
  let issued = 1;
  const server = {
    refresh: (refreshToken: string, clientId: string) => {
      seen.refreshes.push(`${clientId}:${refreshToken}`);
      options.duringRefresh?.();
      return Promise.resolve(tokensOfAnHour(++issued));
    },
  } as unknown as AuthorizationServerClient;
  const renewal = new OAuthRenewal({
    network,
    signIn,
    stored: {
      read: () => Promise.resolve(seen.stored),
      write: (next) => {
        seen.stored = next;
        return Promise.resolve();
      },
    },
    findServer:
      options.findServer ??
      (() => {
        seen.finds++;
        return Promise.resolve(server);
      }),
    onStored: (accessToken) => seen.announced.push(accessToken),
  });
  return { renewal, seen };
}

/** Lets the promise chains the timers start settle (setImmediate is not mocked). */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('renewalDelay', () => {
  it('waits until the renewal time, at least a second and at most a day', () => {
    assert.equal(renewalDelay(10_000, 4_000), 6_000);
    assert.equal(renewalDelay(10_000, 9_500), 1_000, 'a renewal due in half a second waits a second');
    assert.equal(renewalDelay(10_000, 20_000), 1_000, 'a renewal already due waits a second');
    assert.equal(renewalDelay(10 * 24 * HOUR, 0), 24 * HOUR, 'one ten days ahead waits a day (and looks again)');
  });
});

describe('OAuthRenewal', () => {
  afterEach(() => mock.timers.reset());

  function signInWith(tokens: OAuthTokens): StoredOAuthSignIn {
    return { id: 'sign-in', clientId: 'client', tokens, account: { id: 'u1', label: 'Ada' } };
  }

  it('renews a minute before the access token expires, then again for the next one, until stopped', async () => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
    const signIn = signInWith(tokensOfAnHour(1));
    const { renewal, seen } = renewalOver(signIn, signIn);
    renewal.start();
    await settle();
    mock.timers.tick(HOUR - 60_000 - 1);
    await settle();
    assert.deepEqual(seen.refreshes, [], 'not before its time');
    mock.timers.tick(1);
    await settle();
    assert.deepEqual(seen.refreshes, ['client:refresh-1']);
    assert.equal(seen.stored?.tokens.accessToken, 'access-2');
    assert.deepEqual(seen.announced, ['access-2']);
    mock.timers.tick(HOUR - 60_000);
    await settle();
    assert.deepEqual(seen.refreshes, ['client:refresh-1', 'client:refresh-2'], 'the renewed token is renewed in its turn');
    renewal.stop();
    mock.timers.tick(10 * HOUR);
    await settle();
    assert.equal(seen.refreshes.length, 2, 'nothing after stop');
    assert.equal(seen.finds, 1, 'the server is looked for once');
  });

  it('schedules nothing for a token that does not expire, or once stopped', async () => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
    const forever = signInWith({ accessToken: 'access-1', refreshToken: 'refresh-1', scopes: [] });
    const lasting = renewalOver(forever, forever);
    lasting.renewal.start();
    const signIn = signInWith(tokensOfAnHour(1));
    const stopped = renewalOver(signIn, signIn);
    stopped.renewal.start();
    stopped.renewal.stop();
    await settle();
    mock.timers.tick(30 * 24 * HOUR);
    await settle();
    assert.deepEqual([...lasting.seen.refreshes, ...stopped.seen.refreshes], []);
  });

  it('stores renewed tokens into the sign-in as stored, or as connected when the store lost it', async () => {
    const connected = signInWith({ ...tokensOfAnHour(1), expiresAt: Date.now() - 1 });
    const storedElsewhere: StoredOAuthSignIn = { ...connected, account: { id: 'u1', label: 'Ada Lovelace' } };
    const kept = renewalOver(storedElsewhere, connected);
    assert.equal(await kept.renewal.tokens.accessToken(), 'access-2');
    assert.deepEqual(kept.seen.stored, { ...storedElsewhere, tokens: kept.seen.stored?.tokens });
    assert.equal(kept.seen.stored?.tokens.refreshToken, 'refresh-2');

    // Gone from the store while the refresh was under way.
    const lost = renewalOver(connected, connected, { duringRefresh: () => (lost.seen.stored = undefined) });
    assert.equal(await lost.renewal.tokens.accessToken(), 'access-2');
    assert.deepEqual(lost.seen.stored, { ...connected, tokens: lost.seen.stored?.tokens });
    assert.equal(lost.seen.stored?.tokens.accessToken, 'access-2');
    assert.deepEqual([...kept.seen.announced, ...lost.seen.announced], ['access-2', 'access-2'], 'each store announced');
  });

  it('sends the renewed token in the Authorization header', async () => {
    const signIn = signInWith({ ...tokensOfAnHour(1), expiresAt: Date.now() - 1 });
    const { renewal } = renewalOver(signIn, signIn);
    assert.equal(await renewal.credential.header(), 'Bearer access-2');
  });

  it('looks for the authorization server once, and again after it was not found', async () => {
    let finds = 0;
    const signIn = signInWith(tokensOfAnHour(1));
    const { renewal } = renewalOver(signIn, signIn, {
      findServer: () => {
        finds++;
        return finds === 1 ? Promise.reject(new Error('no OAuth server')) : Promise.resolve({} as AuthorizationServerClient);
      },
    });
    await assert.rejects(renewal.server(), /no OAuth server/);
    const [first, second] = [renewal.server(), renewal.server()];
    assert.equal(first, second, 'one search shared');
    await first;
    await renewal.server();
    assert.equal(finds, 2);
  });
});

describe('RenewalCount', () => {
  it('counts each new access token of a connection once, however often it is noticed', () => {
    let announced = 0;
    const count = new RenewalCount(() => announced++);
    count.restart('access-1');
    count.noticed('access-1');
    assert.deepEqual([count.count, announced], [0, 0], 'the token the connection started with is no renewal');
    count.noticed('access-2');
    count.noticed('access-2');
    assert.deepEqual([count.count, announced], [1, 1]);
    count.noticed('access-3');
    assert.deepEqual([count.count, announced], [2, 2]);
    count.restart(undefined);
    assert.equal(count.count, 0, 'a new connection starts again');
    count.noticed('access-3');
    assert.deepEqual([count.count, announced], [1, 3], 'a connection with a fixed token has seen none');
  });
});
