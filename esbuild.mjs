// Builds the three bundles: the extension (Node, cjs, `vscode` external), the webview script
// (browser) and the engine CLI (Node). Type-checking is `npm run typecheck`, a separate step.
//   node esbuild.mjs [--production] [--watch] [--only extension|webview|engine]
import * as esbuild from 'esbuild';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';

const args = process.argv.slice(2);
const production = args.includes('--production');
const watch = args.includes('--watch');
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;

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
  webview: {
    ...common,
    entryPoints: ['src/webview/main.ts'],
    outfile: 'dist/webview/webview.js',
    platform: 'browser',
    format: 'iife',
    target: 'chrome120',
  },
  // The engine as a library, loaded by "Use Local Engine" only when chosen.
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
};

const selected = Object.entries(bundles).filter(
  ([name, options]) => (!only || only === name) && existsSync(options.entryPoints[0]),
);
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
if (!only || only === 'webview') {
  mkdirSync('dist/webview', { recursive: true });
  for (const [from, to] of webviewAssets) if (existsSync(from)) copyFileSync(from, to);
}

for (const [, options] of selected) {
  if (watch) {
    const context = await esbuild.context(options);
    await context.watch();
  } else {
    await esbuild.build(options);
  }
}
