/**
 * The engine's modules that run as a thread or a process of their own: the search index's worker,
 * the regular expression worker and the process launcher's helper. Each is an ordinary module of
 * the sources, and a bundle of its own in dist/ named after its file (esbuild.mjs, and .vscodeignore
 * packages it).
 *
 * Where the engine runs from the bundles, this module is part of dist/engineServer.js, so those
 * bundles are beside it. Where it runs from the TypeScript sources (the tests, the benchmarks, under
 * tsx), the modules are under src/engine (this file is in its runtime folder), and the new thread or
 * process loads one with tsx's CommonJS hook: it is not given its parent's options, because a
 * thread of Node 20 does not get the loader that `--import tsx` registers, and a helper process
 * should not get `--inspect` or a heap size.
 */
import { createRequire } from 'node:module';
import path from 'node:path';

/** The modules, by path under src/engine (without `.ts`). */
export const ENTRY_MODULES = ['search/searchWorkerThread', 'search/regexWorkerThread', 'git/processLauncherChild'] as const;

export type EntryModule = (typeof ENTRY_MODULES)[number];

export interface EntryPoint {
  /** The file a thread or process runs. */
  file: string;
  /** Node options it needs, before the file: tsx's hook for a TypeScript file, none for a bundle. */
  nodeOptions: string[];
}

/** Where `module` starts, from the bundles or from the sources, as this engine runs. */
export function entryPoint(module: EntryModule): EntryPoint {
  if (!__filename.endsWith('.ts')) return { file: path.join(__dirname, `${path.basename(module)}.js`), nodeOptions: [] };
  return { file: path.join(__dirname, '..', `${module}.ts`), nodeOptions: ['--require', createRequire(__filename).resolve('tsx/cjs')] };
}
