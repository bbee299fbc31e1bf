/**
 * The layering of DESIGN.md, checked on the sources: `src/api` and `src/engine` run on plain Node
 * (no `vscode`), the webview runs in a browser (no Node, no `vscode`), and imports only point down.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import * as path from 'node:path';

const SRC = path.join(__dirname, '..', '..', 'src');

function sourcesOf(layer: string): string[] {
  return readdirSync(path.join(SRC, layer), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => path.join(SRC, layer, file));
}

/** Every module specifier a file imports or re-exports (static or dynamic, `require` included). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm;
  return [...text.matchAll(pattern)].map((match) => match[1]!);
}

function violations(layer: string, forbidden: (specifier: string) => boolean): string[] {
  return sourcesOf(layer).flatMap((file) =>
    importsOf(file)
      .filter(forbidden)
      .map((specifier) => `${path.relative(SRC, file)} imports ${specifier}`),
  );
}

const isNodeBuiltin = (specifier: string) => specifier.startsWith('node:') || builtinModules.includes(specifier);
const reaches = (layer: string) => (specifier: string) => new RegExp(`(^|/)\\.\\./${layer}(/|$)`).test(specifier);

describe('layers', () => {
  it('keeps src/api free of vscode and of the layers above it', () => {
    assert.deepEqual(violations('api', (s) => s === 'vscode' || reaches('vscode')(s) || reaches('engine')(s) || reaches('webview')(s)), []);
  });

  it('keeps src/engine free of vscode, the extension and the webview', () => {
    assert.deepEqual(violations('engine', (s) => s === 'vscode' || reaches('vscode')(s) || reaches('webview')(s)), []);
  });

  it('keeps the webview free of Node, vscode, HTTP and the host layers', () => {
    assert.deepEqual(
      violations('webview', (s) => s === 'vscode' || isNodeBuiltin(s) || s === 'undici' || reaches('vscode')(s) || reaches('engine')(s)),
      [],
    );
  });

  it('finds imports at all (so the checks above cannot pass on an empty reading)', () => {
    assert.ok(importsOf(path.join(SRC, 'extension.ts')).includes('vscode'));
    assert.ok(sourcesOf('api').length > 5 && sourcesOf('engine').length > 5 && sourcesOf('webview').length > 5);
  });
});
