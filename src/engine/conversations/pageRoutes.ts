/**
 * The routes of what a browser opens rather than an API client calls: the share page behind a
 * conversation's `share_url`, the page that starts a new question, and the files an answer
 * generated.
 */
import { requireScope, type UserDirectory } from '../http/auth';
import type { Route } from '../http/routeTable';
import { HttpError } from '../http/http';
import type { ConversationService } from './service';
import { renderNewQuestionPage, renderSharePage, SHARE_PAGE_CSP } from './sharePage';

/** Where share pages live: `/deepsearch/<read token>`. */
const SHARE_PATH = '/deepsearch/';
/** A file an answer generated: `/deepsearch/files/<conversation id>/<name>`, for its owner. */
export const GENERATED_FILE_PATH = /^\/deepsearch\/files\/(\d{1,15})\/([^/]{1,400})$/;
const GENERATED_TYPES = new Set(['text/csv', 'application/json', 'image/svg+xml', 'text/plain']);
/** Where an instance's page starts a new question, its text in `?q=`. */
const NEW_QUESTION_PATH = '/deepsearch';

interface PageContext {
  service: ConversationService;
  users: UserDirectory;
}

/** An answer's generated file, for its owner: downloaded, its type as said, nothing in it run. */
export function generatedFileRoute({ service, users }: PageContext): Route {
  return {
    name: "an answer's generated files",
    matches: (path) => GENERATED_FILE_PATH.test(path),
    methods: ['GET'],
    handle: ({ request, path }) => {
      const [, id = '', name = ''] = GENERATED_FILE_PATH.exec(path) ?? [];
      const user = users.authenticate(request.headers.authorization);
      requireScope(user, 'read');
      const file = service.generatedFile(user, Number(id), safeDecode(name));
      return {
        status: 200,
        body: file.text,
        contentType: GENERATED_TYPES.has(file.content_type) ? `${file.content_type}; charset=utf-8` : 'application/octet-stream',
        headers: {
          'Content-Disposition': `attachment; filename="${file.name}"`,
          'X-Content-Type-Options': 'nosniff',
          'Content-Security-Policy': "default-src 'none'; sandbox",
        },
      };
    },
  };
}

/** The page that starts a new question with the text in `?q=`. */
export function newQuestionPageRoute(): Route {
  return {
    name: 'the new-question page',
    matches: (path) => path === NEW_QUESTION_PATH,
    methods: ['GET'],
    handle: ({ query }) => ({
      status: 200,
      body: renderNewQuestionPage(query.get('q') ?? ''),
      contentType: 'text/html; charset=utf-8',
      headers: { 'Content-Security-Policy': SHARE_PAGE_CSP, 'Referrer-Policy': 'no-referrer' },
    }),
  };
}

/**
 * A conversation's share page: with sharing on, the read token in the link is the credential
 * (browsers send no token header); with sharing off, only the owner's Authorization header opens it.
 */
export function sharePageRoute({ service, users }: PageContext): Route {
  return {
    name: 'share pages',
    matches: (path) => path.startsWith(SHARE_PATH),
    methods: ['GET'],
    handle: ({ request, path }) => {
      const authorization = request.headers.authorization;
      const viewer = authorization ? users.authenticate(authorization) : undefined;
      const conversation = service.findShared(decodeURIComponent(path.slice(SHARE_PATH.length)), viewer?.id);
      if (!conversation) {
        throw new HttpError(404, 'No shared conversation at this link: it was deleted, its link was replaced, or sharing is off.');
      }
      return {
        status: 200,
        body: renderSharePage(conversation),
        contentType: 'text/html; charset=utf-8',
        headers: { 'Content-Security-Policy': SHARE_PAGE_CSP, 'Referrer-Policy': 'no-referrer' },
      };
    },
  };
}

/** Share links carry a read token: a path as the log may show it. */
export function redactSharePath(path: string): string {
  return path.startsWith(SHARE_PATH) && !GENERATED_FILE_PATH.test(path) ? `${SHARE_PATH}<read token>` : path;
}

/** A path segment decoded, or as it is when it is not valid percent-encoding. */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
