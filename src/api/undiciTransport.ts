/**
 * The Node side of the client's transport (transport.ts): undici's `request` through one
 * dispatcher built from the proxy and certificate settings, so proxies and private CAs apply to
 * every request. Only the Node bundles carry it (dist/network.js); the web bundle sends with fetch.
 */
import { rootCertificates } from 'node:tls';
import { Agent, EnvHttpProxyAgent, request, type Dispatcher } from 'undici';
import type { Transport, TransportRequest, TransportResponse } from './transport';

export interface DispatcherOptions {
  /** e.g. VS Code's `http.proxy`; `host:port` means `http://host:port`. Empty = connect directly. */
  proxyUrl?: string;
  /** Hosts (`example.com`, `.corp`, `host:8080`) reached without the proxy. */
  noProxy?: string[];
  /** Loopback (the local engine) never goes through the proxy unless this is false. Default true. */
  bypassProxyForLoopback?: boolean;
  /** VS Code's `http.proxyStrictSSL`. Default true. */
  strictSSL?: boolean;
  /** PEM contents of extra CA certificates, trusted in addition to the public roots. */
  caCertificates?: string[];
}

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/** The one dispatcher all HTTP of the extension goes through, so proxies and private CAs work. */
export function createDispatcher(options: DispatcherOptions = {}): Dispatcher {
  const extraCas = (options.caCertificates ?? []).filter((pem) => pem.trim() !== '');
  const tls = {
    rejectUnauthorized: options.strictSSL ?? true,
    // Node replaces its roots when `ca` is set: keep the public ones next to the private ones.
    ...(extraCas.length ? { ca: [...rootCertificates, ...extraCas] } : {}),
  };
  const proxyUrl = options.proxyUrl?.trim();
  if (!proxyUrl) {
    return new Agent({ connect: tls });
  }
  const uri = /^[a-z][a-z0-9+.-]*:\/\//i.test(proxyUrl) ? proxyUrl : `http://${proxyUrl}`;
  const noProxy = [...(options.bypassProxyForLoopback === false ? [] : LOOPBACK_HOSTS), ...(options.noProxy ?? [])];
  return new EnvHttpProxyAgent({
    httpProxy: uri,
    httpsProxy: uri,
    // A non-empty value keeps undici from reading NO_PROXY from the environment.
    noProxy: noProxy.length ? noProxy.join(',') : ',',
    connect: tls,
    requestTls: tls,
    proxyTls: tls,
  });
}

/** A transport over `dispatcher` (undici's global one when absent). undici follows no redirect by itself. */
export function undiciTransport(dispatcher?: Dispatcher): Transport {
  return {
    async send(sent: TransportRequest): Promise<TransportResponse> {
      const response = await request(sent.url, { method: sent.method, headers: sent.headers, body: sent.body, signal: sent.signal, dispatcher });
      const discard = () => {
        // Destroyed before its end, the body reports the abort as an error: nobody is reading it any more.
        response.body.on('error', () => undefined);
        response.body.destroy();
      };
      return { status: response.statusCode, headers: flattenHeaders(response.headers), body: response.body, discard };
    },
    close: async () => {
      await dispatcher?.close();
    },
    destroy: async () => {
      await dispatcher?.destroy();
    },
  };
}

/** A transport with its own dispatcher, built from the proxy and certificate settings. */
export function createUndiciTransport(options: DispatcherOptions = {}): Transport {
  return undiciTransport(createDispatcher(options));
}

/** Response headers by lower-case name, a repeated one's values joined. */
export function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) {
      flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
    }
  }
  return flat;
}
