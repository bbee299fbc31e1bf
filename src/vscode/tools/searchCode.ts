/**
 * "Search Code…": keyword or natural-language search across the instance's repositories, results
 * as you type, each opening at its line (the workspace's copy when it has the file).
 */
import { baseName, parentPath } from '../../api/tools/remotePath';
import * as vscode from 'vscode';
import { firstMatchingLine, queryWords, type FileMatch } from '../../api/tools/toolResults';
import type { CodeLocations } from './codeLocations';
import { livePick } from './livePick';
import type { ToolAccess } from './toolAccess';

export type SearchMode = 'keyword' | 'natural';

interface ResultItem extends vscode.QuickPickItem {
  match: FileMatch;
  line: number;
  words: string[];
}

export interface SearchCodeArguments {
  query?: string;
  mode?: SearchMode;
}

export async function searchCode(access: ToolAccess, locations: CodeLocations, given: SearchCodeArguments = {}): Promise<vscode.TextEditor | undefined> {
  const tools = access.tools;
  // Each mode steps aside where the instance lacks its tool (the other one is then the only one).
  const [keyword, natural] = await Promise.all([access.has('keyword_search'), access.has('nls_search')]);
  const both = keyword && natural;
  let mode: SearchMode = given.mode === 'natural' && natural ? 'natural' : keyword || !natural ? 'keyword' : 'natural';
  const switchButton = (): vscode.QuickInputButton =>
    mode === 'keyword'
      ? { iconPath: new vscode.ThemeIcon('comment'), tooltip: vscode.l10n.t('Switch to natural-language search') }
      : { iconPath: new vscode.ThemeIcon('symbol-keyword'), tooltip: vscode.l10n.t('Switch to keyword search') };
  const titleFor = (): string => (mode === 'keyword' ? vscode.l10n.t('Search Code (keywords)') : vscode.l10n.t('Search Code (natural language)'));
  const placeholderFor = (): string =>
    mode === 'keyword'
      ? vscode.l10n.t('Terms, "phrases", /regex/, AND, OR, repo:, file:, rev: filters')
      : vscode.l10n.t('Describe what you are looking for, e.g. where are retries configured');
  const chosen = await livePick<ResultItem>(
    {
      title: titleFor(),
      placeholder: placeholderFor(),
      value: given.query,
      delayMs: mode === 'keyword' ? 250 : 500,
      buttons: both ? [switchButton()] : [],
      onButton: (_button, pick, reload) => {
        mode = mode === 'keyword' ? 'natural' : 'keyword';
        pick.title = titleFor();
        pick.placeholder = placeholderFor();
        pick.buttons = [switchButton()];
        reload();
      },
      load: async (query, signal) => {
        const matches = mode === 'keyword' ? await tools.keywordSearch(query, signal) : await tools.naturalLanguageSearch(query, signal);
        const words = queryWords(query);
        return matches.map((match): ResultItem => {
          const line = firstMatchingLine(match, words) ?? match.chunks[0]?.lines[0];
          const directory = parentPath(match.path);
          return {
            label: `$(file) ${baseName(match.path)}`,
            description: `${match.repo}${directory === '' ? '' : ` › ${directory}`}`,
            detail: line ? `${line.line}: ${line.text.trim()}` : undefined,
            match,
            line: line?.line ?? match.chunks[0]?.startLine ?? 1,
            words,
          };
        });
      },
      emptyMessage: (query) => vscode.l10n.t('No code matches {0}.', query),
    },
    (error) => void access.report(error),
  );
  if (!chosen) return undefined;
  const { match, line, words } = chosen;
  const uri = await locations.uriFor({ repo: match.repo, path: match.path, revision: match.revision });
  const document = await vscode.workspace.openTextDocument(uri);
  const lineIndex = Math.min(Math.max(line - 1, 0), Math.max(document.lineCount - 1, 0));
  const text = document.lineAt(lineIndex).text;
  const lower = text.toLowerCase();
  const word = words.find((candidate) => lower.includes(candidate.toLowerCase()));
  const start = word ? lower.indexOf(word.toLowerCase()) : 0;
  const selection = new vscode.Selection(lineIndex, start, lineIndex, word ? start + word.length : 0);
  const editor = await vscode.window.showTextDocument(document, { selection, preview: true });
  editor.revealRange(selection, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  return editor;
}
