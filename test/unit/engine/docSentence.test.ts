/** The first sentence of a definition's own documentation (src/engine/answers/docSentence.ts). */
import assert from 'node:assert/strict';
import { documentationSentence } from '../../../src/engine/answers/docSentence';

describe('documentation sentence', function () {
  it("takes a Javadoc comment's first sentence, without markers, inline tags or block tags", function () {
    const lines = [
      '    /**',
      '     * Get the plugin object that implements the {@link CordovaPlugin service}.',
      '     * If it does not exist yet, it is created.',
      '     *',
      '     * @param service The name of the service.',
      '     */',
      '    public CordovaPlugin getPlugin(String service) {',
    ];
    assert.equal(documentationSentence(lines, 1, 7, 7), 'Get the plugin object that implements the CordovaPlugin service.');
  });

  it("takes a Python docstring's first sentence below a signature of several lines", function () {
    const lines = [
      'def rebuild_auth(self,',
      '                 prepared_request, response):',
      '    """When being redirected we may want to strip authentication',
      '    from the request to avoid leaking credentials. More text."""',
      '    pass',
    ];
    assert.equal(
      documentationSentence(lines, undefined, 1, 1),
      'When being redirected we may want to strip authentication from the request to avoid leaking credentials.',
    );
  });

  it('takes line comments (Go, Rust) and skips attributes', function () {
    const lines = ['/// Returns the connection to the pool', '/// once the body is read.', '#[inline]', 'fn release(self) {'];
    assert.equal(documentationSentence(lines, 1, 4, 4), 'Returns the connection to the pool once the body is read.');
  });

  it('ends a sentence its authors left without a full stop with one', function () {
    assert.equal(
      documentationSentence(['// CompletionOptions are the options to control shell completion', 'type CompletionOptions struct {'], 1, 2, 2),
      'CompletionOptions are the options to control shell completion.',
    );
  });

  it('says nothing when there is no comment, or one of a word or two', function () {
    assert.equal(documentationSentence(['function run() {', '  go();', '}'], undefined, 1, 1), undefined);
    assert.equal(documentationSentence(['// TODO', 'function run() {'], 1, 2, 2), undefined);
  });
});
