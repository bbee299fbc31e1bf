import assert from 'node:assert/strict';
import { Disposables, type DisposableLike } from '../../../src/vscode/disposables';

class Owner extends Disposables {
  own<T extends DisposableLike>(child: T): T {
    return this.register(child);
  }
  get wasDisposed(): boolean {
    return this.disposed;
  }
}

describe('Disposables', () => {
  const child = (name: string, order: string[], fails = false): DisposableLike => ({
    dispose: () => {
      order.push(name);
      if (fails) throw new Error(`${name} failed`);
    },
  });

  it('disposes its children once, newest first', () => {
    const order: string[] = [];
    const owner = new Owner();
    owner.own(child('a', order));
    owner.own(child('b', order));
    owner.dispose();
    owner.dispose();
    assert.deepEqual(order, ['b', 'a']);
    assert.equal(owner.wasDisposed, true);
  });

  it('disposes at once a child registered after the owner was disposed', () => {
    const order: string[] = [];
    const owner = new Owner();
    owner.dispose();
    owner.own(child('late', order));
    assert.deepEqual(order, ['late']);
  });

  it('disposes every child when one throws, then reports what failed', () => {
    const order: string[] = [];
    const owner = new Owner();
    owner.own(child('a', order));
    owner.own(child('b', order, true));
    owner.own(child('c', order));
    assert.throws(() => owner.dispose(), /b failed/);
    assert.deepEqual(order, ['c', 'b', 'a']);
  });
});
