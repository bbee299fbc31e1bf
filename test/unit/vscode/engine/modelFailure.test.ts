import assert from 'node:assert/strict';
import { floodFailure, isUsageLimit, modelFailure, providerDetail, scrubCredentials } from '../../../../src/vscode/engine/modelFailure';

describe("a VS Code model's failure in words", () => {
  it("says what to do for each of VS Code's reasons: no consent, blocked, gone", () => {
    const declined = modelFailure({ code: 'NoPermissions', message: 'Access to the language model was not allowed' });
    assert.equal(declined.kind, 'no-permissions');
    assert.match(declined.message, /^Deep Search may not use this model: allow it when VS Code asks .*or choose another model$/);
    const blocked = modelFailure({ code: 'Blocked', message: 'Extension is blocked by policy.' });
    assert.equal(blocked.kind, 'blocked');
    assert.equal(blocked.message, 'the model’s provider blocked the request (Extension is blocked by policy): choose another model');
    const gone = modelFailure({ code: 'NotFound', message: 'no such model' });
    assert.equal(gone.kind, 'not-found');
    assert.equal(gone.message, 'this model is no longer available in VS Code: choose another model');
  });

  it('tells a usage limit from other failures, whether VS Code wraps the provider’s error or not', () => {
    const wrapped = modelFailure({ code: 'Unknown', message: 'Request failed', cause: new Error('You have exceeded your monthly quota') });
    assert.equal(wrapped.kind, 'quota');
    assert.equal(
      wrapped.message,
      'this model has reached its usage limit (Request failed You have exceeded your monthly quota): wait, or choose another model',
    );
    assert.equal(modelFailure({ message: '429 Too Many Requests' }).kind, 'quota');
    assert.equal(modelFailure({ code: 'Blocked', message: 'Rate limit exceeded, retry in 60 s' }).kind, 'quota');
    for (const text of ['rate_limit_exceeded', 'RateLimitError', 'usage limit reached', 'HTTP 429']) assert.ok(isUsageLimit(text), text);
    for (const text of ['connection reset', 'status 4290 in the log', 'the stream broke']) assert.ok(!isUsageLimit(text), text);
    const failed = modelFailure({ code: 'Unknown', message: 'the stream broke' });
    assert.equal(failed.kind, 'failed');
    assert.equal(failed.message, 'the model’s provider failed (the stream broke)');
  });

  it('names the bound a flooding reply ran past', () => {
    assert.deepEqual(
      { ...floodFailure({ chars: 512 * 1024 }), message: floodFailure({ chars: 512 * 1024 }).message },
      { kind: 'flood', name: 'ModelTurnFailure', message: 'the model’s reply ran past 512 KB, so Deep Search stopped it' },
    );
    assert.equal(floodFailure({ toolCalls: 64 }).message, 'the model asked for more than 64 tool calls at once, so Deep Search stopped it');
  });

  it("keeps a provider's message short, on one line, and says so when it says nothing", () => {
    assert.equal(providerDetail('  upstream\n\n  error:\tbad   gateway.  '), 'upstream error: bad gateway');
    assert.equal(providerDetail(''), 'no reason given');
    assert.equal(providerDetail(' \n '), 'no reason given');
    const long = providerDetail(`${'word '.repeat(200)}and the end`);
    assert.equal(long.length, 300);
    assert.ok(long.endsWith('…'));
    assert.ok(!long.includes('the end'));
    // A whole response body is only looked at in part.
    assert.ok(providerDetail('x'.repeat(10_000_000)).length <= 300);
  });

  it('never repeats anything that looks like a credential', () => {
    const echoes = [
      ['request failed: Authorization: Bearer abc.def-ghi_123 was refused', 'Authorization: [redacted] was refused'],
      ['headers {"authorization":"Basic dXNlcjpwYXNz","accept":"json"}', '"authorization":"[redacted]"'],
      ['Proxy-Authorization: Basic dXNlcjpwYXNz', 'Proxy-Authorization: [redacted]'],
      ['sent bearer s3cr3tt0ken', 'bearer [redacted]'],
      ['GET /v1/models?api_key=AbC123xyz&x=1', 'api_key=[redacted]&x=1'],
      ['GET /v1/models?key=AbC123xyz', 'key=[redacted]'],
      ['x-api-key: k-123456', 'x-api-key: [redacted]'],
      ['{"api-key": "k-123456"}', '"api-key": "[redacted]"'],
      ['access_token=gho_abcdefghijklmnopqrstuvwxyz0123', 'access_token=[redacted]'],
      ['client_secret: hunter2', 'client_secret: [redacted]'],
      ['invalid key sk-proj-abcdefghijklmnopqrstuvwx', 'invalid key [redacted]'],
      ['token ghp_abcdefghijklmnopqrstuvwxyz0123456789 expired', 'token [redacted] expired'],
      ['jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U', 'jwt [redacted]'],
      ['AWS AKIAIOSFODNN7EXAMPLE denied', 'AWS [redacted] denied'],
    ];
    for (const [message, expected] of echoes) {
      const scrubbed = scrubCredentials(message);
      assert.ok(scrubbed.includes(expected), `${message} → ${scrubbed}`);
    }
    for (const secret of ['abc.def-ghi_123', 'dXNlcjpwYXNz', 's3cr3tt0ken', 'AbC123xyz', 'k-123456', 'hunter2', 'abcdefghijklmnopqrstuvw']) {
      for (const [message] of echoes) assert.ok(!scrubCredentials(message).includes(secret), `${secret} left in ${scrubCredentials(message)}`);
    }
    // Through the whole mapping too: the failure's words hold no key.
    const failure = modelFailure({ code: 'Unknown', message: 'quota exceeded for Authorization: Bearer sk-live-abcdefghijklmnopqrstu' });
    assert.equal(failure.message, 'this model has reached its usage limit (quota exceeded for Authorization: [redacted]): wait, or choose another model');
    // Words that merely mention tokens are kept.
    assert.equal(scrubCredentials('the request used 5000 tokens, max_tokens: 4096'), 'the request used 5000 tokens, max_tokens: 4096');
  });
});
