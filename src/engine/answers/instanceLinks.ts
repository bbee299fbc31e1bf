/**
 * Which links of an answer point into a file of the instance, as the panel would open them: an
 * absolute URL on the instance's origin (any spelling of a loopback host when the instance is on
 * one: `127.x.x.x`, `localhost`, `[::1]`, with the same port), or a relative one, read against the
 * instance. The URL is parsed as a browser does (WHATWG: `..` and `%2e%2e` resolved, IPv4 forms
 * made one), then must stay under the instance's path and have the shape
 * `<repo>[@<revision>]/-/blob/<path>[?L<a>-<b>]`. The engine's own form of the same shape is
 * `blobUrl` (answerWriter.ts); the client's parser lives above the engine's floor (model/repoLinks.ts).
 */
import { blobUrl } from './answerWriter';

export interface LineRange {
  start: number;
  end: number;
}

/** A link to a file of a served repository, as written: names and path not checked yet. */
export interface FileLink {
  repo: string;
  revision?: string;
  /** Percent-decoded, without empty or `.` segments. */
  path: string;
  range?: LineRange;
}

/**
 * A file link; `'unreadable'` for a link into the instance written as a file link (`/-/blob/` in
 * it) that names no path that could be read (undecodable, `..` leading out of it, empty); undefined
 * for the rest.
 */
export type InstanceLink = FileLink | 'unreadable' | undefined;

const BLOB = '/-/blob/';

export class InstanceAddress {
  private readonly base: URL;
  /** The instance's path without its trailing slash (`''` at the root). */
  private readonly prefix: string;
  private readonly loopback: boolean;
  readonly url: string;

  constructor(instanceUrl: string) {
    this.url = instanceUrl.replace(/\/+$/, '');
    this.base = new URL(`${this.url}/`);
    this.prefix = this.base.pathname.replace(/\/+$/, '');
    this.loopback = isLoopback(this.base.hostname);
  }

  /** What `href` (as marked resolved it) points at. */
  fileLink(href: string): InstanceLink {
    // Most links of an answer are not into a repository's file: told apart before parsing them.
    // As a browser reads it: tabs and newlines dropped, a backslash a `/` (and `%2F` one once decoded).
    if (href.length > 4_000 || !/\/-\/blob\//i.test(href.replace(/[\t\n\r]/g, '').replace(/%2f|\\/gi, '/'))) return undefined;
    const url = this.resolve(href.trim());
    if (!url || !this.onInstance(url)) return undefined;
    // Written as a file link, it is one: `..` that leads out of the file part or the instance's path reads nothing.
    if (!url.pathname.startsWith(`${this.prefix}/`)) return 'unreadable';
    const rest = url.pathname.slice(this.prefix.length + 1);
    const marker = rest.indexOf(BLOB);
    if (marker < 0) return 'unreadable';
    const repoPart = decode(rest.slice(0, marker));
    const segments = rest
      .slice(marker + BLOB.length)
      .split('/')
      .map(decode);
    if (repoPart === undefined || segments.includes(undefined)) return 'unreadable';
    // Decoding may bring back `/` and `..` (`%2F..%2F`): the path is split again once decoded.
    const parts = segments
      .join('/')
      .split('/')
      .filter((part) => part !== '' && part !== '.');
    const at = repoPart.indexOf('@');
    const repo = (at >= 0 ? repoPart.slice(0, at) : repoPart).replace(/^\/+|\/+$/g, '');
    const revision = at >= 0 ? repoPart.slice(at + 1) : undefined;
    if (repo === '' || revision === '' || parts.length === 0 || parts.includes('..')) return 'unreadable';
    const range = lineRange(url);
    return { repo, ...(revision !== undefined ? { revision } : {}), path: parts.join('/'), ...(range ? { range } : {}) };
  }

  /** The link as the engine writes it: the instance's own address, names and path encoded once. */
  fileUrl(link: FileLink): string {
    const url = blobUrl(this.url, link.repo, link.path, link.range);
    if (link.revision === undefined) return url;
    const repoEnd = url.indexOf(BLOB, this.url.length);
    return `${url.slice(0, repoEnd)}@${encodeURIComponent(link.revision)}${url.slice(repoEnd)}`;
  }

  /** Relative links as the panel reads them: rooted ones under the instance's path, others against it. */
  private resolve(href: string): URL | undefined {
    try {
      if (href.startsWith('/') && !href.startsWith('//')) return new URL(`${this.url}${href}`);
      return new URL(href, this.base);
    } catch {
      return undefined;
    }
  }

  private onInstance(url: URL): boolean {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    if (url.origin === this.base.origin) return true;
    return this.loopback && isLoopback(url.hostname) && effectivePort(url) === effectivePort(this.base);
  }
}

/** Every way to write this machine's address that a browser would connect to the engine with. */
function isLoopback(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  // WHATWG has already made `127.1`, `0x7f.1` and `2130706433` into dotted quads.
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || host === '0.0.0.0') return true;
  return host === '[::1]' || host === '[::]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(host);
}

function effectivePort(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

function decode(part: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}

/** `?L10`, `?L10-20`, `?L10-L20`, `?L10:3-20:5`, or the same after `#`. */
function lineRange(url: URL): LineRange | undefined {
  for (const candidate of [url.search.slice(1), url.hash.slice(1), ...url.searchParams.keys()]) {
    const match = /^L(\d{1,9})(?::\d+)?(?:-L?(\d{1,9})(?::\d+)?)?$/.exec(candidate);
    if (match) {
      const start = Number(match[1]);
      return { start, end: match[2] !== undefined ? Number(match[2]) : start };
    }
  }
  return undefined;
}
