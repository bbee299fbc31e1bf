/**
 * "Go to Definition in All Repositories" and "Find References in All Repositories": search-based
 * navigation through the tool server, from local files (repository from the git remote) and remote
 * documents, shown in VS Code's own peek and references views. Inside remote documents the same
 * lookups also answer F12 and Shift+F12 as definition and reference providers. On an instance whose
 * tool server lacks the navigation tools, both fall back to keyword search, and say so once.
 */
import * as vscode from 'vscode';
import { DeepSearchError, errorMessage } from '../../api/errors';
import { definitionQuery, isSearchableSymbol, referencesQuery } from '../../api/tools/symbolSearch';
import { TOOL_FEATURES } from '../../api/tools/toolServer';
import type { CodeLocations } from './codeLocations';
import { REMOTE_SCHEME } from './remoteFiles';
import type { ToolAccess } from './toolAccess';

type Lookup = 'definition' | 'references';

export class CrossRepositoryNavigation {
  constructor(
    private readonly access: ToolAccess,
    private readonly locations: CodeLocations,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** Definition and reference providers for remote documents (local files keep their language servers). */
  registerProviders(): vscode.Disposable[] {
    const selector: vscode.DocumentSelector = { scheme: REMOTE_SCHEME };
    return [
      vscode.languages.registerDefinitionProvider(selector, {
        provideDefinition: (document, position, token) => this.provide('definition', document, position, token),
      }),
      vscode.languages.registerReferenceProvider(selector, {
        provideReferences: (document, position, _context, token) => this.provide('references', document, position, token),
      }),
    ];
  }

  /** The command: looks up the name under the cursor of the active editor and shows the results. */
  async show(lookup: Lookup): Promise<vscode.Location[] | undefined> {
    const editor = vscode.window.activeTextEditor;
    if (!editor) throw new DeepSearchError('badRequest', vscode.l10n.t('Open a file and put the cursor on a name first.'));
    const { document } = editor;
    const position = editor.selection.active;
    const symbol = symbolAt(editor);
    if (!symbol) throw new DeepSearchError('badRequest', vscode.l10n.t('Put the cursor on a name (a function, type or variable) first.'));
    const title =
      lookup === 'definition'
        ? vscode.l10n.t('Finding the definition of {0} in all repositories…', symbol)
        : vscode.l10n.t('Finding references to {0} in all repositories…', symbol);
    const found = await this.access.run(title, (_tools, signal) => this.lookUp(lookup, document, symbol, signal));
    if (!found) return undefined;
    if (found.length === 0) {
      void vscode.window.showInformationMessage(
        lookup === 'definition'
          ? vscode.l10n.t('No definition of {0} was found in the repositories of the instance.', symbol)
          : vscode.l10n.t('No references to {0} were found in the repositories of the instance.', symbol),
      );
      return found;
    }
    if (lookup === 'definition' && found.length === 1) {
      const [only] = found;
      await vscode.window.showTextDocument(only.uri, { selection: only.range, preview: true });
    } else if (lookup === 'definition') {
      await vscode.commands.executeCommand('editor.action.goToLocations', document.uri, position, found, 'peek', '');
    } else {
      await vscode.commands.executeCommand('editor.action.showReferences', document.uri, position, found);
    }
    return found;
  }

  private async provide(lookup: Lookup, document: vscode.TextDocument, position: vscode.Position, token: vscode.CancellationToken): Promise<vscode.Location[]> {
    const range = document.getWordRangeAtPosition(position);
    if (!range) return [];
    const controller = new AbortController();
    const listener = token.onCancellationRequested(() => controller.abort());
    try {
      return await this.lookUp(lookup, document, document.getText(range), controller.signal);
    } catch (error) {
      this.log.warn(`${lookup} lookup failed: ${errorMessage(error)}`);
      return [];
    } finally {
      listener.dispose();
    }
  }

  private async lookUp(lookup: Lookup, document: vscode.TextDocument, symbol: string, signal: AbortSignal): Promise<vscode.Location[]> {
    const file = await this.locations.fileOf(document.uri);
    if (!file) {
      throw new DeepSearchError(
        'badRequest',
        vscode.l10n.t(
          '{0} is not in a git repository with a remote the instance knows, so it cannot be looked up across repositories.',
          vscode.workspace.asRelativePath(document.uri),
        ),
      );
    }
    const at = { ...file, symbol };
    const tools = this.access.tools;
    if (await this.searchInstead(lookup, symbol)) {
      const matches = await tools.keywordSearch(lookup === 'definition' ? definitionQuery(symbol) : referencesQuery(symbol), signal);
      return this.locations.locations(matches, symbol, lookup);
    }
    const matches = lookup === 'definition' ? await tools.goToDefinition(at, signal) : await tools.findReferences(at, signal);
    return this.locations.locations(matches, symbol, lookup);
  }

  /**
   * Whether to look the name up by keyword search: the instance lacks the navigation tool but has
   * keyword search (2026's curated endpoint, or a tool an admin turned off). Said once per connection.
   */
  private async searchInstead(lookup: Lookup, symbol: string): Promise<boolean> {
    const tool = lookup === 'definition' ? 'go_to_definition' : 'find_references';
    if (!isSearchableSymbol(symbol) || (await this.access.has(tool)) || !(await this.access.has('keyword_search'))) return false;
    const host = this.access.instanceHost;
    this.access.explainFallback(
      tool,
      lookup === 'definition'
        ? vscode.l10n.t(
            '{0} does not offer {1}, so definitions are found by keyword search (the lines that declare the name): some may be missed or extra.',
            host,
            TOOL_FEATURES[tool],
          )
        : vscode.l10n.t('{0} does not offer {1}, so references are found by keyword search (every line naming it as a whole word).', host, TOOL_FEATURES[tool]),
    );
    return true;
  }
}

/** The selected name (one line) or the word under the cursor. */
function symbolAt(editor: vscode.TextEditor): string | undefined {
  const { selection, document } = editor;
  if (!selection.isEmpty && selection.isSingleLine) {
    const selected = document.getText(selection).trim();
    if (selected) return selected;
  }
  const range = document.getWordRangeAtPosition(selection.active);
  return range ? document.getText(range) : undefined;
}
