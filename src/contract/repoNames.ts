/**
 * What an instance calls a repository: `host/org/repo`, derived from its git remote. The engine
 * names the repositories it serves this way and the extension matches workspace folders the same
 * way, so links in answers find the local checkout.
 */

/**
 * `https://user:pw@host/org/repo.git`, `ssh://git@host:22/org/repo.git` and `git@host:org/repo.git`
 * all become `host/org/repo`. Local paths and `file:` URLs have no host and give `undefined`.
 */
export function repoNameFromRemote(remote: string): string | undefined {
  const url = remote.trim();
  if (url === '') return undefined;
  let host: string;
  let repoPath: string;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/i.exec(url);
  if (scheme) {
    if ((scheme[1] ?? '').toLowerCase() === 'file') return undefined;
    const rest = scheme[2] ?? '';
    const slash = rest.indexOf('/');
    if (slash < 0) return undefined;
    host = rest.slice(0, slash);
    repoPath = rest.slice(slash + 1);
  } else {
    // scp-like syntax: [user@]host:path, which git only recognises when no slash precedes the colon.
    const scp = /^([^/:]+):(.+)$/.exec(url);
    if (!scp) return undefined;
    host = scp[1] ?? '';
    repoPath = scp[2] ?? '';
  }
  host = host
    .slice(host.lastIndexOf('@') + 1)
    .replace(/:\d*$/, '')
    .toLowerCase();
  // A one-letter "host" is a Windows drive (`C:\src\repo`), not a server.
  if (!/^[a-z0-9.-]{2,}$/.test(host)) return undefined;
  const segments = repoPath
    .replace(/[?#].*$/, '')
    .replace(/\.git\/?$/, '')
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.');
  if (segments.length === 0 || segments.some((segment) => segment === '..')) return undefined;
  return [host, ...segments].join('/');
}
