// Builds the bundles: the extension's activation code (Node, cjs, `vscode` external), its network
// code (loaded on the first connection), the extension for VS Code for the Web (one web-worker
// bundle), the webview script (browser), the engine as a library and the engine CLI, with the
// engine's worker threads and helper process. Type-checking is `npm run typecheck`, a separate step.
//   node esbuild.mjs [--production] [--watch] [--only extension|network|mcp|web|webview|engineServer|engine|openaiModel|engineHosted|searchWorkerThread|regexWorkerThread|processLauncherChild]
import * as esbuild from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

const args = process.argv.slice(2);
const production = args.includes('--production');
const watch = args.includes('--watch');
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;

// Modules that are bundles of their own: another bundle that imports one (statically or with
// `import()`) requires its file at run time instead of carrying a copy. This is how the network code
// stays out of the activation path, and how the engine CLI shares the engine library.
const ownBundles = new Map([
  [path.resolve('src/api/network.ts'), './network.js'],
  [path.resolve('src/api/tools/mcpSession.ts'), './mcp.js'],
  [path.resolve('src/engine/server.ts'), './engineServer.js'],
  [path.resolve('src/engine/models/openaiModel.ts'), './openaiModel.js'],
]);

/**
 * Imports of another bundle's entry module become a `require` of its file, wrapped in a module of
 * this bundle so that esbuild turns an `import()` of it into a lazy `require` (Node and the
 * extension host load these files as CommonJS).
 */
function linkOwnBundles(entryPoint) {
  return {
    name: 'link-own-bundles',
    setup(build) {
      build.onResolve({ filter: /^\./ }, (args) => {
        if (args.namespace === 'own-bundle') return { path: args.path, external: true };
        const module = path.resolve(args.resolveDir, `${args.path}.ts`);
        const target = ownBundles.get(module);
        if (!target || module === path.resolve(entryPoint)) return undefined;
        return { path: target, namespace: 'own-bundle' };
      });
      build.onLoad({ filter: /.*/, namespace: 'own-bundle' }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(args.path)});`,
        loader: 'js',
      }));
    },
  };
}

/**
 * The sources import `undici` (for its types, and whole in tests); the bundles take only the parts
 * of it the client calls (src/api/undiciSubset.cjs), not fetch, WebSocket, caches and the rest.
 */
const undiciSubset = {
  name: 'undici-subset',
  setup(build) {
    build.onResolve({ filter: /^undici$/ }, (args) =>
      args.importer.startsWith(path.resolve('src') + path.sep) ? { path: path.resolve('src/api/undiciSubset.cjs') } : undefined,
    );
  },
};

/**
 * undici carries its HTTP parser (llhttp, WebAssembly) twice: with SIMD, tried first, and without,
 * the fallback it loads when the first fails. The bundles keep the fallback only (72 KB less, for
 * a parser whose speed does not matter to a client of a few requests a second): the SIMD module
 * resolves to nothing, which WebAssembly refuses, and undici goes on with the other.
 */
const undiciOneParser = {
  name: 'undici-one-parser',
  setup(build) {
    build.onResolve({ filter: /llhttp_simd-wasm\.js$/ }, (args) =>
      args.importer.includes(`${path.sep}undici${path.sep}`) ? { path: args.path, namespace: 'undici-no-simd' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'undici-no-simd' }, () => ({ contents: 'module.exports = undefined;', loader: 'js' }));
  },
};

/**
 * Mermaid's parser package loads each of its fifteen grammars with an `import()` of its own: as
 * many chunks again in the webview, past the 100 scripts that `vsce package` accepts before it
 * warns. Imported statically, they make one chunk with the parser, which loads only when an
 * answer draws a diagram that needs one.
 */
const mermaidGrammarsTogether = {
  name: 'mermaid-grammars-together',
  setup(build) {
    build.onLoad({ filter: /[\\/]@mermaid-js[\\/]parser[\\/]dist[\\/]mermaid-parser\.core\.mjs$/ }, async (args) => {
      const imports = [];
      const contents = (await readFile(args.path, 'utf8')).replace(/await import\(("\.\/chunks\/[^"]+")\)/g, (_, specifier) => {
        imports.push(`import * as grammar${imports.length} from ${specifier};`);
        return `grammar${imports.length - 1}`;
      });
      return { contents: `${imports.join('\n')}\n${contents}`, loader: 'js', resolveDir: path.dirname(args.path) };
    });
  },
};

/**
 * The web bundle runs in VS Code for the Web's web-worker extension host, which has no Node and
 * whose `require` knows `vscode` only: nothing of Node or undici may reach it (the client sends
 * with fetch there), and it is one file.
 */
const webWorkerOnly = {
  name: 'web-worker-only',
  setup(build) {
    build.onResolve({ filter: /^(node:.*|undici(\/.*)?|child_process|fs|net|tls|http|https|worker_threads)$/ }, (args) => ({
      errors: [
        {
          text: `${args.path} is Node's (imported by ${path.relative('.', args.importer)}): the web bundle runs in a web worker. Keep it behind the entry's HostPlatform (src/vscode/activation.ts).`,
        },
      ],
    }));
  },
};

const common = {
  bundle: true,
  minify: production,
  sourcemap: !production,
  sourcesContent: false,
  logLevel: 'warning',
  legalComments: 'none',
};

const bundles = {
  extension: {
    ...common,
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
  },
  network: {
    ...common,
    entryPoints: ['src/api/network.ts'],
    outfile: 'dist/network.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  mcp: {
    ...common,
    entryPoints: ['src/api/tools/mcpSession.ts'],
    outfile: 'dist/mcp.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  // VS Code for the Web (package.json `browser`): the whole extension in one web-worker bundle,
  // sending with fetch; loaded by a `require` that knows only `vscode`.
  web: {
    ...common,
    entryPoints: ['src/extensionWeb.ts'],
    outfile: 'dist/web/extension.js',
    platform: 'browser',
    format: 'cjs',
    target: 'es2022',
    external: ['vscode'],
  },
  webview: {
    ...common,
    entryPoints: ['src/webview/main.ts'],
    outdir: 'dist/webview',
    entryNames: 'webview',
    // A module script: what only some answers need (the diagram library, the preview's syntax
    // colours) is split into chunks that the page imports when an answer first needs them.
    format: 'esm',
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    platform: 'browser',
    target: 'chrome120',
  },
  // The engine as a library, shared by the CLI and the engine the extension starts.
  engineServer: {
    ...common,
    entryPoints: ['src/engine/server.ts'],
    outfile: 'dist/engineServer.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  engine: {
    ...common,
    entryPoints: ['src/engine/cli.ts'],
    outfile: 'dist/engine.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
  },
  // The OpenAI-compatible model client of the engine CLI (--model-url), loaded only with that option.
  openaiModel: {
    ...common,
    entryPoints: ['src/engine/models/openaiModel.ts'],
    outfile: 'dist/openaiModel.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  // The engine "Use Local Engine" runs as a child process of the extension host.
  engineHosted: {
    ...common,
    entryPoints: ['src/engine/hosted.ts'],
    outfile: 'dist/engineHosted.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  // The engine's own threads and helper process, each started from its file beside the engine
  // library (src/engine/entryPoints.ts): the search index's worker, the regular expression worker,
  // the process launcher's helper.
  searchWorkerThread: {
    ...common,
    entryPoints: ['src/engine/search/searchWorkerThread.ts'],
    outfile: 'dist/searchWorkerThread.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  regexWorkerThread: {
    ...common,
    entryPoints: ['src/engine/search/regexWorkerThread.ts'],
    outfile: 'dist/regexWorkerThread.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  processLauncherChild: {
    ...common,
    entryPoints: ['src/engine/git/processLauncherChild.ts'],
    outfile: 'dist/processLauncherChild.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
};

const selected = Object.entries(bundles).filter(([name, options]) => (!only || only === name) && existsSync(options.entryPoints[0]));
if (only && selected.length === 0) {
  console.error(`esbuild.mjs: no bundle named "${only}" (or its entry point is missing)`);
  process.exit(2);
}

// The webview's stylesheets and font sit next to its script: its only local resource root.
const webviewAssets = [
  ['media/panel.css', 'dist/webview/panel.css'],
  ['node_modules/@vscode/codicons/dist/codicon.css', 'dist/webview/codicon.css'],
  ['node_modules/@vscode/codicons/dist/codicon.ttf', 'dist/webview/codicon.ttf'],
];
// The engine's parser (web-tree-sitter) and its grammars sit in dist/grammars beside the engine's
// bundles, which read them from there (src/engine/code/grammars.ts: the same list of grammars).
const grammars = ['c-sharp', 'cpp', 'go', 'java', 'javascript', 'php', 'python', 'ruby', 'rust', 'tsx', 'typescript'];
const grammarAssets = ['tree-sitter.wasm', ...grammars.map((id) => `tree-sitter-${id}.wasm`)].map((file) => [
  `node_modules/@vscode/tree-sitter-wasm/wasm/${file}`,
  `dist/grammars/${file}`,
]);
// A full production build starts clean: no source map or bundle of an earlier build is packaged.
if (production && !only) rmSync('dist', { recursive: true, force: true });
if (!only || only === 'webview') {
  mkdirSync('dist/webview', { recursive: true });
  // Chunk names carry their content's hash: those of an earlier build would pile up.
  rmSync('dist/webview/chunks', { recursive: true, force: true });
  for (const [from, to] of webviewAssets) if (existsSync(from)) copyFileSync(from, to);
}
if (!only || only.startsWith('engine')) {
  mkdirSync('dist/grammars', { recursive: true });
  for (const [from, to] of grammarAssets) copyFileSync(from, to);
}

// What each bundle is made of goes to out/meta/<bundle>.json: tests check that the activation
// bundle carries no network or Markdown code, and `npm run bench` reports it.
mkdirSync('out/meta', { recursive: true });
for (const [name, bundle] of selected) {
  const options = {
    ...bundle,
    metafile: true,
    plugins:
      name === 'web'
        ? [webWorkerOnly]
        : [linkOwnBundles(bundle.entryPoints[0]), undiciSubset, undiciOneParser, ...(name === 'webview' ? [mermaidGrammarsTogether] : [])],
  };
  if (watch) {
    const context = await esbuild.context(options);
    await context.watch();
  } else {
    const result = await esbuild.build(options);
    writeFileSync(`out/meta/${name}.json`, JSON.stringify(result.metafile));
  }
}
