import * as assert from 'node:assert/strict';
import { collectGarbage } from '../../../../src/engine/runtime/collectGarbage';

describe('collectGarbage', function () {
  it('runs a full collection: an object nothing refers to any more is gone after it', async function () {
    const made = (): WeakRef<object> => new WeakRef({ payload: new Array<number>(1000).fill(7) });
    const ref = made();
    // A WeakRef's target lives at least until the current job ends.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(collectGarbage(), true);
    assert.equal(ref.deref(), undefined);
  });
});
