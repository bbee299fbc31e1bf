/**
 * What users download: the production bundles (bench/run.ts builds them) and the VSIX that
 * `vsce package` makes of them (what goes in is listed in .vscodeignore): the desktop's JavaScript
 * and VS Code for the Web's (dist/web/extension.js, its one bundle) counted apart, of which the engine's
 * grammars (tree-sitter, WASM) are a part; and what those grammars cost the engine's memory once
 * loaded (the extension's own bundle loads none of them).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { kb, type BenchContext, type Figure, type Row } from '../report';

/** What `vsce` may take (.vscodeignore then narrows it): copied out, since vsce walks every file of its folder. */
const PACKAGED = ['package.json', 'package.nls.json', 'README.md', 'CHANGELOG.md', 'LICENSE', '.vscodeignore', 'dist', 'media', 'l10n'];

async function run(context: BenchContext): Promise<Row[]> {
  const staging = path.join(context.scratch, 'package');
  for (const entry of PACKAGED) cpSync(path.join(context.root, entry), path.join(staging, entry), { recursive: true });
  const vsix = path.join(context.scratch, 'deep-search.vsix');
  // The README's relative links (its picture) stay relative: VS Code shows them from the installed extension.
  execFileSync(
    process.execPath,
    [path.join(context.root, 'node_modules', '@vscode', 'vsce', 'vsce'), 'package', '--no-dependencies', '--no-rewrite-relative-links', '--out', vsix],
    {
      cwd: staging,
      stdio: 'pipe',
    },
  );
  const dist = path.join(context.root, 'dist');
  // The bundles the VSIX holds (as `vsce ls` lists them), and those it leaves out (the engine CLI's own).
  const packaged = new Set(
    execFileSync(process.execPath, [path.join(context.root, 'node_modules', '@vscode', 'vsce', 'vsce'), 'ls', '--no-dependencies'], {
      cwd: staging,
      encoding: 'utf8',
    })
      .split('\n')
      .map((line) => line.trim().replace(/\\/g, '/')),
  );
  const all = readdirSync(dist, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.js'))
    .map((file) => ({ file: file.replace(/\\/g, '/'), bytes: statSync(path.join(dist, file)).size }))
    .sort((a, b) => b.bytes - a.bytes);
  // The diagram library (Mermaid) is the one part loaded only on demand, and large: counted apart.
  const diagrams = diagramLibrary(path.join(dist, 'webview'));
  const inVsix = all.filter((bundle) => packaged.has(`dist/${bundle.file}`));
  // VS Code for the Web loads its own bundle and nothing else of dist/ but the webview's: a figure of its own.
  const web = inVsix.filter((bundle) => bundle.file.startsWith('web/'));
  const webBytes = web.reduce((sum, bundle) => sum + bundle.bytes, 0);
  const webPacked = web.reduce((sum, bundle) => sum + deflateRawSync(readFileSync(path.join(dist, bundle.file)), { level: 9 }).length, 0);
  const bundles = inVsix.filter((bundle) => !diagrams.has(bundle.file) && !bundle.file.startsWith('web/'));
  const diagramBundles = inVsix.filter((bundle) => diagrams.has(bundle.file));
  const diagramBytes = diagramBundles.reduce((sum, bundle) => sum + bundle.bytes, 0);
  const diagramPacked = diagramBundles.reduce((sum, bundle) => sum + deflateRawSync(readFileSync(path.join(dist, bundle.file)), { level: 9 }).length, 0);
  const leftOut = all.filter((bundle) => !packaged.has(`dist/${bundle.file}`));
  const total = bundles.reduce((sum, bundle) => sum + bundle.bytes, 0);
  // Chunks are many and small: listed by their bundle, the webview's summed.
  const shown = [
    ...bundles.filter((bundle) => !bundle.file.startsWith('webview/chunks/')),
    {
      file: 'webview/chunks/* (syntax colours, shared)',
      bytes: bundles.filter((bundle) => bundle.file.startsWith('webview/chunks/')).reduce((sum, bundle) => sum + bundle.bytes, 0),
    },
  ];
  const vsixBytes = statSync(vsix).size;
  const grammarsDir = path.join(dist, 'grammars');
  const grammars = readdirSync(grammarsDir)
    .filter((file) => file.endsWith('.wasm'))
    .map((file) => {
      const bytes = readFileSync(path.join(grammarsDir, file));
      // As the VSIX (a zip) stores it: deflated.
      return { file, bytes: bytes.length, packed: deflateRawSync(bytes, { level: 9 }).length };
    });
  const grammarsPacked = grammars.reduce((sum, grammar) => sum + grammar.packed, 0);
  const grammarsBytes = grammars.reduce((sum, grammar) => sum + grammar.bytes, 0);
  const extensionLoadsGrammars = readFileSync(path.join(dist, 'extension.js'), 'utf8').includes('tree-sitter');
  // The pictures of the README and the walkthrough (JPEGs: stored as they are).
  const pictures = readdirSync(path.join(context.root, 'media'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.jpg'))
    .reduce((sum, file) => sum + statSync(path.join(context.root, 'media', file)).size, 0);
  const memory = grammarMemory(context.root);
  return [
    {
      figure: 'package: all JavaScript of the VSIX but the diagram library and the web bundle (minified bundles: what desktop and remote VS Code load)',
      measured:
        `${kb(total)}: ${shown.map((bundle) => `${bundle.file} ${kb(bundle.bytes)}`).join(', ')}` +
        (leftOut.length > 0 ? `; not in the VSIX: ${leftOut.map((bundle) => `${bundle.file} ${kb(bundle.bytes)}`).join(', ')}` : ''),
      baseline: '—',
      goal: '≤ 1.2 MB',
      met: total <= 1.2 * 1024 * 1024,
      data: { bundles, leftOut },
    },
    {
      figure:
        "package: the web bundle's JavaScript (VS Code for the Web's web worker: dist/web/extension.js, the whole extension with fetch instead of undici)",
      measured: `${kb(webBytes)} (${kb(webPacked)} deflated in the VSIX)`,
      baseline: 'the activation bundle and dist/network.js together, which it replaces',
      goal: '≤ 300 KB',
      met: web.length === 1 && webBytes <= 300 * 1024,
      data: { bytes: webBytes, packed: webPacked },
    },
    {
      figure: 'package: the diagram library (Mermaid), loaded only for an answer with a diagram',
      measured: `${kb(diagramBytes)} in ${diagramBundles.length} chunks (${kb(diagramPacked)} deflated in the VSIX)`,
      baseline: '—',
      goal: 'never loaded without a diagram (figure "rendering")',
      data: { bytes: diagramBytes, packed: diagramPacked, chunks: diagramBundles.length },
    },
    {
      figure:
        'package: VSIX without the grammars, the diagram library, the web bundle and the pictures of the README and the walkthrough (vsce package: what desktop and remote VS Code install besides)',
      measured: `${kb(vsixBytes - grammarsPacked - diagramPacked - webPacked - pictures)} (the pictures ${kb(pictures)}, the web bundle ${kb(webPacked)})`,
      baseline: '—',
      goal: '≤ 600 KB',
      met: vsixBytes - grammarsPacked - diagramPacked - webPacked - pictures <= 600 * 1024,
      data: { bytes: vsixBytes - grammarsPacked - diagramPacked - webPacked - pictures, pictures, web: webPacked },
    },
    {
      figure: "package: what the engine's grammars add to the VSIX (11 languages and the parser, deflated)",
      measured: `${kb(grammarsPacked)} (${kb(grammarsBytes)} on disk); VSIX ${kb(vsixBytes)} in all`,
      baseline: '—',
      goal: "≤ 8 MB, and the extension's bundle loads none",
      met: grammarsPacked <= 8 * 1024 * 1024 && !extensionLoadsGrammars,
      data: { grammars, vsixBytes, extensionLoadsGrammars },
    },
    {
      figure: 'engine memory: the parser and every grammar loaded, one file of each language parsed (RSS)',
      measured: `+${kb(memory.all)}; a JavaScript-only repository +${kb(memory.javascript)}`,
      baseline: 'the engine before any parse',
      goal: '—',
      data: memory,
    },
  ];
}

/**
 * The webview chunks only the diagram renderer needs: those its dynamic import reaches that the
 * page's own script does not load at once (paths relative to dist, as `webview/chunks/x.js`).
 */
function diagramLibrary(webview: string): Set<string> {
  const imports = (file: string, dynamic: boolean): string[] => {
    const text = readFileSync(path.join(webview, file), 'utf8');
    const pattern = dynamic ? /import\s*\(\s*["'](\.{1,2}\/[^"']+\.js)["']/g : /(?:from\s*|import\s+)["'](\.{1,2}\/[^"']+\.js)["']/g;
    return [...text.matchAll(pattern)].map((match) => path.posix.normalize(path.posix.join(path.posix.dirname(file), match[1])));
  };
  const closure = (roots: string[]): Set<string> => {
    const seen = new Set<string>();
    const stack = [...roots];
    while (stack.length > 0) {
      const file = stack.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      // What a chunk imports at once, and what it may import later (Mermaid loads each diagram type so).
      stack.push(...imports(file, false), ...(file === 'webview.js' ? [] : imports(file, true)));
    }
    return seen;
  };
  const eager = closure(['webview.js']);
  const renderer = readdirSync(path.join(webview, 'chunks')).find((file) => /^diagramRenderer-.*\.js$/.test(file));
  if (!renderer) throw new Error('no diagram renderer chunk in dist/webview/chunks');
  return new Set([...closure([`chunks/${renderer}`])].filter((file) => !eager.has(file)).map((file) => `webview/${file}`));
}

/** One small source file per language the engine parses. */
const SAMPLES: Record<string, string> = {
  'a.ts': 'export function f(a: number): number { return a; }',
  'a.tsx': 'export const C = () => <div />;',
  'a.js': 'function f(a) { return a; }',
  'a.py': 'def f(a):\n    return a\n',
  'a.go': 'package a\nfunc F(a int) int { return a }\n',
  'a.java': 'class A { int f(int a) { return a; } }',
  'a.rs': 'fn f(a: i32) -> i32 { a }',
  'a.cpp': 'int f(int a) { return a; }',
  'a.cs': 'class A { int F(int a) { return a; } }',
  'a.rb': 'def f(a)\n  a\nend\n',
  'a.php': '<?php function f($a) { return $a; }',
};

/**
 * How much the engine's resident memory grows with the parser and its grammars: measured in a fresh
 * Node process (so nothing else of the bench is in it), after a full garbage collection each time.
 */
function grammarMemory(root: string): { all: number; javascript: number } {
  const script = `
    const { findDefinitions } = require(${JSON.stringify(path.join(root, 'src', 'engine', 'code', 'definitions.ts'))});
    const samples = ${JSON.stringify(SAMPLES)};
    (async () => {
      const rss = () => { global.gc(); global.gc(); return process.memoryUsage().rss; };
      const before = rss();
      await findDefinitions('a.js', samples['a.js']);
      const javascript = rss() - before;
      for (const [file, text] of Object.entries(samples)) await findDefinitions(file, text);
      process.stdout.write(JSON.stringify({ all: rss() - before, javascript }));
    })();`;
  const output = execFileSync(process.execPath, ['--expose-gc', '--require', 'tsx/cjs', '-e', script], { cwd: root, encoding: 'utf8' });
  return JSON.parse(output) as { all: number; javascript: number };
}

export const packageFigure: Figure = { id: 'package', title: 'Package size', run };
