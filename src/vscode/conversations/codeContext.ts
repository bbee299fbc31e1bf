/**
 * Where a piece of code is, as a question about it names it: its repository (by git remote), its
 * path in that repository (or the workspace folder), its lines and language. Used by "Ask About
 * Selection" and by the chat participant for attached selections and files.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CodeExcerpt } from '../../conversations/selectionQuestion';
import type { WorkspaceRepositories } from '../workspace/workspaceRepositories';

export async function codeContextOf(document: vscode.TextDocument, range: vscode.Range, repositories: WorkspaceRepositories): Promise<CodeExcerpt> {
  const repo = await repositories.holding(document.uri);
  const base = repo?.root ?? vscode.workspace.getWorkspaceFolder(document.uri)?.uri.fsPath;
  const relativePath = base && document.uri.scheme === 'file' ? path.relative(base, document.uri.fsPath) : vscode.workspace.asRelativePath(document.uri);
  // A selection that ends at the start of a line does not include that line.
  const endLine = range.end.character === 0 && range.end.line > range.start.line ? range.end.line - 1 : range.end.line;
  return {
    code: document.getText(range),
    languageId: document.languageId,
    relativePath: relativePath.split(path.sep).join('/'),
    startLine: range.start.line + 1,
    endLine: endLine + 1,
    ...(repo ? { repoName: repo.name } : {}),
  };
}
