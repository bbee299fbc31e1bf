/**
 * Files of repositories that are not checked out, read-only in the editor: `deepsearch-remote:` URIs
 * whose path is `/<repo>@<rev>/<path>`, backed by the read file and list files tools. Contents are
 * cached per connection (a revision that is a branch may move: "Revert File" reads it again).
 */
import * as vscode from 'vscode';
import { errorMessage, isDeepSearchError } from '../../api/errors';
import { formatRemotePath, parentPath, parseRemotePath, type RemoteFile } from '../../api/tools/remotePath';
import type { DirectoryEntry } from '../../api/tools/toolResults';
import type { ToolAccess } from './toolAccess';
import { Disposables } from '../disposables';

export const REMOTE_SCHEME = 'deepsearch-remote';
/** A diff side that may not exist (a file added or deleted between revisions) reads as empty. */
const OR_EMPTY = 'orEmpty';
const CACHED_FILES = 64;

export function remoteUri(file: RemoteFile, options: { orEmpty?: boolean } = {}): vscode.Uri {
  return vscode.Uri.from({ scheme: REMOTE_SCHEME, path: formatRemotePath(file), query: options.orEmpty ? OR_EMPTY : undefined });
}

export function remoteFileOf(uri: vscode.Uri): RemoteFile | undefined {
  return uri.scheme === REMOTE_SCHEME ? parseRemotePath(uri.path) : undefined;
}

export class RemoteFileSystem extends Disposables implements vscode.FileSystemProvider, vscode.Disposable {
  private readonly files = new Map<string, Promise<Uint8Array>>();
  private readonly directories = new Map<string, Promise<DirectoryEntry[]>>();
  private readonly changeEmitter = this.register(new vscode.EventEmitter<vscode.FileChangeEvent[]>());
  readonly onDidChangeFile = this.changeEmitter.event;

  constructor(private readonly access: ToolAccess) {
    super();
    // Another instance or account may see other files: forget everything.
    this.register(
      access.onDidChange(() => {
        this.files.clear();
        this.directories.clear();
      }),
    );
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    const file = this.parse(uri);
    if (file.path === '') return directoryStat();
    const entries = await this.listDirectory({ ...file, path: parentPath(file.path) }, uri);
    const entry = entries.find((candidate) => candidate.path === file.path);
    if (!entry) {
      if (uri.query === OR_EMPTY) return fileStat(0);
      throw vscode.FileSystemError.FileNotFound(uri);
    }
    if (entry.isDirectory) return directoryStat();
    const cached = this.files.get(uri.toString());
    return fileStat(cached ? (await cached.catch(() => new Uint8Array())).byteLength : 0);
  }

  async readDirectory(uri: vscode.Uri): Promise<[string, vscode.FileType][]> {
    const file = this.parse(uri);
    const entries = await this.listDirectory(file, uri);
    return entries.map((entry) => [entry.path.slice(entry.path.lastIndexOf('/') + 1), entry.isDirectory ? vscode.FileType.Directory : vscode.FileType.File]);
  }

  readFile(uri: vscode.Uri): Promise<Uint8Array> {
    const file = this.parse(uri);
    const key = uri.toString();
    let content = this.files.get(key);
    if (!content) {
      content = this.read(file, uri);
      this.files.set(key, content);
      // Failures are not cached, and the oldest entry makes room.
      content.catch(() => this.files.delete(key));
      if (this.files.size > CACHED_FILES) this.files.delete(this.files.keys().next().value!);
    }
    return content;
  }

  writeFile(uri: vscode.Uri): never {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  createDirectory(uri: vscode.Uri): never {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  delete(uri: vscode.Uri): never {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  rename(uri: vscode.Uri): never {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  private parse(uri: vscode.Uri): RemoteFile {
    const file = remoteFileOf(uri);
    if (!file)
      throw vscode.FileSystemError.FileNotFound(vscode.l10n.t('{0} does not name a repository file (expected <repository>@<revision>/<path>).', uri.path));
    return file;
  }

  private async read(file: RemoteFile, uri: vscode.Uri): Promise<Uint8Array> {
    try {
      const { text, cut } = await (await this.access.ready()).readFile(file);
      const shown = cut ? `${text}\n… ${vscode.l10n.t('(the rest of this file is too large to show here)')}\n` : text;
      return new TextEncoder().encode(shown);
    } catch (error) {
      if (uri.query === OR_EMPTY && isDeepSearchError(error) && error.kind === 'badRequest') return new Uint8Array();
      throw asFileSystemError(error);
    }
  }

  private listDirectory(directory: RemoteFile, uri: vscode.Uri): Promise<DirectoryEntry[]> {
    const key = formatRemotePath(directory);
    let listing = this.directories.get(key);
    if (!listing) {
      listing = this.access
        .ready()
        .then((tools) => tools.listFiles(directory))
        .catch((error: unknown) => {
          this.directories.delete(key);
          if (uri.query === OR_EMPTY && isDeepSearchError(error) && error.kind === 'badRequest') return [];
          throw asFileSystemError(error);
        });
      this.directories.set(key, listing);
    }
    return listing;
  }
}

function asFileSystemError(error: unknown): vscode.FileSystemError {
  const message = errorMessage(error);
  if (isDeepSearchError(error) && (error.kind === 'badRequest' || error.kind === 'notFound')) return vscode.FileSystemError.FileNotFound(message);
  if (isDeepSearchError(error) && (error.kind === 'unauthorized' || error.kind === 'forbidden')) return vscode.FileSystemError.NoPermissions(message);
  return vscode.FileSystemError.Unavailable(message);
}

const directoryStat = (): vscode.FileStat => ({ type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0, permissions: vscode.FilePermission.Readonly });
const fileStat = (size: number): vscode.FileStat => ({ type: vscode.FileType.File, ctime: 0, mtime: 0, size, permissions: vscode.FilePermission.Readonly });
