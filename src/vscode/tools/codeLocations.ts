/**
 * Where a repository file opens in this editor: the workspace's own checkout when it has the file,
 * otherwise a remote document. Also the reverse (which repository file an editor shows) and the
 * translation of tool results into VS Code locations.
 */
import * as vscode from 'vscode';
import type { RemoteFile } from '../../api/tools/remotePath';
import type { FileMatch } from '../../api/tools/toolResults';
import { pathInRepository, type WorkspaceRepositories } from '../workspace/workspaceRepositories';
import { remoteFileOf, remoteUri } from './remoteFiles';

export class CodeLocations {
  constructor(private readonly repositories: WorkspaceRepositories) {}

  /** The local file when the workspace has the repository and the file, else the remote document. */
  async uriFor(file: RemoteFile): Promise<vscode.Uri> {
    return (await this.localFile(file.repo, file.path)) ?? remoteUri(file);
  }

  /** The workspace's copy of a repository file, if it has one (paths that leave the repository never match). */
  async localFile(repo: string, relativePath: string): Promise<vscode.Uri | undefined> {
    const local = await this.repositories.find(repo);
    if (!local) return undefined;
    const segments = relativePath.split(/[\\/]/).filter((segment) => segment !== '' && segment !== '.');
    if (segments.length === 0 || segments.includes('..')) return undefined;
    const file = vscode.Uri.joinPath(local.root, ...segments);
    try {
      await vscode.workspace.fs.stat(file);
      return file;
    } catch {
      return undefined;
    }
  }

  /** The repository file an editor shows: a remote document, or a local file of a git repository. */
  async fileOf(uri: vscode.Uri): Promise<RemoteFile | undefined> {
    const remote = remoteFileOf(uri);
    if (remote) return remote;
    const local = await this.repositories.holding(uri);
    if (!local) return undefined;
    const relative = pathInRepository(local.root, uri);
    return relative ? { repo: local.name, path: relative } : undefined;
  }

  /**
   * Tool results as locations of `symbol`: for definitions the first line of each result naming it,
   * for references every line naming it as a whole word.
   */
  async locations(matches: readonly FileMatch[], symbol: string, mode: 'definition' | 'references'): Promise<vscode.Location[]> {
    const word = new RegExp(`(?<![\\w$])${symbol.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w$])`);
    const found: vscode.Location[] = [];
    for (const match of matches) {
      const uri = await this.uriFor({ repo: match.repo, path: match.path, revision: match.revision });
      const lines = match.chunks.flatMap((chunk) => chunk.lines).filter((line) => word.test(line.text));
      const chosen = mode === 'definition' ? lines.slice(0, 1) : lines;
      if (chosen.length === 0 && mode === 'definition') {
        const start = match.chunks[0]?.startLine ?? 1;
        found.push(new vscode.Location(uri, new vscode.Position(start - 1, 0)));
      }
      for (const line of chosen) {
        const column = word.exec(line.text)?.index ?? 0;
        found.push(new vscode.Location(uri, new vscode.Range(line.line - 1, column, line.line - 1, column + symbol.length)));
      }
    }
    return dedupe(found);
  }
}

function dedupe(locations: vscode.Location[]): vscode.Location[] {
  const seen = new Set<string>();
  return locations.filter((location) => {
    const key = `${location.uri.toString()}#${location.range.start.line}:${location.range.start.character}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
