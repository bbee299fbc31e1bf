/**
 * Cross-origin requests, as an instance's `corsOrigin` setting allows them: a space-separated list
 * of web origins (VS Code for the Web's page, say) whose pages may call the conversation APIs, the
 * tool server and OAuth's endpoints with a token. An allowed origin's preflight is answered and its
 * responses carry `Access-Control-Allow-Origin`; any other origin gets no CORS header at all, so
 * the browser keeps the response from the page.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { echo } from './echo';

/** What a client of the APIs sends besides the CORS-safelisted headers (MCP's and Connect's too). */
const ALLOWED_REQUEST_HEADERS = [
  'Authorization',
  'X-Requested-With',
  'Content-Type',
  'Accept',
  'Mcp-Session-Id',
  'MCP-Protocol-Version',
  'Mcp-Method',
  'Mcp-Name',
  'Last-Event-ID',
  'Connect-Protocol-Version',
  'Connect-Timeout-Ms',
] as const;
/** 2026 tool calls mirror marked arguments into `Mcp-Param-<name>` headers. */
const MCP_PARAM_HEADER = /^mcp-param-[!#$%&'*+.^_`|~0-9a-z-]{1,64}$/;
const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';
/** Response headers the page may read beyond the safelisted ones. */
const EXPOSED_HEADERS = 'Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate, Retry-After, Content-Disposition, Location';
/** How long a browser may keep a preflight's answer (Chromium keeps at most two hours). */
export const PREFLIGHT_MAX_AGE_SECONDS = 600;
const MAX_ORIGINS = 100;

/**
 * The origins of a `corsOrigin` value (space-separated, repeatable), or what is wrong with one. An
 * origin may start with `*.` for every subdomain of a host (`https://*.vscode-cdn.net`, where
 * vscode.dev runs extensions on a subdomain that changes), never for the host itself.
 */
export function parseCorsOrigins(values: readonly string[]): { origins: string[] } | { problem: string } {
  const origins = new Set<string>();
  for (const word of values.flatMap((value) => value.split(/\s+/)).filter(Boolean)) {
    const subdomains = SUBDOMAINS.exec(word);
    const problem = corsOriginProblem(subdomains ? `${subdomains[1]}://${subdomains[2]}` : word, word);
    if (problem) return { problem };
    if (subdomains) {
      const base = new URL(`${subdomains[1]}://${subdomains[2]}`);
      if (!base.hostname.includes('.') && base.hostname !== 'localhost') {
        return { problem: `--cors-origin: ${echo(word)} would allow every site under a top-level domain: name the site, as https://*.vscode-cdn.net does.` };
      }
      origins.add(`${base.protocol}//*.${base.host}`);
    } else {
      origins.add(new URL(word).origin);
    }
  }
  if (origins.size > MAX_ORIGINS) return { problem: `--cors-origin names ${origins.size} origins: name at most ${MAX_ORIGINS}.` };
  return { origins: [...origins] };
}

/** `<scheme>://*.<host>[:port]`: every subdomain of the host. */
const SUBDOMAINS = /^(https?):\/\/\*\.([^*/?#@]+?)\/?$/i;

/** Why `word` (as `given`) is not an origin such as `https://vscode.dev`, or undefined when it is one. */
function corsOriginProblem(word: string, given: string): string | undefined {
  const shown = echo(given);
  const hint =
    'name each origin as a browser sends it: a scheme, a host and an optional port, such as https://vscode.dev or http://localhost:3000 (https://*.vscode-cdn.net for every subdomain of a host)';
  if (word.includes('*')) return `--cors-origin takes a wildcard only as a whole first label (${shown}): ${hint}.`;
  const url = URL.canParse(word) ? new URL(word) : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.host === '') {
    return `--cors-origin: ${shown} is not an http or https origin: ${hint}.`;
  }
  // An origin has no user, path, query or fragment (`https://vscode.dev/` may keep its slash).
  if (url.username || url.password || url.pathname !== '/' || /\/\/.*\/./.test(word) || word.includes('?') || word.includes('#')) {
    return `--cors-origin: ${shown} is not an origin (it has a path, query, user or fragment): ${hint}.`;
  }
  return undefined;
}

/** Which origins may call the engine from a web page; empty: none (the default, as on an instance). */
export class CorsPolicy {
  private readonly origins: ReadonlySet<string>;
  /** `*.` origins: scheme, the host's `.`-prefixed name, port. */
  private readonly subdomains: ReadonlyArray<{ protocol: string; suffix: string; port: string }>;

  constructor(origins: readonly string[] = []) {
    const parsed = parseCorsOrigins(origins);
    if ('problem' in parsed) throw new Error(parsed.problem);
    this.origins = new Set(parsed.origins.filter((origin) => !origin.includes('*')));
    this.subdomains = parsed.origins
      .filter((origin) => origin.includes('*'))
      .map((origin) => {
        const base = new URL(origin.replace('*.', ''));
        return { protocol: base.protocol, suffix: `.${base.hostname}`, port: base.port };
      });
  }

  /** Whether a request's `Origin` is one of the allowed ones. */
  allows(origin: string | undefined): origin is string {
    if (origin === undefined) return false;
    if (this.origins.has(origin)) return true;
    if (this.subdomains.length === 0 || !URL.canParse(origin)) return false;
    const url = new URL(origin);
    // Exactly an origin (what browsers send), of a subdomain: never the host itself.
    return (
      url.origin === origin &&
      this.subdomains.some(
        ({ protocol, suffix, port }) => url.protocol === protocol && url.port === port && url.hostname.endsWith(suffix) && url.hostname.length > suffix.length,
      )
    );
  }

  /**
   * Sets the headers an allowed origin's response carries (before the route writes its reply, which
   * keeps them); `Vary: Origin` whenever any origin is allowed, as the answer then depends on it.
   */
  decorate(request: IncomingMessage, response: ServerResponse): void {
    if (this.origins.size === 0 && this.subdomains.length === 0) return;
    response.setHeader('Vary', 'Origin');
    const origin = request.headers.origin;
    if (!this.allows(origin)) return;
    response.setHeader('Access-Control-Allow-Origin', origin);
    response.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
  }

  /**
   * Answers a preflight (`OPTIONS` with `Access-Control-Request-Method`): 204, with the methods and
   * headers the APIs take for an allowed origin, and with no CORS header for any other. Returns
   * false when the request is not a preflight.
   */
  answerPreflight(request: IncomingMessage, response: ServerResponse): boolean {
    if (request.method !== 'OPTIONS' || request.headers['access-control-request-method'] === undefined) return false;
    if (this.allows(request.headers.origin)) {
      response.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
      response.setHeader('Access-Control-Allow-Headers', allowedHeaders(request.headers['access-control-request-headers']));
      response.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
    }
    response.writeHead(204, { 'Content-Length': 0, 'Cache-Control': 'no-store' });
    response.end();
    return true;
  }
}

/** The fixed list, and the `Mcp-Param-*` headers the preflight asks for. */
function allowedHeaders(requested: string | undefined): string {
  const params = (requested ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => MCP_PARAM_HEADER.test(name))
    .slice(0, 32);
  return [...ALLOWED_REQUEST_HEADERS, ...params].join(', ');
}
