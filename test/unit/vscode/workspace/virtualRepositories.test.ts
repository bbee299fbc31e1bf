/**
 * The repository a virtual workspace of VS Code for the Web shows: github.dev opens
 * `vscode-vfs://github/<owner>/<repo>`, whose files VS Code's file system reads. `vscode.Uri` cannot
 * be loaded outside VS Code: `uri()` below stands in for it with the parts and the `with` the
 * finder uses (the web tests open a real virtual workspace).
 */
import assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { virtualRepositories } from '../../../../src/vscode/workspace/virtualRepositories';

interface UriParts {
  scheme: string;
  authority: string;
  path: string;
  query: string;
  fragment: string;
}

function uri(text: string): vscode.Uri {
  const match = /^([^:]+):\/\/([^/]*)([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/.exec(text)!;
  const make = (parts: UriParts): vscode.Uri =>
    ({
      ...parts,
      with: (change: Partial<UriParts>) => make({ ...parts, ...change }),
      toString: () => `${parts.scheme}://${parts.authority}${parts.path}`,
    }) as unknown as vscode.Uri;
  return make({ scheme: match[1], authority: match[2], path: match[3], query: match[4] ?? '', fragment: match[5] ?? '' });
}

describe('the repositories of a virtual workspace (VS Code for the Web)', () => {
  it("names github.dev's workspace by the repository it shows, rooted at its top", async () => {
    const found = await virtualRepositories.ofFolder(uri('vscode-vfs://github/acme/billing'));
    assert.equal(found?.name, 'github.com/acme/billing');
    assert.equal(found?.root.toString(), 'vscode-vfs://github/acme/billing');
  });

  it('finds the repository holding a file of it, and of a branch opened with a ref in the authority', async () => {
    const found = await virtualRepositories.holding(uri('vscode-vfs://github+7b2272656622/acme/billing/src/price.ts'));
    assert.equal(found?.name, 'github.com/acme/billing');
    assert.equal(found?.root.toString(), 'vscode-vfs://github+7b2272656622/acme/billing');
  });

  it('has none for other folders (no git, no disk in a browser)', async () => {
    for (const folder of ['file:///home/me/billing', 'vscode-vfs://github/acme', 'vscode-vfs://azurerepos/org/project/repo', 'memfs://sample/folder']) {
      assert.equal(await virtualRepositories.ofFolder(uri(folder)), undefined, folder);
    }
  });
});
