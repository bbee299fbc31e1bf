/**
 * Where the extension keeps what signs it in: SecretStorage, keyed by instance URL (an access token
 * under `deepSearch.token:<url>`, an OAuth sign-in as JSON under `deepSearch.oauth:<url>`) and the
 * local engine's token under one key. What is read here goes to an Authorization header and nowhere
 * else: nothing in this module logs a secret or puts one in an error. The `vscode` import is of
 * types only, so the vault is tested on plain Node with a SecretStorage of its own.
 */
import type * as vscode from 'vscode';
import type { OAuthTokens } from '../../api/oauth/authorizationServer';
import type { InstanceUrl } from '../../api/instance';

/** An OAuth sign-in as SecretStorage keeps it (JSON under `deepSearch.oauth:<instance URL>`). */
export interface StoredOAuthSignIn {
  /** Random, per sign-in: tells this sign-in from another where the instance names no account. */
  id: string;
  clientId: string;
  tokens: OAuthTokens;
  /** From `userinfo` at sign-in, where the instance has it. */
  account?: { id: string; label: string };
}

/** The part of VS Code's SecretStorage the vault uses. */
export type SecretStore = Pick<vscode.SecretStorage, 'get' | 'store' | 'delete' | 'onDidChange'>;

const TOKEN_PREFIX = 'deepSearch.token:';
const OAUTH_PREFIX = 'deepSearch.oauth:';
const LOCAL_TOKEN_KEY = 'deepSearch.localEngine.token';

/** Keyed by the instance's parsed URL (InstanceUrl, src/api/instance.ts): one key per instance. */
export class CredentialVault {
  constructor(private readonly secrets: SecretStore) {}

  /** The access token stored for an instance, if it was signed in to with one. */
  instanceToken(instanceUrl: InstanceUrl): Thenable<string | undefined> {
    return this.secrets.get(TOKEN_PREFIX + instanceUrl);
  }

  storeInstanceToken(instanceUrl: InstanceUrl, token: string): Thenable<void> {
    return this.secrets.store(TOKEN_PREFIX + instanceUrl, token);
  }

  deleteInstanceToken(instanceUrl: InstanceUrl): Thenable<void> {
    return this.secrets.delete(TOKEN_PREFIX + instanceUrl);
  }

  /** The OAuth sign-in stored for an instance (undefined when there is none or it is not one this version wrote). */
  async oauthSignIn(instanceUrl: InstanceUrl): Promise<StoredOAuthSignIn | undefined> {
    return parseStoredOAuthSignIn(await this.secrets.get(OAUTH_PREFIX + instanceUrl));
  }

  storeOAuthSignIn(instanceUrl: InstanceUrl, signIn: StoredOAuthSignIn): Thenable<void> {
    return this.secrets.store(OAUTH_PREFIX + instanceUrl, JSON.stringify(signIn));
  }

  deleteOAuthSignIn(instanceUrl: InstanceUrl): Thenable<void> {
    return this.secrets.delete(OAUTH_PREFIX + instanceUrl);
  }

  /** Calls `listener` with the instance URL whose OAuth sign-in changed, here or in another window. */
  onDidChangeOAuthSignIn(listener: (instanceUrl: InstanceUrl) => unknown): vscode.Disposable {
    return this.secrets.onDidChange(({ key }) => {
      // The key was written from an InstanceUrl.
      if (key.startsWith(OAUTH_PREFIX)) listener(key.slice(OAUTH_PREFIX.length) as InstanceUrl);
    });
  }

  /** The local engine's token, if one was made. */
  localEngineToken(): Thenable<string | undefined> {
    return this.secrets.get(LOCAL_TOKEN_KEY);
  }

  /** The local engine's token, made and stored the first time (it only has to be unguessable). */
  async ensureLocalEngineToken(): Promise<string> {
    let token = await this.secrets.get(LOCAL_TOKEN_KEY);
    if (!token) {
      token = `dse_${randomHex(32)}`;
      await this.secrets.store(LOCAL_TOKEN_KEY, token);
    }
    return token;
  }
}

/** The stored OAuth sign-in, or undefined when there is none or it is not one this version wrote. */
export function parseStoredOAuthSignIn(text: string | undefined): StoredOAuthSignIn | undefined {
  if (!text) return undefined;
  try {
    const value = JSON.parse(text) as Partial<StoredOAuthSignIn>;
    if (typeof value.id !== 'string' || typeof value.clientId !== 'string' || typeof value.tokens?.accessToken !== 'string') return undefined;
    return value as StoredOAuthSignIn;
  } catch {
    return undefined;
  }
}

function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}
