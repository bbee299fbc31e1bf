/**
 * What `vsce package` puts in the VSIX (as `vsce ls` lists it from .vscodeignore) must hold every
 * file the packaged code loads: each webview chunk the webview script imports, at once or when an
 * answer needs it (diagrams, syntax colours), and each bundle of the engine the extension starts,
 * whose worker threads and helper process start from files of their own, and the bundle of its
 * messages that `"l10n"` in package.json names. A file left out would
 * break only the installed extension (tests run the unpacked build).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ENTRY_MODULES } from '../../src/engine/runtime/entryPoints';

const ROOT = path.join(__dirname, '..', '..');

describe('the VSIX', function () {
  this.timeout(60_000);
  const webview = path.join(ROOT, 'dist', 'webview');
  let listed: Set<string>;

  before(function () {
    if (!existsSync(path.join(webview, 'webview.js'))) throw new Error('dist/webview/webview.js is missing: run `npm run build` first');
    // vsce walks every file of its folder: it is given a copy of what it may take (as the bench does).
    const staging = mkdtempSync(path.join(tmpdir(), 'vsix-'));
    for (const entry of ['package.json', 'package.nls.json', 'README.md', 'CHANGELOG.md', '.vscodeignore', 'dist', 'media', 'l10n'])
      cpSync(path.join(ROOT, entry), path.join(staging, entry), { recursive: true });
    const listing = execFileSync(process.execPath, [path.join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce'), 'ls', '--no-dependencies'], {
      cwd: staging,
      encoding: 'utf8',
    });
    rmSync(staging, { recursive: true, force: true });
    listed = new Set(
      listing
        .split('\n')
        .map((line) => line.trim().replace(/\\/g, '/'))
        .filter(Boolean),
    );
  });

  it('holds every script of the webview and every chunk they import', function () {
    const scripts = readdirSync(webview, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.js'))
      .map((file) => `dist/webview/${file.replace(/\\/g, '/')}`);
    assert.ok(
      scripts.some((file) => file.includes('/chunks/')),
      'the webview script has chunks',
    );
    assert.deepEqual(
      scripts.filter((file) => !listed.has(file)),
      [],
      'scripts of the webview left out of the VSIX',
    );
    const imported = scripts.flatMap((file) => {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      // esbuild writes the imports of its chunks as relative paths ending in .js.
      return [...text.matchAll(/(?:from\s*|import\s*\(\s*|import\s+)["'](\.{1,2}\/[^"']+\.js)["']/g)].map((match) =>
        path.posix.normalize(path.posix.join(path.posix.dirname(file), match[1])),
      );
    });
    assert.ok(imported.length > 0, 'the webview script imports chunks');
    assert.deepEqual(
      [...new Set(imported)].filter((file) => !listed.has(file)),
      [],
      'chunks imported but not in the VSIX',
    );
    assert.ok(!listed.has('dist/webview/webview.js.map'), 'no source maps');
  });

  it("holds the engine's bundles, its threads' and its helper process's among them", function () {
    const engine = ['engineServer', 'engineHosted', ...ENTRY_MODULES.map((module) => path.posix.basename(module))].map((name) => `dist/${name}.js`);
    for (const file of engine) assert.ok(existsSync(path.join(ROOT, file)), `${file} is built`);
    assert.deepEqual(
      engine.filter((file) => !listed.has(file)),
      [],
      'engine bundles left out of the VSIX',
    );
  });

  it('holds the bundle of messages that package.json names', function () {
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { l10n?: string };
    assert.equal(manifest.l10n, './l10n');
    const bundles = readdirSync(path.join(ROOT, 'l10n')).filter((file) => /^bundle\.l10n(\.[\w-]+)?\.json$/.test(file));
    assert.ok(bundles.includes('bundle.l10n.json'), 'the English bundle exists');
    assert.deepEqual(
      bundles.map((file) => `l10n/${file}`).filter((file) => !listed.has(file)),
      [],
      'bundles of messages left out of the VSIX',
    );
  });
});
