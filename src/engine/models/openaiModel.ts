/**
 * A model on any OpenAI-compatible server (Ollama, LM Studio, llama.cpp, vLLM, a hosted API),
 * through the official `openai` client: its streaming and its assembly of tool calls, not ours.
 * A bundle of its own (`dist/openaiModel.js`), loaded only when the CLI is given `--model-url`.
 *
 * What it promises against a server that misbehaves:
 * - the key is sent only to the server, in its `Authorization` header: every text this module hands
 *   on (the reply, its calls, an error's words) is scrubbed of it and of echoed credentials;
 * - a reply is bounded (its bytes, its text, its calls) and a turn is never sent twice on its own;
 * - every failure is a `ModelError` of a kind (`modelFailure.ts`), named by the server's address.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { ModelMessage, ModelTool, ModelTurn, ModelTurnRequest } from '../../contract/modelWire';
import type { ChatModel } from './chatModel';
import { ModelError, type ModelFailureKind, type ModelFailureWords } from './modelFailure';
import { secretScrubber, type Scrubber } from './secrets';

export interface OpenAiModelOptions {
  /** The server's base URL, as the server documents it (`http://127.0.0.1:11434/v1` for Ollama). */
  baseUrl: string;
  model: string;
  /** Where the key came from ("$OPENAI_API_KEY", "the file …"), for messages; never the key. */
  keySource?: string;
  apiKey?: string;
  /** One turn at most, in milliseconds (the investigation's own limit also applies). */
  turnTimeoutMs?: number;
}

/** Servers that need no key (most local ones) still get a header the client insists on. */
const NO_KEY = 'no-key';
const DEFAULT_TURN_TIMEOUT_MS = 180_000;
/** The text and tool arguments of one reply, at most (as VS Code's models are bounded by the host). */
export const MAX_REPLY_CHARS = 512 * 1024;
export const MAX_REPLY_TOOL_CALLS = 64;
/** The bytes of one reply on the wire (an event stream repeats its envelope for every few characters). */
export const MAX_REPLY_BYTES = 16 * 1024 * 1024;
/** A server's own words about a failure, at most. */
const MAX_DETAIL_CHARS = 200;

export function createOpenAiModel(options: OpenAiModelOptions): ChatModel {
  const scrub = secretScrubber(options.apiKey);
  const base = new URL(options.baseUrl);
  const subject = `The model server at ${base.host}`;
  return {
    // The address without its query: whatever a query holds is not for answers or logs.
    label: `${options.model} at ${base.origin}${base.pathname.replace(/\/+$/, '')}`,
    async turn(request: ModelTurnRequest, signal: AbortSignal): Promise<ModelTurn> {
      const wire: WireState = { bytes: 0 };
      const client = new OpenAI({
        baseURL: options.baseUrl,
        apiKey: options.apiKey ?? NO_KEY,
        // A turn is a POST that costs the user tokens: never sent twice on its own.
        maxRetries: 0,
        timeout: options.turnTimeoutMs ?? DEFAULT_TURN_TIMEOUT_MS,
        // The client's own log would carry requests and server replies where this module cannot scrub them.
        logLevel: 'off',
        fetch: boundedFetch(wire),
      });
      try {
        const stream = client.chat.completions.stream(
          {
            model: options.model,
            messages: toMessages(request),
            ...(request.tools.length > 0 ? { tools: request.tools.map(toTool) } : {}),
            max_tokens: request.maxOutputTokens,
            stream_options: { include_usage: true },
          },
          { signal },
        );
        let chars = 0;
        stream.on('chunk', (chunk) => {
          for (const choice of chunk.choices ?? []) {
            chars += typeof choice.delta?.content === 'string' ? choice.delta.content.length : 0;
            for (const call of choice.delta?.tool_calls ?? []) {
              chars += (call.function?.arguments?.length ?? 0) + (call.function?.name?.length ?? 0);
              if (call.index >= MAX_REPLY_TOOL_CALLS) wire.tooLarge ??= `more than ${MAX_REPLY_TOOL_CALLS} tool calls`;
            }
          }
          if (chars > MAX_REPLY_CHARS) wire.tooLarge ??= `more than ${MAX_REPLY_CHARS / 1024} KB of text`;
          if (wire.tooLarge) stream.abort();
        });
        const completion = await stream.finalChatCompletion();
        const message = completion.choices[0]?.message;
        const text = scrub.reply(typeof message?.content === 'string' ? message.content : '');
        const toolCalls = (message?.tool_calls ?? []).flatMap((call, index) =>
          call.type === 'function'
            ? [{ id: call.id || `call_${index}`, name: scrub.reply(call.function.name), arguments: scrub.reply(call.function.arguments || '{}') }]
            : [],
        );
        const usage = completion.usage;
        return {
          text,
          toolCalls,
          usage: usage
            ? { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens }
            : // A server that reports no usage: estimated from all it was sent (the instructions and
              // tool schemas too) and all it wrote, at about four characters a token.
              {
                inputTokens: Math.ceil((request.instructions.length + JSON.stringify(request.messages).length + JSON.stringify(request.tools).length) / 4),
                outputTokens: Math.ceil((text.length + JSON.stringify(toolCalls).length) / 4),
              },
        };
      } catch (error) {
        if (signal.aborted) throw signal.reason ?? error;
        throw explain(
          error,
          wire,
          { subject, model: options.model, keySource: options.keySource, timeoutMs: options.turnTimeoutMs ?? DEFAULT_TURN_TIMEOUT_MS },
          scrub,
        );
      }
    },
  };
}

/** What the wire showed of one reply, for the words of its failure. */
interface WireState {
  bytes: number;
  /** The reply's type, when it is not an event stream or JSON (an HTML page). */
  unexpectedType?: string;
  /** Why the reply was cut off, when it went past a bound. */
  tooLarge?: string;
}

/** `fetch` with the reply's bytes counted and cut off past `MAX_REPLY_BYTES`. */
function boundedFetch(wire: WireState): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    const response = await fetch(input, init);
    const type = response.headers.get('content-type') ?? '';
    if (response.ok && !/^\s*(text\/event-stream|application\/(?:[\w.+-]*\+)?json)\b/i.test(type))
      wire.unexpectedType = type.split(';')[0]?.trim() || 'no type';
    if (!response.body) return response;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          wire.bytes += chunk.byteLength;
          if (wire.bytes > MAX_REPLY_BYTES) {
            wire.tooLarge ??= `more than ${MAX_REPLY_BYTES / (1024 * 1024)} MB`;
            controller.error(new Error('the reply went past its bound'));
            return;
          }
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

function toMessages(request: ModelTurnRequest): ChatCompletionMessageParam[] {
  return [{ role: 'system', content: request.instructions }, ...request.messages.map(toMessage)];
}

function toMessage(message: ModelMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: message.text };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.text || null,
        ...(message.toolCalls.length > 0
          ? {
              tool_calls: message.toolCalls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: call.name, arguments: call.arguments },
              })),
            }
          : {}),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.callId, content: message.text };
  }
}

function toTool(tool: ModelTool): ChatCompletionTool {
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } };
}

interface Naming {
  subject: string;
  model: string;
  keySource: string | undefined;
  timeoutMs: number;
}

/** The client's error as a failure of a kind: what happened and what to do, naming the server (never the key). */
function explain(error: unknown, wire: WireState, naming: Naming, scrub: Scrubber): ModelError {
  const failure = (kind: ModelFailureKind, words: Omit<ModelFailureWords, 'subject'>): ModelError =>
    new ModelError(kind, { subject: naming.subject, ...words });
  if (wire.tooLarge)
    return failure('reply-too-large', {
      what: `sent a reply of ${wire.tooLarge}, which was cut off`,
      advice: 'a model that writes less, or another server, may help',
    });
  if (error instanceof APIConnectionTimeoutError)
    return failure('no-answer', {
      what: `sent no answer in ${Math.round(naming.timeoutMs / 1000)} s`,
      advice: 'a smaller model, or a longer --model-timeout, may help',
    });
  if (error instanceof APIError && error.status !== undefined) {
    const detail = serverWords(error, scrub);
    const words = { ...(detail ? { detail } : {}) };
    switch (error.status) {
      case 401:
      case 403:
        return failure('key-refused', {
          what: `refused the key (${error.status})`,
          ...words,
          advice: naming.keySource ? `check ${naming.keySource}` : 'none was given: set --model-key-env or --model-key-file',
        });
      case 404:
        return failure('unknown-model', {
          what: `does not know the model ${JSON.stringify(naming.model.slice(0, 80))} (404)`,
          ...words,
          advice: 'check --model (for Ollama, a name `ollama list` shows) and that --model-url ends where the server documents it (such as /v1)',
        });
      case 429:
        return failure('rate-limited', { what: 'is rate-limiting requests or out of quota (429)', ...words, advice: 'ask again later' });
      default:
        return failure('server-error', { what: `answered ${error.status}`, ...words });
    }
  }
  if (wire.unexpectedType)
    return failure('unreadable-reply', {
      what: `sent ${wire.unexpectedType}, not a chat completion`,
      advice: 'check that --model-url is its OpenAI-compatible base URL (such as http://127.0.0.1:11434/v1)',
    });
  const codes = causeCodes(error);
  if (codes.some((code) => ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'].includes(code)))
    return failure('not-running', {
      what: codes.includes('ECONNREFUSED') ? 'is not running (nothing accepts connections there)' : 'cannot be reached',
      advice: 'start it, or check --model-url',
    });
  if (error instanceof APIConnectionError || codes.some((code) => ['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET'].includes(code)))
    return failure('unreadable-reply', { what: 'closed the connection before its reply was complete', advice: 'check the server’s log' });
  if (error instanceof APIUserAbortError) return failure('unreadable-reply', { what: 'stopped sending its reply' });
  const message = error instanceof Error ? error.message : String(error);
  if (/missing finish_reason|ended without sending any chunks/i.test(message))
    return failure('unreadable-reply', { what: 'stopped in the middle of its reply', advice: 'check the server’s log' });
  return failure('unreadable-reply', { what: 'sent a reply the engine could not read', detail: bounded(scrub.failure(message)) });
}

/** The server's message (the error body's `message`, else the client's summary), bounded and scrubbed. */
function serverWords(error: { error: unknown; message: string }, scrub: Scrubber): string {
  const body = error.error as { message?: unknown } | undefined;
  const said = typeof body?.message === 'string' ? body.message : error.message.replace(/^\d{3}\s*/, '');
  if (/status code \(no body\)/.test(said)) return '';
  return bounded(scrub.failure(said));
}

function bounded(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_DETAIL_CHARS ? `${flat.slice(0, MAX_DETAIL_CHARS)}…` : flat;
}

/** The `code` of an error and of its causes (a connection failure wraps the socket's). */
function causeCodes(error: unknown): string[] {
  const codes: string[] = [];
  let at: unknown = error;
  for (let depth = 0; depth < 5 && typeof at === 'object' && at !== null; depth++) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    at = (at as { cause?: unknown }).cause;
  }
  return codes;
}
