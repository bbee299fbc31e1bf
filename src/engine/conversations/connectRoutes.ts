/**
 * The conversation API of 7.x servers, `POST /api/deepsearch.v1.Service/<Method>` (Connect protocol,
 * unary, JSON), served from the same conversation service as the legacy API: a conversation made
 * through either is visible through both, and its resource name's number is its legacy id. Every
 * failure is a Connect error, `{code, message}` with Connect's HTTP status for the code.
 */
import type { IncomingMessage } from 'node:http';
import type { WireConversation, WireQuestion } from '../../contract/legacyWire';
import {
  CONNECT_HTTP_STATUS,
  CONNECT_METHODS,
  CONNECT_SERVICE_PATH,
  SELF_PARENT,
  conversationIdOfName,
  conversationName,
  type ConnectErrorBody,
  type ConnectErrorCode,
  type ConnectListResponse,
  type ConnectMethod,
} from '../../contract/connectWire';
import { requireScope, type AuthenticatedUser, type UserDirectory } from '../http/auth';
import { toConnectConversation, toConnectQuestion, toConnectSummary } from './connectShapes';
import type { ConversationService, ResolvedVariant } from './service';
import { echo } from '../http/echo';
import { ClientGoneError, headerValue, HttpError, jsonReply, parseJsonObject, readBody, type Reply } from '../http/http';
import type { Route } from '../http/routeTable';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './listing';
import { MAX_QUESTION_LENGTH } from './routes';
import { errorMessage } from '../../contract/errorMessage';

/** The longest `contentQuery` a list filter may carry. */
export const MAX_CONTENT_QUERY_LENGTH = 500;

const CREATE_EXAMPLE = '{"parent": "users/~self", "conversation": {"questions": [{"input": [{"question": {"text": "Where is parseConfig defined?"}}]}]}}';
const NAME_EXAMPLE = '{"name": "users/~self/conversations/140"}';
const LIST_EXAMPLE = '{"parent": "users/~self", "pageSize": 20}';
const ADD_EXAMPLE = '{"parent": "users/~self/conversations/140", "question": {"input": [{"question": {"text": "Where is it used?"}}]}}';

/** A failure as Connect reports it. `status` defaults to Connect's status for the code. */
export class ConnectError extends Error {
  readonly status: number;
  constructor(
    readonly code: ConnectErrorCode,
    message: string,
    status?: number,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'ConnectError';
    this.status = status ?? CONNECT_HTTP_STATUS[code];
  }
}

export interface ConnectContext {
  service: ConversationService;
  variant: ResolvedVariant;
  users: UserDirectory;
  /** Aborted while the engine shuts down: failures then are `unavailable`. */
  shuttingDown: AbortSignal;
  log: (line: string) => void;
}

/** Reads the body as a JSON object (bounded like every other body). */
type BodyReader = (example: string) => Promise<Record<string, unknown>>;

interface Call {
  user: AuthenticatedUser;
  body: BodyReader;
}

type Handler = (context: ConnectContext, call: Call) => Promise<unknown>;

const HANDLERS: Record<ConnectMethod, Handler> = {
  CreateConversation: async (context, { user, body }) => {
    const request = await body(CREATE_EXAMPLE);
    requireSelfParent(request, user);
    const conversation = object(field(request, 'conversation'), 'conversation', CREATE_EXAMPLE);
    const questions = field(conversation, 'questions');
    if (!Array.isArray(questions) || questions.length !== 1) {
      throw invalid(`"conversation.questions" must hold exactly one question to start the conversation with, as in ${CREATE_EXAMPLE}.`);
    }
    const question = object(questions[0], 'conversation.questions[0]', CREATE_EXAMPLE);
    const text = questionText(field(question, 'input'), 'conversation.questions[0].input', CREATE_EXAMPLE);
    const created = await context.service.create(user, text);
    return toConnectConversation(created, context.variant.connectQuestions);
  },

  GetConversation: async (context, { user, body }) => {
    const id = nameOf(await body(NAME_EXAMPLE), 'name', user, NAME_EXAMPLE);
    return toConnectConversation(await onConversation(id, () => context.service.get(user, id)), context.variant.connectQuestions);
  },

  ListConversationSummaries: async (context, { user, body }) => {
    const request = await body(LIST_EXAMPLE);
    requireSelfParent(request, user);
    const { pageSize, after, starred, contentQuery } = listRequest(request);
    const matches = contentQuery === undefined ? (): boolean => true : (conversation: WireConversation): boolean => mentions(conversation, contentQuery);
    const page: WireConversation[] = [];
    let more = false;
    for (const conversation of conversationsAfter(context.service, user, starred, after)) {
      if (!matches(conversation)) continue;
      if (page.length === pageSize) {
        more = true;
        break;
      }
      page.push(conversation);
    }
    const response: ConnectListResponse = { conversationSummaries: page.map(toConnectSummary) };
    const last = page[page.length - 1];
    if (more && last) response.nextPageToken = pageToken(last.id);
    return response;
  },

  AddConversationQuestion: async (context, { user, body }) => {
    const request = await body(ADD_EXAMPLE);
    const id = nameOf(request, 'parent', user, ADD_EXAMPLE);
    const question = object(field(request, 'question'), 'question', ADD_EXAMPLE);
    const text = questionText(field(question, 'input'), 'question.input', ADD_EXAMPLE);
    let added: WireQuestion | WireConversation;
    try {
      added = await context.service.addFollowup(user, id, text);
    } catch (error) {
      if (error instanceof HttpError && error.status === 409) {
        throw new ConnectError(
          'failed_precondition',
          `Conversation ${conversationName(id)} is still answering a question: wait until its state is no longer "processing", or cancel it with CancelConversation, before adding a question.`,
        );
      }
      throw notFoundAs(error, id);
    }
    // The legacy variant may answer the whole conversation: its newest question is the one added.
    const wire = 'questions' in added ? added.questions[added.questions.length - 1] : added;
    if (!wire) throw new Error('the added question is missing from the conversation');
    return toConnectQuestion(wire, context.variant.connectQuestions);
  },

  CancelConversation: async (context, { user, body }) => {
    const id = nameOf(await body(NAME_EXAMPLE), 'name', user, NAME_EXAMPLE);
    let conversation = await onConversation(id, () => context.service.get(user, id));
    for (const question of conversation.questions) {
      if (question.status !== 'processing' && question.status !== 'pending') continue;
      conversation = await onConversation(id, () => context.service.cancel(user, id, question.id));
    }
    return toConnectConversation(conversation, context.variant.connectQuestions);
  },

  DeleteConversation: async (context, { user, body }) => {
    const id = nameOf(await body(NAME_EXAMPLE), 'name', user, NAME_EXAMPLE);
    await onConversation(id, () => context.service.delete(user, id));
    return {};
  },
};

/** Whether a path is the Connect API's. */
export function isConnectPath(path: string): boolean {
  return path === CONNECT_SERVICE_PATH || path.startsWith(`${CONNECT_SERVICE_PATH}/`);
}

/** The 7.x conversation API as a route of the engine's table: it tells methods apart itself, answering in Connect's terms. */
export function connectApiRoute(context: ConnectContext): Route {
  return {
    name: 'the conversation API of 7.x servers (Connect)',
    matches: isConnectPath,
    handle: ({ request, path }) => handleConnectRequest(context, request, path),
  };
}

/**
 * Answers one call under `CONNECT_SERVICE_PATH`. Never throws, except `ClientGoneError` (nobody is
 * left to answer): every failure becomes a Connect error reply.
 */
export async function handleConnectRequest(context: ConnectContext, request: IncomingMessage, path: string): Promise<Reply> {
  try {
    const method = procedureOf(path);
    if (request.method !== 'POST') {
      throw new ConnectError('unimplemented', `${echo(request.method ?? '')} is not supported: call ${method} with POST and a JSON body.`, 405, {
        Allow: 'POST',
      });
    }
    checkContentType(headerValue(request, 'content-type'));
    const version = headerValue(request, 'connect-protocol-version');
    if (version !== '' && version !== '1') {
      throw invalid(`Connect-Protocol-Version must be 1, not ${echo(version)}.`);
    }
    const user = context.users.authenticate(request.headers.authorization);
    requireScope(user, method === 'GetConversation' || method === 'ListConversationSummaries' ? 'read' : 'write');
    const body: BodyReader = async (example) => parseJsonObject(await readBody(request), example);
    return jsonReply(200, await HANDLERS[method](context, { user, body }));
  } catch (error) {
    if (error instanceof ClientGoneError) throw error;
    return connectErrorReply(asConnectError(error, context));
  }
}

export function connectErrorReply(error: ConnectError): Reply {
  const body: ConnectErrorBody = { code: error.code, message: error.message };
  return { ...jsonReply(error.status, body), headers: error.headers };
}

/** The Connect code of an HTTP status (for the engine's own errors and injected faults). */
export function connectCodeOfStatus(status: number): ConnectErrorCode {
  switch (status) {
    case 400:
      return 'invalid_argument';
    case 401:
      return 'unauthenticated';
    case 403:
      return 'permission_denied';
    case 404:
      return 'not_found';
    case 409:
      return 'failed_precondition';
    case 413:
    case 429:
    case 507:
      return 'resource_exhausted';
    case 501:
      return 'unimplemented';
    case 502:
    case 503:
    case 504:
      return 'unavailable';
    default:
      return status >= 400 && status < 500 ? 'invalid_argument' : 'internal';
  }
}

function asConnectError(error: unknown, context: ConnectContext): ConnectError {
  if (error instanceof ConnectError) return error;
  if (error instanceof HttpError) {
    // The 401's WWW-Authenticate stays; a 413's "Connection: close" too. A full disk keeps its 507:
    // clients must know that nothing was saved, which resource_exhausted's usual 429 does not say.
    return new ConnectError(connectCodeOfStatus(error.status), error.message, error.status === 507 ? 507 : undefined, error.headers);
  }
  if (context.shuttingDown.aborted) return new ConnectError('unavailable', 'The engine is shutting down: try again once it is running.');
  const message = errorMessage(error);
  context.log(`internal error: ${error instanceof Error && error.stack ? error.stack : message}`);
  return new ConnectError('internal', `Internal engine error: ${message}. The engine log has details.`);
}

/** The method a path names; anything else under the service is Connect's unknown procedure. */
function procedureOf(path: string): ConnectMethod {
  const method = path.startsWith(`${CONNECT_SERVICE_PATH}/`) ? path.slice(CONNECT_SERVICE_PATH.length + 1) : '';
  if ((CONNECT_METHODS as readonly string[]).includes(method)) return method as ConnectMethod;
  throw new ConnectError('unimplemented', `No method ${echo(method)} in deepsearch.v1.Service: the methods are ${CONNECT_METHODS.join(', ')}.`, 404);
}

/** Connect unary JSON: `application/json`, optionally with a UTF-8 charset. */
function checkContentType(value: string): void {
  const [type = '', ...parameters] = value.split(';').map((part) => part.trim().toLowerCase());
  const charset = parameters.find((parameter) => parameter.startsWith('charset='));
  const utf8 = charset === undefined || /^charset="?utf-8"?$/.test(charset);
  if (type === 'application/json' && utf8) return;
  const got = value === '' ? 'no Content-Type' : `Content-Type ${echo(value)}`;
  throw new ConnectError('invalid_argument', `Send the request as Connect JSON with "Content-Type: application/json", not ${got}.`, 415, {
    'Accept-Post': 'application/json',
  });
}

function invalid(message: string): ConnectError {
  return new ConnectError('invalid_argument', message);
}

/**
 * A field by its lowerCamelCase name or its snake_case one (protobuf JSON readers accept both); a
 * JSON null is the field left out.
 */
function field(value: Record<string, unknown>, camel: string): unknown {
  const snake = camel.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
  const byCamel = value[camel] ?? undefined;
  const bySnake = snake === camel ? undefined : (value[snake] ?? undefined);
  if (byCamel !== undefined && bySnake !== undefined) throw invalid(`Send "${camel}" or "${snake}", not both.`);
  return byCamel ?? bySnake;
}

function object(value: unknown, where: string, example: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid(`"${where}" must be an object, not ${echo(value)}, as in ${example}.`);
  }
  return value as Record<string, unknown>;
}

/** The caller's own parent: `users/~self` (or the caller's id or name); left out means the same. */
function requireSelfParent(request: Record<string, unknown>, user: AuthenticatedUser): void {
  const parent = field(request, 'parent');
  if (parent === undefined || parent === SELF_PARENT) return;
  if (typeof parent !== 'string' || !/^users\/[^/]{1,100}$/.test(parent)) {
    throw invalid(`"parent" must be "${SELF_PARENT}", not ${echo(parent)}.`);
  }
  if (!isSelf(parent.slice('users/'.length), user)) {
    throw new ConnectError('permission_denied', `Only your own conversations are served here: use "parent": "${SELF_PARENT}", not ${echo(parent)}.`);
  }
}

function isSelf(segment: string, user: AuthenticatedUser): boolean {
  return segment === '~self' || segment === String(user.id) || segment === user.name;
}

/** The legacy id of the conversation a request names in `key`. */
function nameOf(request: Record<string, unknown>, key: 'name' | 'parent', user: AuthenticatedUser, example: string): number {
  const name = field(request, key);
  if (typeof name !== 'string' || name === '') {
    throw invalid(`The request needs "${key}", a conversation's resource name, as in ${example}.`);
  }
  const id = conversationIdOfName(name);
  if (id === undefined) {
    throw invalid(`"${key}" must be a conversation's resource name such as "${conversationName(140)}", not ${echo(name)}.`);
  }
  // Another user's name is as unknown as a missing conversation: names do not reveal what exists.
  if (!isSelf(name.split('/')[1] ?? '', user)) throw notFound(id);
  return id;
}

/** The question text of an `input` list: its text blocks joined by a blank line. */
function questionText(input: unknown, where: string, example: string): string {
  if (!Array.isArray(input) || input.length === 0) {
    throw invalid(`"${where}" must be a non-empty list of input blocks such as {"question": {"text": "…"}}, as in ${example}.`);
  }
  const texts = input.map((block: unknown, index) => {
    const entry = object(block, `${where}[${index}]`, example);
    if (field(entry, 'image') !== undefined) {
      throw invalid(`"${where}[${index}]" is an image: the local engine answers text questions only. Send {"question": {"text": "…"}} blocks.`);
    }
    const question = field(entry, 'question');
    const text = question === undefined ? undefined : field(object(question, `${where}[${index}].question`, example), 'text');
    if (typeof text !== 'string') {
      throw invalid(`"${where}[${index}]" must be a block {"question": {"text": "…"}} with a text string, as in ${example}.`);
    }
    return text;
  });
  const text = texts.join('\n\n');
  if (text.trim() === '') throw invalid(`The question in "${where}" is empty: send its text, as in ${example}.`);
  if (text.length > MAX_QUESTION_LENGTH) {
    throw invalid(`The question is ${text.length} characters long; the limit is ${MAX_QUESTION_LENGTH}. Shorten it or quote less code.`);
  }
  return text;
}

interface ListRequest {
  pageSize: number;
  /** Conversations listed after the one with this id (the previous page's last). */
  after?: number;
  starred?: boolean;
  /** Lower case. */
  contentQuery?: string;
}

function listRequest(request: Record<string, unknown>): ListRequest {
  const result: ListRequest = { pageSize: pageSizeOf(field(request, 'pageSize')) };
  const token = field(request, 'pageToken');
  if (token !== undefined && token !== '') result.after = afterOfToken(token);
  const filters = field(request, 'filters');
  if (filters === undefined) return result;
  if (!Array.isArray(filters)) throw invalid(`"filters" must be a list such as [{"starred": true}, {"contentQuery": "parseConfig"}], not ${echo(filters)}.`);
  filters.forEach((entry: unknown, index) => {
    const filter = object(entry, `filters[${index}]`, '{"starred": true}');
    const keys = Object.keys(filter).filter((key) => filter[key] !== null && filter[key] !== undefined);
    const starred = field(filter, 'starred');
    const query = field(filter, 'contentQuery');
    if (keys.length !== 1 || (starred === undefined && query === undefined)) {
      throw invalid(
        `"filters[${index}]" must hold exactly one of "starred" (a boolean) or "contentQuery" (text), not ${keys.length === 0 ? 'nothing' : keys.map((key) => echo(key)).join(', ')}.`,
      );
    }
    if (starred !== undefined) {
      if (typeof starred !== 'boolean') throw invalid(`"filters[${index}].starred" must be true or false, not ${echo(starred)}.`);
      if (result.starred !== undefined && result.starred !== starred) throw invalid('Two "starred" filters disagree: send one.');
      result.starred = starred;
      return;
    }
    if (typeof query !== 'string') throw invalid(`"filters[${index}].contentQuery" must be text, not ${echo(query)}.`);
    if (query.length > MAX_CONTENT_QUERY_LENGTH) {
      throw invalid(`"filters[${index}].contentQuery" is ${query.length} characters long; the limit is ${MAX_CONTENT_QUERY_LENGTH}.`);
    }
    if (query.trim() === '') return; // An empty query (protobuf's default) filters nothing.
    if (result.contentQuery !== undefined) throw invalid('Send at most one "contentQuery" filter.');
    result.contentQuery = query.trim().toLowerCase();
  });
  return result;
}

/** 0 or left out: the default; above the maximum: the maximum (as AIP-158 asks). */
function pageSizeOf(value: unknown): number {
  if (value === undefined) return DEFAULT_PAGE_SIZE;
  // Protobuf JSON also writes 32-bit integers as strings.
  const size = typeof value === 'string' && /^-?\d{1,10}$/.test(value) ? Number(value) : value;
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
    throw invalid(`"pageSize" must be a whole number ≥ 0 (0 for the default of ${DEFAULT_PAGE_SIZE}), not ${echo(value)}.`);
  }
  return size === 0 ? DEFAULT_PAGE_SIZE : Math.min(size, MAX_PAGE_SIZE);
}

const TOKEN_PREFIX = 'after:';

/** An opaque token for the page after conversation `id` (newest first, so: older ones). */
function pageToken(id: number): string {
  return Buffer.from(`${TOKEN_PREFIX}${id}`, 'utf8').toString('base64url');
}

function afterOfToken(token: unknown): number {
  const decoded = typeof token === 'string' && /^[A-Za-z0-9_-]{1,40}={0,2}$/.test(token) ? Buffer.from(token, 'base64url').toString('utf8') : '';
  const match = /^after:([1-9]\d{0,14})$/.exec(decoded);
  if (!match) {
    throw invalid(`"pageToken" ${echo(token)} is not one this server gave out: pass a "nextPageToken" from an earlier answer, or list again without one.`);
  }
  return Number(match[1]);
}

/**
 * The caller's conversations, newest first, that come after the one with id `after` (ids only
 * grow, so: those with a smaller id). Creation order, not update order, so that a conversation
 * updated between two pages neither shows twice nor goes missing; the conversation the token names
 * need not exist any more. Pages of the legacy listing are taken lazily, so a page of summaries
 * renders little more than itself.
 */
function* conversationsAfter(
  service: ConversationService,
  user: AuthenticatedUser,
  starred: boolean | undefined,
  after: number | undefined,
): Generator<WireConversation> {
  let cursor = after;
  let skipFrom = Number.POSITIVE_INFINITY;
  for (;;) {
    let page;
    try {
      page = service.list(user, {
        first: MAX_PAGE_SIZE,
        sort: '-id',
        ...(starred === undefined ? {} : { starred }),
        ...(cursor === undefined ? {} : { after: cursor }),
      });
    } catch (error) {
      // The token's conversation is gone (deleted, or no longer matching the filter): list from the
      // start and skip up to it.
      if (!(error instanceof HttpError) || error.status !== 400 || cursor === undefined || cursor !== after) throw error;
      skipFrom = cursor;
      cursor = undefined;
      continue;
    }
    for (const conversation of page.conversations) {
      if (conversation.id < skipFrom) yield conversation;
    }
    if (page.nextCursor === null) return;
    cursor = Number(page.nextCursor);
  }
}

/** Whether `query` (lower case) occurs in one of the conversation's questions or answers. */
function mentions(conversation: WireConversation, query: string): boolean {
  return conversation.questions.some(
    (question) => question.question.toLowerCase().includes(query) || (typeof question.answer === 'string' && question.answer.toLowerCase().includes(query)),
  );
}

/**
 * Runs a service call on conversation `id`: its 404 (missing, deleted, someone else's) becomes this
 * API's `not_found`. A full disk's 507 becomes `resource_exhausted` with the engine's words, as
 * every other status becomes its code, in `asConnectError`.
 */
async function onConversation<T>(id: number, call: () => Promise<T> | T): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw notFoundAs(error, id);
  }
}

function notFoundAs(error: unknown, id: number): unknown {
  return error instanceof HttpError && error.status === 404 ? notFound(id) : error;
}

function notFound(id: number): ConnectError {
  return new ConnectError('not_found', `No conversation ${conversationName(id)}: it does not exist, was deleted, or is not yours.`);
}
