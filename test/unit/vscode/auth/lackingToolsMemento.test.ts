import assert from 'node:assert/strict';
import { LackingToolsMemento } from '../../../../src/vscode/auth/lackingToolsMemento';

function memoryState() {
  const values = new Map<string, unknown>();
  return {
    values,
    get: <T>(key: string) => values.get(key) as T | undefined,
    update: (key: string, value: unknown) => {
      values.set(key, value);
      return Promise.resolve();
    },
  };
}

describe('LackingToolsMemento', () => {
  it('remembers per instance, however its URL was written, what was said to be lacking', async () => {
    const state = memoryState();
    const memento = new LackingToolsMemento(state);
    assert.equal(memento.said('https://deepsearch.example.com'), undefined, 'nothing said yet');
    await memento.remember('deepsearch.example.com/', ['read_file', 'grep']);
    assert.deepEqual([...state.values.keys()], ['deepSearch.lackingToolsSaid:https://deepsearch.example.com']);
    assert.equal(memento.said('https://deepsearch.example.com'), 'read_file,grep');
    assert.equal(memento.said('https://other.example.com'), undefined);
    await memento.remember('https://deepsearch.example.com', []);
    assert.equal(memento.said('https://deepsearch.example.com'), '', 'none lacking is remembered too');
  });
});
