/**
 * The engine's one route table (server.ts lists it): each entry says which paths it serves, with
 * which methods, and how it answers. The first entry whose `matches` holds answers; a method the
 * entry does not list is refused with 405 and the methods it does; a path no entry matches is
 * the caller's 404.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError, type Reply } from './http';

/** A request as a route sees it: the parsed path and query beside Node's request and response. */
export interface RouteCall {
  request: IncomingMessage;
  response: ServerResponse;
  method: string;
  path: string;
  query: URLSearchParams;
}

/** What a route answers: a reply for the server to send, or `sent` when it wrote the response itself (a stream). */
export type RouteOutcome = Reply | 'sent';

export interface Route {
  /** What the route serves, for whoever reads the table. */
  readonly name: string;
  matches(path: string): boolean;
  /** The methods it answers (others: 405 with `Allow`); absent when it tells methods apart itself. */
  readonly methods?: readonly string[];
  handle(call: RouteCall): Promise<RouteOutcome> | RouteOutcome;
}

/** The route that answers `call`, its method checked; undefined when no route serves the path. */
export function routeFor(routes: readonly Route[], call: Pick<RouteCall, 'method' | 'path'>): Route | undefined {
  const route = routes.find((candidate) => candidate.matches(call.path));
  if (route?.methods && !route.methods.includes(call.method)) {
    const allowed = route.methods.join(', ');
    throw new HttpError(405, `${call.method} is not supported here: use ${route.methods.join(' or ')}.`, { Allow: allowed });
  }
  return route;
}
