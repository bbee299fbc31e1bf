/**
 * The routes of the conversation API under `/.api/deepsearch/v1`: matching a path and method to a
 * service call, validating request bodies, and shaping replies in the configured variant.
 */
import { requireScope, type AuthenticatedUser, type UserDirectory } from '../http/auth';
import type { ConversationService, ResolvedVariant } from './service';
import { headerValue, HttpError, jsonReply, noContentReply, parseJsonObject, readBody, type Reply } from '../http/http';
import type { Route } from '../http/routeTable';
import { parseListQuery } from './listing';
import { echo } from '../http/echo';

import { API_PATH, MAX_QUESTION_LENGTH } from '../../contract/legacyWire';

export { MAX_QUESTION_LENGTH };

export interface ApiRequest {
  method: string;
  /** The path below the API base, starting with `/` (the base itself is `/`). */
  path: string;
  query: URLSearchParams;
  user: AuthenticatedUser;
  /** Reads and parses the body as a JSON object. */
  readJson(example: string): Promise<Record<string, unknown>>;
}

export interface ApiContext {
  service: ConversationService;
  variant: ResolvedVariant;
}

type Handler = (context: ApiContext, request: ApiRequest, ids: number[]) => Promise<Reply> | Reply;

interface ApiRoute {
  /** Segments; `:id` matches a conversation or question id. */
  pattern: string[];
  handlers: Partial<Record<string, Handler>>;
}

const QUESTION_EXAMPLE = '{"question": "Where is parseConfig defined?"}';

const ROUTES: ApiRoute[] = [
  {
    pattern: [],
    handlers: {
      GET: (context, request) => {
        const page = context.service.list(request.user, parseListQuery(request.query));
        return context.variant.listShape === 'wrapped'
          ? jsonReply(200, { conversations: page.conversations, next_cursor: page.nextCursor })
          : jsonReply(200, page.conversations);
      },
      POST: async (context, request) => {
        const question = requireQuestion(await request.readJson(QUESTION_EXAMPLE));
        return jsonReply(context.variant.createStatus, await context.service.create(request.user, question));
      },
      DELETE: async (context, request) => {
        await context.service.deleteAll(request.user);
        return deleted(context);
      },
    },
  },
  {
    pattern: [':id'],
    handlers: {
      GET: (context, request, [id]) => jsonReply(200, context.service.get(request.user, id)),
      DELETE: async (context, request, [id]) => {
        await context.service.delete(request.user, id);
        return deleted(context);
      },
    },
  },
  {
    pattern: [':id', 'questions'],
    handlers: {
      POST: async (context, request, [id]) => {
        const example = `{"conversation_id": ${id}, "question": "Where is it used?"}`;
        const body = await request.readJson(example);
        if (body.conversation_id !== id) {
          throw new HttpError(400, `The body's conversation_id (${echo(body.conversation_id ?? null)}) must equal the conversation id in the path (${id}).`);
        }
        const question = requireQuestion(body);
        return jsonReply(200, await context.service.addFollowup(request.user, id, question));
      },
    },
  },
  {
    pattern: [':id', 'questions', ':id'],
    handlers: {
      GET: (context, request, [id, questionId]) => jsonReply(200, context.service.getQuestion(request.user, id, questionId)),
    },
  },
  {
    pattern: [':id', 'questions', ':id', 'cancel'],
    handlers: {
      POST: async (context, request, [id, questionId]) => jsonReply(200, await context.service.cancel(request.user, id, questionId)),
    },
  },
  {
    pattern: [':id', 'rotate-read-token'],
    handlers: {
      POST: async (context, request, [id]) => jsonReply(200, await context.service.rotateReadToken(request.user, id)),
    },
  },
];

/**
 * The conversation API of 6.x servers as a route of the engine's table: the caller's token with the
 * scope the method needs, and `X-Requested-With`, before any of its routes.
 */
export function legacyApiRoute(context: ApiContext & { users: UserDirectory }): Route {
  return {
    name: 'the conversation API of 6.x servers',
    matches: (path) => path === API_PATH || path.startsWith(`${API_PATH}/`),
    handle: ({ request, method, path, query }) => {
      const user = context.users.authenticate(request.headers.authorization);
      requireScope(user, method === 'GET' ? 'read' : 'write');
      if (!headerValue(request, 'x-requested-with')) {
        throw new HttpError(400, 'Missing X-Requested-With header: send "X-Requested-With: <client name> <client version>" on every call.');
      }
      return handleApiRequest(context, {
        method,
        path: path.slice(API_PATH.length) || '/',
        query,
        user,
        readJson: async (example) => parseJsonObject(await readBody(request), example),
      });
    },
  };
}

/** Answers one API request; throws `HttpError` for everything a client must fix. */
export async function handleApiRequest(context: ApiContext, request: ApiRequest): Promise<Reply> {
  const segments = request.path.split('/').filter((segment) => segment !== '');
  for (const route of ROUTES) {
    const ids = matchRoute(route.pattern, segments);
    if (!ids) continue;
    const handler = route.handlers[request.method];
    if (!handler) {
      const allowed = Object.keys(route.handlers).join(', ');
      throw new HttpError(405, `${request.method} is not supported here: use ${allowed}.`, { Allow: allowed });
    }
    return handler(context, request, ids);
  }
  throw new HttpError(404, `No API route matches ${request.method} ${request.path}.`);
}

/** The ids in the path when it has the route's shape; a malformed id is a 404 naming it. */
function matchRoute(pattern: readonly string[], segments: readonly string[]): number[] | undefined {
  if (pattern.length !== segments.length) return undefined;
  const ids: number[] = [];
  for (let index = 0; index < pattern.length; index++) {
    const expected = pattern[index];
    const actual = segments[index] ?? '';
    if (expected !== ':id') {
      if (expected !== actual) return undefined;
      continue;
    }
    if (!/^[1-9]\d{0,15}$/.test(actual)) {
      const what = index === 0 ? 'conversation' : 'question';
      throw new HttpError(404, `No ${what} with id "${decodeSegment(actual).slice(0, 40)}": ids are positive integers.`);
    }
    ids.push(Number(actual));
  }
  return ids;
}

function requireQuestion(body: Record<string, unknown>): string {
  const question = body.question;
  if (typeof question !== 'string' || question.trim() === '') {
    throw new HttpError(400, `The request needs a non-empty "question" string, as in ${QUESTION_EXAMPLE}.`);
  }
  if (question.length > MAX_QUESTION_LENGTH) {
    throw new HttpError(400, `The question is ${question.length} characters long; the limit is ${MAX_QUESTION_LENGTH}. Shorten it or quote less code.`);
  }
  return question;
}

function deleted(context: ApiContext): Reply {
  return context.variant.deleteStatus === 200 ? jsonReply(200, {}) : noContentReply();
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
