import assert from 'node:assert/strict';
import { runInNewContext } from 'node:vm';
import { failureSentence, isModelError, ModelError } from '../../../../src/engine/models/modelFailure';

describe('model failures by kind', function () {
  const refused = new ModelError('key-refused', {
    subject: 'The model server at 127.0.0.1:11434',
    what: 'refused the key (401)',
    advice: 'check $OPENAI_API_KEY',
  });

  it('reads as one sentence, saying how many tool calls came before it', function () {
    assert.equal(refused.message, 'The model server at 127.0.0.1:11434 refused the key (401): check $OPENAI_API_KEY');
    assert.equal(failureSentence(refused, 1), 'The model server at 127.0.0.1:11434 refused the key (401) after one tool call: check $OPENAI_API_KEY');
    assert.equal(
      failureSentence({ subject: 'The model server at h:1', what: 'answered 500', detail: 'upstream failed' }, 2),
      'The model server at h:1 answered 500 after 2 tool calls (upstream failed)',
    );
  });

  it('is recognised by its fields, also when another bundle compiled its class', function () {
    assert.ok(isModelError(refused));
    // A class of the same name and shape from elsewhere: what a second bundle's copy is.
    const foreign: unknown = runInNewContext(
      "(() => { class ModelError extends Error { constructor() { super('x'); this.modelFailure = 'server-error'; this.subject = 's'; this.what = 'answered 500'; } } return new ModelError(); })()",
    );
    assert.ok(!(foreign instanceof ModelError));
    assert.ok(isModelError(Object.setPrototypeOf(foreign, Error.prototype)));
    assert.ok(!isModelError(new Error('plain')));
    assert.ok(!isModelError(Object.assign(new Error('x'), { modelFailure: 'made-up', subject: 's', what: 'w' })));
  });
});
