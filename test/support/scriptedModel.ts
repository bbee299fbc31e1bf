/**
 * A scripted OpenAI-compatible model server on 127.0.0.1, for tests and the bench: it speaks the
 * chat-completions API over real HTTP (streamed as server-sent events, tool calls in pieces, usage
 * at the end, as Ollama and OpenAI send them), and answers each request with the next reply of its
 * script. A stand-in for a model, which cannot run on this machine: everything on the engine's side
 * of the HTTP connection is real.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedToolCall {
  name: string;
  /** Sent as JSON text, or as is when a string (invalid JSON on purpose). */
  arguments: unknown;
}

export interface ScriptedReply {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /** Tokens reported; default: computed from the text sizes. Null: no usage chunk (as some servers). */
  usage?: { prompt: number; completion: number } | null;
  /** Waits this long before the first byte. */
  delayMs?: number;
  /** An HTTP error instead of a reply, with this JSON body. */
  status?: number;
  error?: string;
  /** The error's message repeats the request's Authorization header (as some proxies and gateways do). */
  echoAuthorization?: boolean;
  /** Misbehaviour instead of a reply (see `Fault`). */
  fault?: Fault;
}

/**
 * What a misbehaving server does:
 * - `cut`: starts the reply, then closes the connection mid-stream;
 * - `malformed`: an event stream whose events are not JSON;
 * - `html`: status 200 with an HTML page (a login portal, a proxy's error page);
 * - `never-ends`: starts the reply, then sends nothing more and keeps the connection open;
 * - `flood`: text as fast as the connection takes it (bounded at `FLOOD_LIMIT_BYTES`, so that a client
 *   without bounds fails its test rather than the machine);
 * - `flood-line`: bytes of one endless line, no event ever complete (bounded the same way).
 */
export type Fault = 'cut' | 'malformed' | 'html' | 'never-ends' | 'flood' | 'flood-line';

/** What a flood sends at most before it ends by itself. */
export const FLOOD_LIMIT_BYTES = 64 * 1024 * 1024;

/** The chat-completions request as the engine sent it (the parts the tests read). */
export interface SeenRequest {
  authorization: string | undefined;
  body: {
    model: string;
    stream?: boolean;
    messages: Array<{
      role: string;
      content?: string | null;
      tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
      tool_call_id?: string;
    }>;
    tools?: Array<{ function: { name: string; description: string } }>;
    max_tokens?: number;
  };
}

export interface ScriptedModelServer {
  /** The OpenAI-compatible base URL (`…/v1`). */
  baseUrl: string;
  requests: SeenRequest[];
  /** Requests whose connection the client closed before the reply was sent (a cancelled turn). */
  dropped(): number;
  /** Bytes of floods sent, and floods the client stopped (closed the connection) before their bound. */
  flooded(): { bytes: number; stopped: number };
  close(): Promise<void>;
}

/** `next(request, index)` gives the reply to each request; the last reply repeats when it returns undefined. */
export async function startScriptedModel(next: ScriptedReply[] | ((request: SeenRequest, index: number) => ScriptedReply)): Promise<ScriptedModelServer> {
  const requests: SeenRequest[] = [];
  let dropped = 0;
  const floods = { bytes: 0, stopped: 0 };
  const pick = (request: SeenRequest, index: number): ScriptedReply =>
    Array.isArray(next) ? (next[Math.min(index, next.length - 1)] ?? { text: '' }) : next(request, index);
  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500);
      response.end(String(error));
    });
  });
  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
      response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${request.url}` } }));
      return;
    }
    const seen: SeenRequest = { authorization: request.headers.authorization, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as SeenRequest['body'] };
    requests.push(seen);
    const reply = pick(seen, requests.length - 1);
    if (reply.delayMs) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, reply.delayMs);
        response.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      if (response.destroyed) {
        dropped++;
        return;
      }
    }
    if (reply.status) {
      const said = reply.error ?? 'scripted error';
      const message = reply.echoAuthorization ? `${said}; request headers: Authorization: ${seen.authorization ?? '(none)'}` : said;
      response.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message, type: 'scripted' } }));
      return;
    }
    if (reply.fault === 'html') {
      response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html><body><h1>Sign in to continue</h1></body></html>');
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (data: unknown): void => {
      response.write(`data: ${JSON.stringify(data)}\n\n`);
    };
    const base = { id: `chatcmpl-${requests.length}`, object: 'chat.completion.chunk', created: 1_700_000_000, model: seen.body.model };
    send({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
    switch (reply.fault) {
      case 'cut':
        send({ ...base, choices: [{ index: 0, delta: { content: 'The answer begins and then' }, finish_reason: null }] });
        response.destroy();
        return;
      case 'malformed':
        response.end('data: {"choices": [this is not JSON\n\ndata: [DONE]\n\n');
        return;
      case 'never-ends':
        send({ ...base, choices: [{ index: 0, delta: { content: 'Thinking' }, finish_reason: null }] });
        await new Promise<void>((resolve) => response.once('close', resolve));
        return;
      case 'flood':
      case 'flood-line':
        await flood(
          response,
          reply.fault === 'flood'
            ? (piece) => `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] })}\n\n`
            : (piece) => piece,
          floods,
        );
        return;
      default:
        break;
    }
    // The text in a few pieces, as a model streams it.
    const text = reply.text ?? '';
    for (let at = 0; at < text.length; at += 40) send({ ...base, choices: [{ index: 0, delta: { content: text.slice(at, at + 40) }, finish_reason: null }] });
    for (const [index, call] of (reply.toolCalls ?? []).entries()) {
      const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
      send({
        ...base,
        choices: [
          {
            index: 0,
            delta: { tool_calls: [{ index, id: `call_${requests.length}_${index}`, type: 'function', function: { name: call.name, arguments: '' } }] },
            finish_reason: null,
          },
        ],
      });
      // The arguments in two pieces: the client must put them together.
      const half = Math.floor(args.length / 2);
      for (const piece of [args.slice(0, half), args.slice(half)])
        send({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index, function: { arguments: piece } }] }, finish_reason: null }] });
    }
    send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: reply.toolCalls?.length ? 'tool_calls' : 'stop' }] });
    if (reply.usage !== null) {
      const prompt = reply.usage?.prompt ?? Math.ceil(JSON.stringify(seen.body.messages).length / 4);
      const completion = reply.usage?.completion ?? Math.ceil((text.length + JSON.stringify(reply.toolCalls ?? []).length) / 4);
      send({ ...base, choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } });
    }
    response.end('data: [DONE]\n\n');
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    dropped: () => dropped,
    flooded: () => ({ ...floods }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes as fast as the client reads, until it closes the connection or `FLOOD_LIMIT_BYTES` are sent. */
async function flood(response: ServerResponse, frame: (piece: string) => string, floods: { bytes: number; stopped: number }): Promise<void> {
  const piece = 'flood '.repeat(1_000);
  let closed = false;
  const close = new Promise<void>((resolve) =>
    response.once('close', () => {
      closed = true;
      resolve();
    }),
  );
  let sent = 0;
  while (!closed && sent < FLOOD_LIMIT_BYTES) {
    const chunk = frame(piece);
    sent += chunk.length;
    floods.bytes += chunk.length;
    if (!response.write(chunk)) await Promise.race([close, new Promise<void>((resolve) => response.once('drain', resolve))]);
  }
  if (closed) floods.stopped++;
  response.end();
}
