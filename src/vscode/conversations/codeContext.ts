/**
 * Where a piece of code is, as a question about it names it: its repository (by git remote), its
 * path in that repository (or the workspace folder), its lines and language. Used by "Ask About
 * Selection" and by the chat participant for attached selections and files.
 */
import * as vscode from 'vscode';
import type { CodeExcerpt } from '../../conversations/selectionQuestion';
import { pathInRepository, type WorkspaceRepositories } from '../workspace/workspaceRepositories';

export async function codeContextOf(document: vscode.TextDocument, range: vscode.Range, repositories: WorkspaceRepositories): Promise<CodeExcerpt> {
  const repo = await repositories.holding(document.uri);
  const base = repo?.root ?? vscode.workspace.getWorkspaceFolder(document.uri)?.uri;
  const relativePath = (base && pathInRepository(base, document.uri)) ?? vscode.workspace.asRelativePath(document.uri);
  // A selection that ends at the start of a line does not include that line.
  const endLine = range.end.character === 0 && range.end.line > range.start.line ? range.end.line - 1 : range.end.line;
  return {
    code: document.getText(range),
    languageId: document.languageId,
    relativePath: relativePath.split('\\').join('/'),
    startLine: range.start.line + 1,
    endLine: endLine + 1,
    ...(repo ? { repoName: repo.name } : {}),
  };
}
