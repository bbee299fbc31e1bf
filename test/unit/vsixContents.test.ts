/**
 * The VSIX is ready to publish: `vsce package` builds it with no warning,
 * with the Marketplace's and Open VSX's fields (repository, homepage, bugs, a 128×128 icon, banner,
 * categories, keywords, a license file).
 *
 * What `vsce package` puts in the VSIX (as `vsce ls` lists it from .vscodeignore) must hold every
 * file the packaged code loads: each webview chunk the webview script imports, at once or when an
 * answer needs it (diagrams, syntax colours), and each bundle of the engine the extension starts,
 * whose worker threads and helper process start from files of their own, and the bundle of its
 * messages that `"l10n"` in package.json names. A file left out would
 * break only the installed extension (tests run the unpacked build).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ENTRY_MODULES } from '../../src/engine/runtime/entryPoints';

const ROOT = path.join(__dirname, '..', '..');

describe('the VSIX', function () {
  this.timeout(60_000);
  const webview = path.join(ROOT, 'dist', 'webview');
  let listed: Set<string>;
  let packaging: { status: number | null; output: string };

  before(function () {
    if (!existsSync(path.join(webview, 'webview.js'))) throw new Error('dist/webview/webview.js is missing: run `npm run build` first');
    // vsce walks every file of its folder: it is given a copy of what it may take (as the bench does).
    const staging = mkdtempSync(path.join(tmpdir(), 'vsix-'));
    for (const entry of ['package.json', 'package.nls.json', 'README.md', 'CHANGELOG.md', 'LICENSE', '.vscodeignore', 'dist', 'media', 'l10n'])
      cpSync(path.join(ROOT, entry), path.join(staging, entry), { recursive: true });
    const listing = execFileSync(process.execPath, [path.join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce'), 'ls', '--no-dependencies'], {
      cwd: staging,
      encoding: 'utf8',
    });
    const packaged = spawnSync(
      process.execPath,
      [path.join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce'), 'package', '--no-dependencies', '--out', path.join(staging, 'test.vsix')],
      {
        cwd: staging,
        encoding: 'utf8',
      },
    );
    packaging = { status: packaged.status, output: `${packaged.stdout}\n${packaged.stderr}` };
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

  it("holds both entry points, the Node one and VS Code for the Web's, and leaves out the engine CLI the extension never runs", function () {
    for (const file of ['dist/extension.js', 'dist/web/extension.js']) {
      assert.ok(existsSync(path.join(ROOT, file)), `${file} is built`);
      assert.ok(listed.has(file), `${file} is in the VSIX`);
    }
    // The extension starts dist/engineHosted.js; the CLI (dist/engine.js) is `npm run engine`'s.
    assert.ok(!listed.has('dist/engine.js'), 'the engine CLI is not packaged');
    assert.ok(!listed.has('dist/web/extension.js.map'), 'no source maps');
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

  it('is packaged by vsce with no error and no warning', function () {
    assert.equal(packaging.status, 0, packaging.output);
    // Among them: more than 100 scripts (the webview's chunks count; see mermaidGrammarsTogether in esbuild.mjs).
    assert.deepEqual(
      packaging.output.split('\n').filter((line) => /\b(WARNING|ERROR)\b/.test(line)),
      [],
    );
  });

  it('has what the Marketplace and Open VSX show: links, a 128×128 icon, banner, categories, keywords, license', function () {
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      icon: string;
      repository: { url: string };
      homepage: string;
      bugs: { url: string };
      galleryBanner: { color: string; theme: string };
      categories: string[];
      keywords: string[];
    };
    assert.match(manifest.repository.url, /^https:\/\//);
    assert.match(manifest.homepage, /^https:\/\//);
    assert.match(manifest.bugs.url, /^https:\/\//);
    assert.match(manifest.galleryBanner.color, /^#[0-9a-f]{6}$/i);
    assert.ok(['dark', 'light'].includes(manifest.galleryBanner.theme));
    for (const category of ['AI', 'Chat']) assert.ok(manifest.categories.includes(category), `category ${category}`);
    assert.ok(manifest.keywords.length > 0 && manifest.keywords.length <= 30, 'keywords (vsce takes 30 at most)');
    const icon = readFileSync(path.join(ROOT, manifest.icon));
    assert.equal(icon.subarray(1, 4).toString('latin1'), 'PNG', 'the icon is a PNG (the Marketplace refuses SVG icons)');
    assert.deepEqual([icon.readUInt32BE(16), icon.readUInt32BE(20)], [128, 128], "the icon's size");
    assert.ok(listed.has(manifest.icon), 'the icon is in the VSIX');
    assert.ok(listed.has('LICENSE'), 'the license file is in the VSIX');
  });

  it("holds the walkthrough's pictures", function () {
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      contributes: { walkthroughs: { steps: { id: string; media: { image: string } }[] }[] };
    };
    const pictures = manifest.contributes.walkthroughs.flatMap((walkthrough) => walkthrough.steps.map((step) => step.media.image));
    assert.equal(pictures.length, 6);
    for (const picture of pictures) assert.ok(existsSync(path.join(ROOT, picture)), `${picture} exists`);
    assert.deepEqual(
      pictures.filter((picture) => !listed.has(picture)),
      [],
      'pictures of the walkthrough left out of the VSIX',
    );
  });
});
