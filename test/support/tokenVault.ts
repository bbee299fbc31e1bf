/** A vault shared by "windows", as SecretStorage is: what the token sessions of the OAuth tests read and write. */
import type { OAuthTokens } from '../../src/api/oauth/authorizationServer';
import type { TokenVault } from '../../src/api/oauth/tokenSession';

export function memoryVault(initial?: OAuthTokens): TokenVault & { writes: number } {
  let tokens = initial;
  const vault = {
    writes: 0,
    read: () => Promise.resolve(tokens),
    write: (next: OAuthTokens) => {
      tokens = next;
      vault.writes++;
      return Promise.resolve();
    },
  };
  return vault;
}
