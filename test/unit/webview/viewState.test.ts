import assert from 'node:assert/strict';
import { asViewState } from '../../../src/webview/vscodeApi';

describe('asViewState (the panel state an earlier page left)', () => {
  it('keeps the draft, scroll position and the follow-up still waiting for its reply', () => {
    assert.deepEqual(asViewState({ conversationId: 7, draft: 'Why?', scrollTop: 120, pendingFollowup: { requestId: 3, text: 'Why?' } }), {
      conversationId: 7,
      draft: 'Why?',
      scrollTop: 120,
      pendingFollowup: { requestId: 3, text: 'Why?' },
    });
  });

  it('drops what is malformed instead of trusting it', () => {
    assert.equal(asViewState({ draft: 'no id' }), undefined);
    assert.equal(asViewState(null), undefined);
    for (const pendingFollowup of [null, 'x', { requestId: '3', text: 'a' }, { requestId: 0, text: 'a' }, { requestId: 2.5, text: 'a' }, { requestId: 3 }]) {
      assert.deepEqual(
        asViewState({ conversationId: 7, draft: 'd', scrollTop: -5, pendingFollowup }),
        { conversationId: 7, draft: 'd', scrollTop: 0 },
        JSON.stringify(pendingFollowup),
      );
    }
  });
});
