/**
 * Which tools an instance was last said to lack, kept in the global state per instance, so the
 * same news is said once and not at every start. The `vscode` import is of types only (tested on
 * plain Node).
 */
import type * as vscode from 'vscode';
import type { InstanceUrl } from '../../api/instance';

const lackingToolsKey = (instanceUrl: InstanceUrl) => `deepSearch.lackingToolsSaid:${instanceUrl}`;

export class LackingToolsMemento {
  constructor(private readonly state: Pick<vscode.Memento, 'get' | 'update'>) {}

  /** The tools last said to be lacking, comma-separated ('' for none); undefined when nothing was said. */
  said(instanceUrl: InstanceUrl): string | undefined {
    return this.state.get<string>(lackingToolsKey(instanceUrl));
  }

  async remember(instanceUrl: InstanceUrl, tools: readonly string[]): Promise<void> {
    await this.state.update(lackingToolsKey(instanceUrl), tools.join(','));
  }
}
