/**
 * The layering of DESIGN.md, checked on the sources: `src/api` and `src/engine` run on plain Node
 * (no `vscode`) and share only `src/contract`, the webview runs in a browser (no Node, no
 * `vscode`), and imports only point down.
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
  return [...text.matchAll(pattern)].map((match) => match[1]);
}

function violations(layer: string, forbidden: (specifier: string) => boolean): string[] {
  return sourcesOf(layer).flatMap((file) =>
    importsOf(file)
      .filter(forbidden)
      .map((specifier) => `${path.relative(SRC, file)} imports ${specifier}`),
  );
}

function allSources(): string[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => path.join(SRC, file));
}

/** The file a relative specifier names (`./x` → `x.ts` or `x/index.ts`), or undefined. */
function resolveRelative(from: string, specifier: string, files: ReadonlySet<string>): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), specifier);
  return [`${base}.ts`, path.join(base, 'index.ts'), base].find((candidate) => files.has(candidate));
}

function importCycles(files: string[]): string[] {
  const known = new Set(files);
  const graph = new Map(files.map((file) => [file, importsOf(file).flatMap((specifier) => resolveRelative(file, specifier, known) ?? [])]));
  return cyclesIn(graph).map((cycle) => cycle.map((file) => path.relative(SRC, file)).join(' → '));
}

/** The cycle each back edge of a depth-first walk closes, from the file it starts at back to it. */
function cyclesIn(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return cycles;
}

const isNodeBuiltin = (specifier: string) => specifier.startsWith('node:') || builtinModules.includes(specifier);
const reaches = (layer: string) => (specifier: string) => new RegExp(`(^|/)\\.\\./${layer}(/|$)`).test(specifier);

describe('layers', () => {
  it('keeps src/api and src/conversations free of vscode and of the layers above them', () => {
    for (const layer of ['api', 'conversations']) {
      assert.deepEqual(violations(layer, (s) => s === 'vscode' || reaches('vscode')(s) || reaches('engine')(s) || reaches('webview')(s)), [], layer);
    }
  });

  it('keeps src/engine free of vscode, the extension, the webview and the client (shapes come from src/contract)', () => {
    assert.deepEqual(violations('engine', (s) => s === 'vscode' || reaches('vscode')(s) || reaches('webview')(s) || reaches('api')(s)), []);
  });

  it('keeps src/contract free of every other layer: both sides import it, it imports neither', () => {
    assert.deepEqual(violations('contract', (s) => s === 'vscode' || ['api', 'engine', 'vscode', 'webview'].some((layer) => reaches(layer)(s))), []);
  });

  it('keeps the editor layer off the engine, which it only starts as a process of its own', () => {
    assert.deepEqual(violations('vscode', reaches('engine')), []);
  });

  it('keeps the webview free of Node, vscode, HTTP and the host layers', () => {
    assert.deepEqual(
      violations('webview', (s) => s === 'vscode' || isNodeBuiltin(s) || s === 'undici' || reaches('vscode')(s) || reaches('engine')(s)),
      [],
    );
  });

  it('has no import cycle anywhere in src (type-only imports included)', () => {
    assert.deepEqual(importCycles(allSources()), []);
  });

  it('finds an import cycle when there is one (so the check above can fail)', () => {
    const a = path.join(SRC, 'a.ts');
    const b = path.join(SRC, 'b.ts');
    const c = path.join(SRC, 'c.ts');
    const graph = new Map([[a, [b]], [b, [c]], [c, [a]]]);
    assert.deepEqual(cyclesIn(graph).map((cycle) => cycle.map((file) => path.basename(file))), [['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
  });

  it('finds imports at all (so the checks above cannot pass on an empty reading)', () => {
    assert.ok(importsOf(path.join(SRC, 'extension.ts')).includes('vscode'));
    assert.ok(sourcesOf('api').length > 5 && sourcesOf('engine').length > 5 && sourcesOf('webview').length > 5 && sourcesOf('contract').length > 5 && sourcesOf('conversations').length >= 3);
    assert.ok(sourcesOf('engine').some((file) => importsOf(file).some(reaches('contract'))), 'the engine reads its shapes from src/contract');
  });
});
