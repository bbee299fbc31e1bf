import assert from 'node:assert/strict';
import { parseInstanceUrl } from '../../../../src/api/instance';
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
  it('remembers per instance, however its URL was written before it was parsed, what was said to be lacking', async () => {
    const state = memoryState();
    const memento = new LackingToolsMemento(state);
    const instance = parseInstanceUrl('https://deepsearch.example.com');
    assert.equal(memento.said(instance), undefined, 'nothing said yet');
    await memento.remember(parseInstanceUrl('deepsearch.example.com/'), ['read_file', 'grep']);
    assert.deepEqual([...state.values.keys()], ['deepSearch.lackingToolsSaid:https://deepsearch.example.com']);
    assert.equal(memento.said(instance), 'read_file,grep');
    assert.equal(memento.said(parseInstanceUrl('https://other.example.com')), undefined);
    await memento.remember(instance, []);
    assert.equal(memento.said(instance), '', 'none lacking is remembered too');
  });
});
