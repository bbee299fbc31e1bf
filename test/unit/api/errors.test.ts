import assert from 'node:assert/strict';
import { DeepSearchError, describeErrorBody, errorFromStatus, isRetryable, networkError, parseRetryAfter, redact, timeoutError } from '../../../src/api/errors';

const ORIGIN = 'https://sourcegraph.example.com';
const TOKEN = 'sgp_0123456789abcdef0123456789abcdef01234567';

describe('errors', () => {
  describe('message per HTTP status', () => {
    const cases: Array<[number, DeepSearchError['kind'], RegExp]> = [
      [400, 'badRequest', /rejected the request \(HTTP 400\)/],
      [401, 'unauthorized', /rejected the access token — sign in again/],
      [403, 'forbidden', /refused this request \(HTTP 403\)/],
      [404, 'notFound', /Not found on the instance \(HTTP 404\)/],
      [409, 'conflict', /HTTP 409/],
      [422, 'badRequest', /HTTP 422/],
      [429, 'rateLimited', /rate limiting/],
      [500, 'server', /internal error \(HTTP 500\).*try again/],
      [502, 'server', /internal error \(HTTP 502\).*try again/],
      [503, 'server', /HTTP 503/],
    ];
    for (const [status, kind, message] of cases) {
      it(`turns HTTP ${status} into kind ${kind} with an actionable message`, () => {
        const error = errorFromStatus({ status, origin: ORIGIN });
        assert.equal(error.kind, kind);
        assert.equal(error.status, status);
        assert.match(error.message, message);
      });
    }

    it("reads a Connect error body (7.x API) by its code, with the server's message and what to do", () => {
      const cases: Array<[number, string, DeepSearchError['kind'], RegExp]> = [
        [401, 'unauthenticated', 'unauthorized', /sign in again/],
        [403, 'permission_denied', 'forbidden', /permission or scope .*externalapi:read/],
        [404, 'not_found', 'notFound', /deleted/],
        [400, 'failed_precondition', 'conflict', /current state/],
        [400, 'invalid_argument', 'badRequest', /rejected the request/],
        [429, 'resource_exhausted', 'rateLimited', /quota, a rate limit or storage/],
        [404, 'unimplemented', 'unsupported', /does not offer this/],
        [500, 'internal', 'server', /internal error \(HTTP 500, internal\)/],
      ];
      for (const [status, code, kind, lead] of cases) {
        const error = errorFromStatus({ status, origin: ORIGIN, body: JSON.stringify({ code, message: `said for ${code}` }), contentType: 'application/json' });
        assert.equal(error.kind, kind, code);
        assert.match(error.message, lead, code);
        assert.match(error.message, new RegExp(`The server said: said for ${code}$`), code);
      }
      const legacyWithCode = errorFromStatus({ status: 409, origin: ORIGIN, body: JSON.stringify({ code: 'busy', error: 'Still answering' }) });
      assert.equal(legacyWithCode.kind, 'conflict', "a code that is not Connect's leaves the status to decide");
    });

    it('says where a redirect goes without echoing its path', () => {
      const error = errorFromStatus({ status: 302, origin: 'http://sourcegraph.example.com', location: 'https://sourcegraph.example.com/sign-in?returnTo=x' });
      assert.equal(error.kind, 'invalidResponse');
      assert.match(error.message, /redirected .* to https:\/\/sourcegraph\.example\.com — use that address/);
      assert.doesNotMatch(error.message, /sign-in/);
    });

    it("turns HTTP 507 with a message into an insufficient-storage error that is the server's own message, not an internal error", () => {
      const said =
        "The engine's data folder has no space left (its disk, or your disk quota there, is full): the conversation was not created, and nothing was saved for this request. Free space on that disk, then ask again.";
      const error = errorFromStatus({ status: 507, origin: ORIGIN, body: JSON.stringify({ error: said }), contentType: 'application/json' });
      assert.equal(error.kind, 'insufficientStorage');
      assert.equal(error.status, 507);
      assert.equal(error.message, said);
      assert.equal(error.detail, said);
      assert.equal(isRetryable(error), false, 'space does not come back by itself in a moment');
    });

    it('says plainly that nothing was saved for an HTTP 507 without a message, or with only its status line', () => {
      const bodies: Array<[string | undefined, string | undefined]> = [
        [undefined, undefined],
        ['', 'text/plain'],
        ['Insufficient Storage', 'text/plain'],
        [
          '<html><head><title>507 Insufficient Storage</title></head><body><center><h1>507 Insufficient Storage</h1></center><hr><center>nginx</center></body></html>',
          'text/html',
        ],
      ];
      for (const [body, contentType] of bodies) {
        const error = errorFromStatus({ status: 507, origin: ORIGIN, body, contentType });
        assert.equal(error.kind, 'insufficientStorage', `body ${String(body)}`);
        assert.equal(
          error.message,
          'The instance has no storage space left: nothing was saved (HTTP 507). Free space on it (or ask its administrator to), then try again.',
        );
        assert.doesNotMatch(error.message, /internal error|may not have/);
      }
    });

    it('honours Retry-After in the rate-limit message', () => {
      const error = errorFromStatus({ status: 429, origin: ORIGIN, retryAfterMs: 30_000 });
      assert.match(error.message, /try again in 30 s/);
      assert.equal(error.retryAfterMs, 30_000);
    });
  });

  describe('detail from the body', () => {
    it('takes {error} from JSON', () => {
      const error = errorFromStatus({ status: 400, origin: ORIGIN, body: '{"error":"question must not be empty"}', contentType: 'application/json' });
      assert.equal(error.detail, 'question must not be empty');
      assert.match(error.message, /The server said: question must not be empty/);
    });

    it('takes {message} from JSON', () => {
      assert.equal(describeErrorBody('{"message":"conversation not found"}', 'application/json'), 'conversation not found');
    });

    it('joins {errors: [{message}]} from JSON', () => {
      assert.equal(describeErrorBody('{"errors":[{"message":"first"},{"message":"second"}]}', 'application/json; charset=utf-8'), 'first; second');
    });

    it('reads JSON even when the content type is missing', () => {
      assert.equal(describeErrorBody('{"error":"quota exceeded"}'), 'quota exceeded');
    });

    it('collapses plain text', () => {
      assert.equal(describeErrorBody('  upstream\n  connect error \n', 'text/plain'), 'upstream connect error');
    });

    it('takes the title and the text of an HTML page, without tags, scripts or entities', () => {
      const html = `<!DOCTYPE html><html><head><title>502 Bad Gateway</title><style>body{color:red}</style></head>
        <body><script>var x = 1;</script><center><h1>502 Bad Gateway</h1></center><hr><center>nginx &amp; friends</center></body></html>`;
      const error = errorFromStatus({ status: 502, origin: ORIGIN, body: html, contentType: 'text/html' });
      assert.equal(error.kind, 'server');
      assert.equal(error.detail, '502 Bad Gateway nginx & friends');
      assert.doesNotMatch(error.message, /<|var x|color:red/);
    });

    it('puts the title before body text that does not start with it', () => {
      const html = '<html><head><title>Access denied</title></head><body><p>Blocked by policy 7</p></body></html>';
      assert.equal(describeErrorBody(html, 'text/html'), 'Access denied: Blocked by policy 7');
    });

    it('caps long details', () => {
      const detail = describeErrorBody('x'.repeat(5000), 'text/plain')!;
      assert.ok(detail.length <= 300);
      assert.ok(detail.endsWith('…'));
    });

    it('has no detail for an empty body', () => {
      const error = errorFromStatus({ status: 401, origin: ORIGIN, body: '  ' });
      assert.equal(error.detail, undefined);
      assert.equal(error.message, 'The instance rejected the access token — sign in again.');
    });

    for (const [status, kind] of [
      [401, 'unauthorized'],
      [403, 'forbidden'],
      [404, 'notFound'],
      [429, 'rateLimited'],
      [500, 'server'],
    ] as const) {
      it(`adds JSON, text and HTML details to ${kind} messages`, () => {
        const bodies: Array<[string, string]> = [
          ['{"error":"detail from json"}', 'application/json'],
          ['detail from text', 'text/plain'],
          ['<html><head><title>detail from html</title></head><body></body></html>', 'text/html'],
        ];
        for (const [body, contentType] of bodies) {
          const error = errorFromStatus({ status, origin: ORIGIN, body, contentType });
          assert.equal(error.kind, kind);
          assert.match(error.message, /The server said: detail from (json|text|html)$/);
        }
      });
    }
  });

  describe('secrets', () => {
    it('redacts the token when a server echoes it in a JSON body', () => {
      const body = JSON.stringify({ error: `invalid token ${TOKEN} for user alice` });
      const error = errorFromStatus({ status: 401, origin: ORIGIN, body, contentType: 'application/json', secrets: [TOKEN] });
      assert.ok(!error.message.includes(TOKEN));
      assert.ok(!error.detail!.includes(TOKEN));
      assert.match(error.detail!, /invalid token \[redacted\] for user alice/);
    });

    it('redacts the token in HTML and percent-encoded forms', () => {
      const secret = 'my secret/token+value';
      const html = `<html><body>Bad header: ${secret} (${encodeURIComponent(secret)})</body></html>`;
      const error = errorFromStatus({ status: 400, origin: ORIGIN, body: html, contentType: 'text/html', secrets: [secret] });
      assert.ok(!error.message.includes(secret));
      assert.ok(!error.message.includes(encodeURIComponent(secret)));
    });

    it('redacts anything shaped like an access token even if it is not ours', () => {
      assert.equal(redact('Authorization: token sgp_abcdefabcdef1234567890'), 'Authorization: token [redacted]');
      assert.equal(redact('Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig'), 'Authorization: Bearer [redacted]');
    });

    it('redacts the token from the message and cause of a network error', () => {
      const cause = Object.assign(new Error(`connect failed for ${TOKEN}`), { code: 'ECONNREFUSED' });
      const error = networkError(cause, ORIGIN, [TOKEN]);
      assert.equal(error.kind, 'network');
      assert.equal(error.code, 'ECONNREFUSED');
      assert.ok(!error.message.includes(TOKEN));
      assert.ok(!String((error.cause as Error).message).includes(TOKEN));
      assert.match(error.message, /Could not reach https:\/\/sourcegraph\.example\.com — check the instance URL, your network or proxy settings/);
    });
  });

  describe('network, TLS and timeouts', () => {
    it('names a certificate problem and does not retry it', () => {
      const cause = Object.assign(new Error('self-signed certificate'), { code: 'SELF_SIGNED_CERT_IN_CHAIN' });
      const error = networkError(cause, ORIGIN);
      assert.match(error.message, /TLS certificate .* could not be verified \(SELF_SIGNED_CERT_IN_CHAIN\)/);
      assert.equal(isRetryable(error), false);
    });

    it('finds the code of a socket error nested inside undici errors', () => {
      const inner = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
      const outer = Object.assign(new Error('other side closed', { cause: inner }), { code: 'UND_ERR_SOCKET' });
      assert.equal(networkError(outer, ORIGIN).code, 'ECONNRESET');
    });

    it('says how long it waited in a timeout', () => {
      const error = timeoutError(ORIGIN, 30_000);
      assert.equal(error.kind, 'timeout');
      assert.match(error.message, /did not answer within 30 s/);
    });
  });

  describe('isRetryable', () => {
    it('retries network errors, timeouts, rate limits and 5xx', () => {
      assert.equal(isRetryable(networkError(new Error('reset'), ORIGIN)), true);
      assert.equal(isRetryable(timeoutError(ORIGIN, 1000)), true);
      assert.equal(isRetryable(errorFromStatus({ status: 429, origin: ORIGIN })), true);
      assert.equal(isRetryable(errorFromStatus({ status: 503, origin: ORIGIN })), true);
    });

    it('does not retry client errors, 501 or foreign errors', () => {
      for (const status of [400, 401, 403, 404, 409, 501]) {
        assert.equal(isRetryable(errorFromStatus({ status, origin: ORIGIN })), false, `HTTP ${status}`);
      }
      assert.equal(isRetryable(new Error('boom')), false);
    });
  });

  describe('parseRetryAfter', () => {
    it('reads delta seconds and HTTP dates', () => {
      const now = Date.parse('2025-09-24T10:00:00Z');
      assert.equal(parseRetryAfter('5', now), 5000);
      assert.equal(parseRetryAfter('Wed, 24 Sep 2025 10:00:30 GMT', now), 30_000);
      assert.equal(parseRetryAfter('Wed, 24 Sep 2025 09:00:00 GMT', now), 0);
      assert.equal(parseRetryAfter('soon', now), undefined);
      assert.equal(parseRetryAfter(undefined, now), undefined);
    });
  });
});
