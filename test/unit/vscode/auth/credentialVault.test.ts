import assert from 'node:assert/strict';
import { CredentialVault, parseStoredOAuthSignIn, type SecretStore, type StoredOAuthSignIn } from '../../../../src/vscode/auth/credentialVault';
import { parseInstanceUrl } from '../../../../src/api/instance';

/** SecretStorage as VS Code keeps it: a map, and an event for every change of a key. */
function memorySecrets(): SecretStore & { entries: Map<string, string>; changes: string[] } {
  const entries = new Map<string, string>();
  const listeners = new Set<(event: { key: string }) => unknown>();
  const changed = (key: string) => {
    secrets.changes.push(key);
    for (const listener of listeners) listener({ key });
  };
  const secrets = {
    entries,
    changes: [] as string[],
    get: (key: string) => Promise.resolve(entries.get(key)),
    store: (key: string, value: string) => {
      entries.set(key, value);
      changed(key);
      return Promise.resolve();
    },
    delete: (key: string) => {
      entries.delete(key);
      changed(key);
      return Promise.resolve();
    },
    onDidChange: (listener: (event: { key: string }) => unknown) => {
      listeners.add(listener);
      return { dispose: () => void listeners.delete(listener) };
    },
  };
  return secrets;
}

const URL = parseInstanceUrl('https://deepsearch.example.com');
const SIGN_IN: StoredOAuthSignIn = {
  id: 'sign-in-1',
  clientId: 'client',
  tokens: { accessToken: 'access-1', refreshToken: 'refresh-1', expiresAt: 2_000, issuedAt: 1_000, scopes: ['mcp'] },
  account: { id: 'u1', label: 'Ada' },
};

describe('CredentialVault', () => {
  it('keeps an access token and an OAuth sign-in under the keys of their instance', async () => {
    const secrets = memorySecrets();
    const vault = new CredentialVault(secrets);
    await vault.storeInstanceToken(URL, 'token-1');
    await vault.storeOAuthSignIn(URL, SIGN_IN);
    assert.equal(secrets.entries.get(`deepSearch.token:${URL}`), 'token-1');
    assert.deepEqual(JSON.parse(secrets.entries.get(`deepSearch.oauth:${URL}`) ?? ''), SIGN_IN);
    assert.equal(await vault.instanceToken(URL), 'token-1');
    assert.deepEqual(await vault.oauthSignIn(URL), SIGN_IN);
    assert.equal(await vault.instanceToken(parseInstanceUrl('https://other.example.com')), undefined);
    assert.equal(await vault.oauthSignIn(parseInstanceUrl('https://other.example.com')), undefined);
    await vault.deleteInstanceToken(URL);
    await vault.deleteOAuthSignIn(URL);
    assert.deepEqual([...secrets.entries.keys()], []);
  });

  it('makes the local engine token once and keeps it', async () => {
    const secrets = memorySecrets();
    const vault = new CredentialVault(secrets);
    assert.equal(await vault.localEngineToken(), undefined);
    const token = await vault.ensureLocalEngineToken();
    assert.match(token, /^dse_[0-9a-f]{64}$/);
    assert.equal(secrets.entries.get('deepSearch.localEngine.token'), token);
    assert.equal(await vault.ensureLocalEngineToken(), token);
    assert.equal(await vault.localEngineToken(), token);
    assert.notEqual(await new CredentialVault(memorySecrets()).ensureLocalEngineToken(), token, 'each store gets its own');
  });

  it('says which instance an OAuth sign-in changed for, and nothing for other keys', async () => {
    const secrets = memorySecrets();
    const vault = new CredentialVault(secrets);
    const seen: string[] = [];
    const subscription = vault.onDidChangeOAuthSignIn((instanceUrl) => seen.push(instanceUrl));
    await vault.storeInstanceToken(URL, 'token-1');
    await vault.ensureLocalEngineToken();
    await vault.storeOAuthSignIn(URL, SIGN_IN);
    await vault.deleteOAuthSignIn(parseInstanceUrl('https://other.example.com'));
    subscription.dispose();
    await vault.storeOAuthSignIn(URL, SIGN_IN);
    assert.deepEqual(seen, [URL, 'https://other.example.com']);
  });

  it('reads as no sign-in what this version did not write, without throwing', () => {
    assert.equal(parseStoredOAuthSignIn(undefined), undefined);
    assert.equal(parseStoredOAuthSignIn(''), undefined);
    assert.equal(parseStoredOAuthSignIn('{not json'), undefined);
    assert.equal(parseStoredOAuthSignIn('null'), undefined);
    assert.equal(parseStoredOAuthSignIn('"a string"'), undefined);
    assert.equal(parseStoredOAuthSignIn(JSON.stringify({ clientId: 'c', tokens: { accessToken: 'a' } })), undefined, 'no id');
    assert.equal(parseStoredOAuthSignIn(JSON.stringify({ id: 'i', tokens: { accessToken: 'a' } })), undefined, 'no client');
    assert.equal(parseStoredOAuthSignIn(JSON.stringify({ id: 'i', clientId: 'c', tokens: {} })), undefined, 'no access token');
    assert.equal(parseStoredOAuthSignIn(JSON.stringify({ id: 'i', clientId: 'c' })), undefined, 'no tokens');
    assert.deepEqual(parseStoredOAuthSignIn(JSON.stringify(SIGN_IN)), SIGN_IN);
  });
});
