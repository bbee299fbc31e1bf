import assert from 'node:assert/strict';
import { HttpError, jsonReply } from '../../../src/engine/http/http';
import { routeFor, type Route } from '../../../src/engine/http/routeTable';

function route(name: string, matches: (path: string) => boolean, methods?: string[]): Route {
  return { name, matches, ...(methods ? { methods } : {}), handle: () => jsonReply(200, { name }) };
}

describe("engine: the route table's dispatch", function () {
  const routes = [
    route('exact', (path) => path === '/deepsearch', ['GET']),
    route('prefix', (path) => path.startsWith('/deepsearch'), ['GET', 'POST']),
    route('any method', (path) => path.startsWith('/api/')),
  ];

  it('answers with the first route whose path matches, even when a later one matches too', function () {
    assert.equal(routeFor(routes, { method: 'GET', path: '/deepsearch' })?.name, 'exact');
    assert.equal(routeFor(routes, { method: 'POST', path: '/deepsearch/abc' })?.name, 'prefix');
  });

  it('refuses a method the matching route does not list with 405, naming and allowing the ones it does', function () {
    assert.throws(
      () => routeFor(routes, { method: 'DELETE', path: '/deepsearch/abc' }),
      (error: unknown) =>
        error instanceof HttpError &&
        error.status === 405 &&
        error.headers?.Allow === 'GET, POST' &&
        error.message === 'DELETE is not supported here: use GET or POST.',
    );
    // The first match decides, even where a later route would take the method.
    assert.throws(
      () => routeFor(routes, { method: 'POST', path: '/deepsearch' }),
      (error: unknown) => error instanceof HttpError && error.status === 405 && error.headers?.Allow === 'GET',
    );
  });

  it('hands every method to a route that tells methods apart itself, and finds no route for a path none serves', function () {
    assert.equal(routeFor(routes, { method: 'PATCH', path: '/api/x' })?.name, 'any method');
    assert.equal(routeFor(routes, { method: 'GET', path: '/elsewhere' }), undefined);
  });
});
