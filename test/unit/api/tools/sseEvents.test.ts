/** Server-sent events read from a body however its bytes are cut, within a bound. */
import assert from 'node:assert/strict';
import { sseEvents, SseTooLargeError, type SseEvent } from '../../../../src/api/tools/sseEvents';
import { describeGrowth, growthFrom } from '../../../support/growth';

async function* chunks(parts: Array<string | Uint8Array>): AsyncGenerator<Uint8Array | string> {
  for (const part of parts) yield part;
}

async function read(parts: Array<string | Uint8Array>, maxBytes = 1 << 20, maxEventChars?: number): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const event of sseEvents(chunks(parts), maxBytes, maxEventChars)) events.push(event);
  return events;
}

/** The bytes of `text` one at a time: every cut a network can make, inside a character included. */
function byteByByte(text: string): Uint8Array[] {
  return [...Buffer.from(text, 'utf8')].map((byte) => Uint8Array.of(byte));
}

describe('server-sent events', function () {
  const stream =
    '\uFEFF: a comment\r\nevent: message\r\nid: 7\r\nretry: 250\r\ndata: {"a":\r\ndata: "é→😀"}\r\n\r\nevent: other\ndata: x\n\nid: 8\rdata:no space\r\r: keepalive\n\ndata: cut off at the end';

  it('reads data lines, event types, ids and retry, with any line ending, and drops an event the stream cuts off', async function () {
    const expected: SseEvent[] = [
      { event: 'message', data: '{"a":\n"é→😀"}', lastEventId: '7', retryMs: 250 },
      { event: 'other', data: 'x', lastEventId: '7', retryMs: 250 },
      { event: 'message', data: 'no space', lastEventId: '8', retryMs: 250 },
    ];
    assert.deepEqual(await read([stream]), expected);
    assert.deepEqual(await read(byteByByte(stream)), expected, 'the same, a byte at a time');
    // A CR ending one chunk and the LF opening the next are one line end, not two.
    assert.deepEqual(await read(['data: a\r', '\n\r', '\ndata: b\r\n\r\n']), [
      { event: 'message', data: 'a', lastEventId: undefined, retryMs: undefined },
      { event: 'message', data: 'b', lastEventId: undefined, retryMs: undefined },
    ]);
  });

  it('passes on an event with an id and no data (a priming event), and ignores a malformed retry', async function () {
    assert.deepEqual(await read(['id: p1\nretry: soon\ndata: \n\n']), [{ event: 'message', data: '', lastEventId: 'p1', retryMs: undefined }]);
  });

  it('passes on a block that only sets an id, so that a reader can resume from it', async function () {
    const stream = 'id: 5\n\ndata: x\n\nid: 6\n\n';
    const expected: SseEvent[] = [
      { event: 'message', data: '', lastEventId: '5', retryMs: undefined },
      { event: 'message', data: 'x', lastEventId: '5', retryMs: undefined },
      { event: 'message', data: '', lastEventId: '6', retryMs: undefined },
    ];
    assert.deepEqual(await read([stream]), expected);
    assert.deepEqual(await read(byteByByte(stream)), expected, 'the same, a byte at a time');
  });

  it('stops at an event, or a line, longer than the bound of one event', async function () {
    const isEventBound = (error: unknown) => error instanceof SseTooLargeError && error.what === 'event' && /more than 300 characters/.test(error.message);
    const line = `data: ${'x'.repeat(200)}\n`;
    await assert.rejects(read([line, line, '\n'], 10_000, 300), isEventBound, 'two data lines of one event');
    await assert.rejects(read(byteByByte(`data: ${'y'.repeat(400)}`), 10_000, 300), isEventBound, 'a line that never ends');
    assert.equal((await read([line, '\n', line, '\n'], 10_000, 300)).length, 2, 'events within the bound, one after the other');
  });

  it('stops reading past its bound', async function () {
    const big = `data: ${'x'.repeat(2_000)}\n\n`;
    await assert.rejects(read([big, big], 3_000), (error: unknown) => error instanceof SseTooLargeError && /more than 3000 bytes/.test(error.message));
    assert.equal((await read([big], 3_000)).length, 1);
  });

  it('reads a long line sent in many small chunks in linear time', async function () {
    const lineOf = (length: number) => `data: ${'y'.repeat(length)}\n\n`.match(/[\s\S]{1,1000}/g) ?? [];
    const [event] = await read(lineOf(4_000_000), 8_000_000);
    assert.equal(event?.data.length, 4_000_000);
    // Each chunk scanned once: 16 times the line, about 16 times the time; joined at every chunk,
    // 256. Sizes 16 apart keep the verdict clear of a busy machine's noise on the small run.
    const n = 400_000;
    const lines = new Map([n, 16 * n].map((length) => [length, lineOf(length)]));
    const growth = await growthFrom(n, (length) => read(lines.get(length) ?? [], 8_000_000), 5, 16);
    assert.ok(growth.factor < 64, describeGrowth(growth, n));
  });
});
