/**
 * A model on any OpenAI-compatible server (Ollama, LM Studio, llama.cpp, vLLM, a hosted API),
 * through the official `openai` client: its streaming and its assembly of tool calls, not ours.
 * A bundle of its own (`dist/openaiModel.js`), loaded only when the CLI is given `--model-url`.
 * The key is held here and sent only to the server; no message of this module contains it.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { ModelMessage, ModelTool, ModelTurn, ModelTurnRequest } from '../../contract/modelWire';
import { ModelError, type ChatModel } from './chatModel';

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

export function createOpenAiModel(options: OpenAiModelOptions): ChatModel {
  const client = new OpenAI({
    baseURL: options.baseUrl,
    apiKey: options.apiKey ?? NO_KEY,
    // A turn is a POST that costs the user tokens: never sent twice on its own.
    maxRetries: 0,
    timeout: options.turnTimeoutMs ?? DEFAULT_TURN_TIMEOUT_MS,
  });
  const where = `${options.model} at ${options.baseUrl}`;
  return {
    label: where,
    async turn(request: ModelTurnRequest, signal: AbortSignal): Promise<ModelTurn> {
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
        const completion = await stream.finalChatCompletion();
        const message = completion.choices[0]?.message;
        const text = typeof message?.content === 'string' ? message.content : '';
        const toolCalls = (message?.tool_calls ?? []).flatMap((call, index) =>
          call.type === 'function' ? [{ id: call.id || `call_${index}`, name: call.function.name, arguments: call.function.arguments || '{}' }] : [],
        );
        const usage = completion.usage;
        return {
          text,
          toolCalls,
          usage: usage
            ? { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens }
            : // A server that reports no usage: estimated from the text (about four characters a token).
              {
                inputTokens: Math.ceil(JSON.stringify(request.messages).length / 4),
                outputTokens: Math.ceil((text.length + JSON.stringify(toolCalls).length) / 4),
              },
        };
      } catch (error) {
        if (signal.aborted) throw signal.reason ?? error;
        throw explain(error, where, options.keySource);
      }
    },
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

/** The client's error as what happened and what to do, naming the server (never the key). */
function explain(error: unknown, where: string, keySource: string | undefined): ModelError {
  if (error instanceof APIConnectionTimeoutError)
    return new ModelError(`${where} did not answer in time: a smaller model, or a longer --model-timeout, may help.`);
  if (error instanceof APIUserAbortError) return new ModelError(`The request to ${where} was stopped.`);
  if (error instanceof APIConnectionError)
    return new ModelError(
      `Could not reach ${where}: is the server running, and is --model-url its OpenAI-compatible base URL (such as http://127.0.0.1:11434/v1)?`,
    );
  if (error instanceof APIError) {
    const detail = typeof error.message === 'string' ? ` (${error.message.replace(/\s+/g, ' ').slice(0, 300)})` : '';
    switch (error.status) {
      case 401:
      case 403:
        return new ModelError(
          `${where} refused the key${detail}: check the key ${keySource ? `in ${keySource}` : '(none was given: set --model-key-env or --model-key-file)'}.`,
        );
      case 404:
        return new ModelError(`${where} does not know this model${detail}: check --model (for Ollama, a name \`ollama list\` shows).`);
      case 429:
        return new ModelError(`${where} is rate-limiting requests${detail}: ask again later.`);
      default:
        return new ModelError(`${where} answered with an error${error.status ? ` ${error.status}` : ''}${detail}.`);
    }
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ModelError(`${where} sent a reply the engine could not read (${message.slice(0, 300)}).`);
}
