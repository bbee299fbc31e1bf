/**
 * Server-sent events (the `text/event-stream` format) read from a response body, as an MCP server
 * answers a request over Streamable HTTP. Only what a client needs: `data` (lines joined), `event`,
 * `id` (the last one seen, for resuming) and `retry`; comments and unknown fields are skipped. The
 * body is read up to a bound, past which reading stops with an error, whatever the server sends.
 */
import * as l10n from '@vscode/l10n';

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
  constructor(readonly maxBytes: number) {
    super(l10n.t('The server sent more than {0} bytes in one event stream.', maxBytes));
    this.name = 'SseTooLargeError';
  }
}

/** Events in the order the server sent them. An event cut off by the end of the stream is dropped, as the format says. */
export async function* sseEvents(body: AsyncIterable<Uint8Array | string>, maxBytes: number): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder('utf-8');
  const lines = new LineSplitter();
  let size = 0;
  let first = true;
  let data: string[] = [];
  let event = '';
  let sawField = false;
  let lastEventId: string | undefined;
  let retryMs: number | undefined;
  for await (const chunk of body) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += bytes.length;
    if (size > maxBytes) throw new SseTooLargeError(maxBytes);
    let text = decoder.decode(bytes, { stream: true });
    if (first && text.length > 0) {
      // A byte order mark may open the stream.
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
    }
    for (const line of lines.push(text)) {
      if (line === '') {
        if (sawField) yield { event: event || 'message', data: data.join('\n'), lastEventId, retryMs };
        data = [];
        event = '';
        sawField = false;
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      switch (field) {
        case 'data':
          data.push(value);
          sawField = true;
          break;
        case 'event':
          event = value;
          sawField = true;
          break;
        case 'id':
          if (!value.includes('\0')) lastEventId = value;
          sawField = true;
          break;
        case 'retry':
          if (/^\d{1,9}$/.test(value)) retryMs = Number(value);
          sawField = true;
          break;
        default:
          break;
      }
    }
  }
}

/**
 * Text cut into lines at CRLF, LF or CR, whatever the pieces it arrives in. Each piece is scanned
 * once and a line's pieces joined once, so a long line sent in many chunks costs no more than a
 * short one per byte.
 */
class LineSplitter {
  private parts: string[] = [];
  /** The last piece ended with a CR: an LF opening the next one belongs to it. */
  private afterCR = false;

  push(text: string): string[] {
    const lines: string[] = [];
    let at = 0;
    if (this.afterCR && text.length > 0) {
      if (text.charCodeAt(0) === 0x0a) at = 1;
      this.afterCR = false;
    }
    const ends = /[\r\n]/g;
    while (at < text.length) {
      ends.lastIndex = at;
      const end = ends.exec(text);
      if (!end) {
        this.parts.push(text.slice(at));
        break;
      }
      this.parts.push(text.slice(at, end.index));
      lines.push(this.parts.join(''));
      this.parts = [];
      at = end.index + 1;
      if (end[0] === '\r') {
        if (at === text.length) this.afterCR = true;
        else if (text.charCodeAt(at) === 0x0a) at++;
      }
    }
    return lines;
  }
}
