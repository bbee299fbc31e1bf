/**
 * Which tools an instance was last said to lack, kept in the global state per instance, so the
 * same news is said once and not at every start. The `vscode` import is of types only (tested on
 * plain Node).
 */
import type * as vscode from 'vscode';
import { normalizeInstanceUrl } from '../../api/instance';

const lackingToolsKey = (instanceUrl: string) => `deepSearch.lackingToolsSaid:${normalizeInstanceUrl(instanceUrl)}`;

export class LackingToolsMemento {
  constructor(private readonly state: Pick<vscode.Memento, 'get' | 'update'>) {}

  /** The tools last said to be lacking, comma-separated ('' for none); undefined when nothing was said. */
  said(instanceUrl: string): string | undefined {
    return this.state.get<string>(lackingToolsKey(instanceUrl));
  }

  async remember(instanceUrl: string, tools: readonly string[]): Promise<void> {
    await this.state.update(lackingToolsKey(instanceUrl), tools.join(','));
  }
}
