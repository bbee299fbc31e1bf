/**
 * Server-sent events (the `text/event-stream` format) read from a response body, as an MCP server
 * answers a request over Streamable HTTP. The format is read by `eventsource-parser` (line endings,
 * a byte order mark, fields, comments, an event cut off by the end of the stream); this module adds
 * the bounds: the body is read up to `maxBytes`, and one event (with the line being read) up to
 * `maxEventChars` characters, past which reading stops with an error, whatever the server sends.
 * Platform-neutral: the parser and `TextDecoder` run in Node and in a browser alike.
 */
import * as l10n from '@vscode/l10n';
import { createParser, type ParseError } from 'eventsource-parser';

export interface SseEvent {
  /** The event type; `message` when the server named none. */
  event: string;
  data: string;
  /** The last event id the stream set, this event's or an earlier one's. */
  lastEventId: string | undefined;
  /** The reconnection delay the server asked for, in milliseconds, when it did. */
  retryMs: number | undefined;
}

export class SseTooLargeError extends Error {
  constructor(
    readonly maxBytes: number,
    readonly what: 'stream' | 'event' = 'stream',
  ) {
    super(
      what === 'stream'
        ? l10n.t('The server sent more than {0} bytes in one event stream.', maxBytes)
        : l10n.t('The server sent an event of more than {0} characters.', maxBytes),
    );
    this.name = 'SseTooLargeError';
  }
}

/** A longer `retry` than this (in milliseconds, nine digits: about eleven days) is ignored. */
const MAX_RETRY_MS = 999_999_999;

/**
 * Events in the order the server sent them. An event cut off by the end of the stream is dropped,
 * as the format says. A block that sets an id and holds no data is passed on as an event without
 * data, so that a reader that resumes the stream learns the id.
 */
export async function* sseEvents(body: AsyncIterable<Uint8Array | string>, maxBytes: number, maxEventChars = maxBytes): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder('utf-8');
  const ready: SseEvent[] = [];
  let lastEventId: string | undefined;
  let retryMs: number | undefined;
  // The block whose id was just reported: its event, if it has data, follows at once.
  let idOnly = false;
  let overflow = false;
  const flushIdOnly = (): void => {
    if (idOnly) ready.push({ event: 'message', data: '', lastEventId, retryMs });
    idOnly = false;
  };
  const parser = createParser({
    maxBufferSize: maxEventChars,
    onId: (id) => {
      flushIdOnly();
      lastEventId = id;
      idOnly = true;
    },
    onEvent: (message) => {
      // An event that sets no id of its own follows a block that set only one.
      if (message.id === undefined) flushIdOnly();
      idOnly = false;
      ready.push({ event: message.event || 'message', data: message.data, lastEventId, retryMs });
    },
    onRetry: (retry) => {
      if (retry <= MAX_RETRY_MS) retryMs = retry;
    },
    onError: (error: ParseError) => {
      // A malformed retry and unknown fields are ignored, as the format says; only the bound stops reading.
      if (error.type === 'max-buffer-size-exceeded') overflow = true;
    },
  });
  let size = 0;
  for await (const chunk of body) {
    const bytes = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk;
    size += bytes.length;
    if (size > maxBytes) throw new SseTooLargeError(maxBytes);
    parser.feed(decoder.decode(bytes, { stream: true }));
    if (overflow) throw new SseTooLargeError(maxEventChars, 'event');
    // Every callback of this chunk has run: an id reported without an event closed a block of its own.
    flushIdOnly();
    yield* ready.splice(0);
  }
  // What the decoder still holds is part of a line no blank line ends: nothing more to pass on.
}
