/**
 * Simulated Deep Search users for the engine API figure: each client loops over what the extension
 * does (ask, poll at the given interval until answered, list the first page and sometimes the next, now and
 * then a follow-up) over real HTTP, recording every call's latency and outcome and every question
 * the engine acknowledged. Runs in a worker thread (see `engineApiWorker.ts`) so the load generator
 * does not share the engine's event loop.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request, type Dispatcher } from 'undici';
import type { WireConversation, WireQuestion } from '../../src/contract/legacyWire';

export type CallKind = 'create' | 'followup' | 'poll' | 'list';

/** One HTTP call as a client saw it. */
export interface CallSample {
  kind: CallKind;
  /** From sending the request until the whole body was read. */
  ms: number;
  /** HTTP status, or 0 for a network error or timeout. */
  status: number;
  /** Why a call failed (`ECONNRESET`, `timeout`, the error body…); absent on success. */
  error?: string;
}

/** A conversation the engine acknowledged, with every question it acknowledged, in order. */
export interface CreatedConversation {
  id: number;
  /** Index into the tokens of whoever created it. */
  user: number;
  questionIds: number[];
}

export interface ClientsOptions {
  apiUrl: string;
  /** One token per user; client `i` acts as user `i % tokens.length`. */
  tokens: string[];
  clients: number;
  durationMs: number;
  /** Wait between polls of a processing question (the extension's watched interval). */
  pollIntervalMs: number;
  pageSize: number;
  /** A request without a complete answer after this long counts as an error. */
  requestTimeoutMs: number;
}

export interface ClientsResult {
  samples: CallSample[];
  created: CreatedConversation[];
  /** Wall time of the load, from the first client's start until the last one stopped. */
  elapsedMs: number;
}

export interface ApiResult<T> {
  status: number;
  json: T | undefined;
  text: string;
}

export const CLIENT_HEADER = 'deep-search-bench 1.0.0';

const QUESTIONS = [
  'Where is `parseConfig` defined?',
  'How does `retry_with_backoff` decide how long to wait?',
  'What calls `loadConfig`?',
  'Where is the `port` setting checked?',
  'When is `ConfigError` thrown?',
  'What does `startServer` log?',
];
const FOLLOWUPS = ['Where is it used?', 'How is `AppConfig` tested?', 'What happens when `retries` is missing?'];
/** One conversation in this many gets a follow-up once answered. */
const FOLLOWUP_EVERY = 4;
/** One listing in this many also loads the next page, as "load more" does. */
const NEXT_PAGE_EVERY = 3;

/** One call to the conversation API with the headers the extension sends. */
export async function callApi<T>(
  dispatcher: Dispatcher,
  apiUrl: string,
  token: string,
  method: 'GET' | 'POST',
  path: string,
  options: { body?: unknown; timeoutMs: number },
): Promise<ApiResult<T>> {
  const headers: Record<string, string> = {
    authorization: `token ${token}`,
    'x-requested-with': CLIENT_HEADER,
    accept: 'application/json',
  };
  let body: string | undefined;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const response = await request(apiUrl + path, {
    method,
    headers,
    body,
    dispatcher,
    signal: AbortSignal.timeout(options.timeoutMs),
  });
  const text = await response.body.text();
  let json: T | undefined;
  try {
    json = text === '' ? undefined : (JSON.parse(text) as T);
  } catch {
    json = undefined;
  }
  return { status: response.statusCode, json, text };
}

/** Runs every client until the duration is up and returns what they saw. */
export async function runClients(options: ClientsOptions): Promise<ClientsResult> {
  // One connection per client at most, kept alive between calls, as each user's extension does.
  const dispatcher = new Agent({ connections: options.clients });
  const samples: CallSample[] = [];
  const created: CreatedConversation[] = [];
  const started = performance.now();
  const stopAt = started + options.durationMs;
  try {
    await Promise.all(Array.from({ length: options.clients }, (_, index) => new SimulatedClient(options, dispatcher, index, stopAt, samples, created).run()));
  } finally {
    await dispatcher.close();
  }
  return { samples, created, elapsedMs: performance.now() - started };
}

class SimulatedClient {
  private readonly token: string;
  private readonly user: number;
  private loops = 0;

  constructor(
    private readonly options: ClientsOptions,
    private readonly dispatcher: Dispatcher,
    private readonly index: number,
    private readonly stopAt: number,
    private readonly samples: CallSample[],
    private readonly created: CreatedConversation[],
  ) {
    this.user = index % options.tokens.length;
    this.token = options.tokens[this.user];
  }

  async run(): Promise<void> {
    // Clients start spread over one poll interval, as users do, not all in the same millisecond.
    await sleep((this.index / this.options.clients) * this.options.pollIntervalMs);
    while (!this.stopped()) {
      this.loops++;
      const conversation = await this.call<WireConversation>('create', 'POST', '/', {
        question: QUESTIONS[(this.index + this.loops) % QUESTIONS.length],
      });
      const question = conversation?.questions[0];
      if (!conversation || !question) {
        await sleep(this.options.pollIntervalMs); // what a user does after an error: look, then retry
        continue;
      }
      const entry: CreatedConversation = { id: conversation.id, user: this.user, questionIds: [question.id] };
      this.created.push(entry);
      if (!(await this.pollUntilAnswered(conversation.id))) break;
      await this.list();
      if ((this.index + this.loops) % FOLLOWUP_EVERY === 0 && !this.stopped()) {
        const followup = await this.call<WireQuestion>('followup', 'POST', `/${conversation.id}/questions`, {
          conversation_id: conversation.id,
          question: FOLLOWUPS[this.loops % FOLLOWUPS.length],
        });
        if (followup) {
          entry.questionIds.push(followup.id);
          if (!(await this.pollUntilAnswered(conversation.id))) break;
        }
      }
    }
  }

  /** Polls until no question is processing; false when the load ended first. */
  private async pollUntilAnswered(id: number): Promise<boolean> {
    for (;;) {
      await sleep(this.options.pollIntervalMs);
      if (this.stopped()) return false;
      const conversation = await this.call<WireConversation>('poll', 'GET', `/${id}`);
      if (conversation?.questions.every((question) => question.status !== 'processing' && question.status !== 'pending')) {
        return true;
      }
    }
  }

  /** The first page newest first, and on every few listings the next one too. */
  private async list(): Promise<void> {
    const first = `/?page_first=${this.options.pageSize}&sort=-updated_at`;
    const page = await this.call<WireConversation[]>('list', 'GET', first);
    const last = page?.[page.length - 1];
    if (!page || page.length < this.options.pageSize || !last || this.loops % NEXT_PAGE_EVERY !== 0) return;
    await this.call('list', 'GET', `${first}&page_after=${last.id}`);
  }

  private stopped(): boolean {
    return performance.now() >= this.stopAt;
  }

  /** Makes one call and records it; resolves with the body of a 2xx reply, else undefined. */
  private async call<T>(kind: CallKind, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T | undefined> {
    const started = performance.now();
    try {
      const result = await callApi<T>(this.dispatcher, this.options.apiUrl, this.token, method, path, {
        body,
        timeoutMs: this.options.requestTimeoutMs,
      });
      const ms = performance.now() - started;
      if (result.status >= 200 && result.status < 300 && result.json !== undefined) {
        this.samples.push({ kind, ms, status: result.status });
        return result.json;
      }
      this.samples.push({ kind, ms, status: result.status, error: result.text.slice(0, 200) || 'empty body' });
      return undefined;
    } catch (error) {
      this.samples.push({ kind, ms: performance.now() - started, status: 0, error: describeFailure(error) });
      return undefined;
    }
  }
}

function describeFailure(error: unknown): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return 'timeout';
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.message : String(error);
}
