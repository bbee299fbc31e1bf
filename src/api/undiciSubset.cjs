/**
 * What the bundles take of undici: the two dispatchers `createDispatcher` builds (src/api/http.ts)
 * and `request`, the one call every HTTP request of the client goes through. esbuild.mjs resolves
 * `undici` to this file for the bundles, so that the rest of the package (fetch, WebSocket,
 * EventSource, caches, cookies, mock agents, interceptors) stays out of dist/network.js; the
 * TypeScript sources import `undici` itself, for its types and in tests. undici has no `exports`
 * map, so its own files can be required one by one; no version promises to keep them, so
 * package.json pins undici to one exact version. test/unit/api/undiciSubset.test.ts checks that
 * every value the sources import from `undici` is here, that these files are the ones undici's entry
 * is built from, and that requests are answered as through undici's own `request`.
 */
'use strict';

const Dispatcher = require('undici/lib/dispatcher/dispatcher');
const Agent = require('undici/lib/dispatcher/agent');
const EnvHttpProxyAgent = require('undici/lib/dispatcher/env-http-proxy-agent');
const api = require('undici/lib/api');
const { getGlobalDispatcher } = require('undici/lib/global');

// undici's own entry gives every dispatcher its request methods so: the proxy agent relies on them.
Object.assign(Dispatcher.prototype, api);

/**
 * `request(url, options)` as undici exports it, for the forms the client uses: an absolute URL
 * (string or URL) and options with `method`, `headers`, `body`, `signal` and `dispatcher` (the
 * global dispatcher when absent).
 */
function request(url, options = {}) {
  const target = url instanceof URL ? url : new URL(String(url));
  const { dispatcher = getGlobalDispatcher(), ...rest } = options;
  return api.request.call(dispatcher, {
    ...rest,
    origin: target.origin,
    path: `${target.pathname}${target.search}`,
    method: rest.method || (rest.body ? 'PUT' : 'GET'),
  });
}

module.exports = { Agent, Dispatcher, EnvHttpProxyAgent, getGlobalDispatcher, request };
