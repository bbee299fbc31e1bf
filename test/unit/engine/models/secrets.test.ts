import assert from 'node:assert/strict';
import { REDACTED, secretScrubber } from '../../../../src/engine/models/secrets';

describe('keeping a model key out of what a model client hands on', function () {
  const key = 'sk-live-9Q2x/Yz+abc==';
  const scrub = secretScrubber(key);

  it('removes the key from a reply in every spelling a server may echo it in', function () {
    const spellings = [key, encodeURIComponent(key), JSON.stringify(key).slice(1, -1), btoa(key).replace(/=+$/, '')];
    for (const spelling of spellings) {
      const scrubbed = scrub.reply(`before ${spelling} after`);
      assert.equal(scrubbed, `before ${REDACTED} after`, spelling);
    }
  });

  it('leaves a reply without the key as it is, "Bearer" and "Authorization" in code included', function () {
    const code = "headers.set('Authorization', `Bearer ${token}`); // Authorization: Bearer abcdefgh";
    assert.equal(scrub.reply(code), code);
  });

  it("removes echoed credentials from a server's failure, whatever the key", function () {
    const other = secretScrubber(undefined);
    const cases: Array<[string, string]> = [
      ['bad request; headers: Authorization: Bearer sk-other-123456', `bad request; headers: ${REDACTED}`],
      ['{"authorization":"Basic dXNlcjpwYXNz"}', `{"${REDACTED}"}`],
      ['invalid token abcdef123456 given', `invalid ${REDACTED} given`],
      ['denied for api_key=abc123xyz&x=1', `denied for ${REDACTED}&x=1`],
      ['x-api-key: 0123456789', REDACTED],
    ];
    for (const [said, expected] of cases) assert.equal(other.failure(said), expected, said);
  });

  it('does not remove a key too short to be a secret from replies (it would break quotes of code)', function () {
    assert.equal(secretScrubber('ollama').reply('run ollama serve'), 'run ollama serve');
  });
});
