// Builds the three bundles: the extension (Node, cjs, `vscode` external), the webview script
// (browser) and the engine CLI (Node). Type-checking is `npm run typecheck`, a separate step.
//   node esbuild.mjs [--production] [--watch] [--only extension|webview|engine]
import * as esbuild from 'esbuild';
import { existsSync } from 'node:fs';

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
    outfile: 'dist/webview.js',
    platform: 'browser',
    format: 'iife',
    target: 'chrome120',
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

for (const [, options] of selected) {
  if (watch) {
    const context = await esbuild.context(options);
    await context.watch();
  } else {
    await esbuild.build(options);
  }
}
