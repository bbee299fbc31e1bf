/**
 * Which tree-sitter grammar a file is parsed with, and loading them: the runtime (web-tree-sitter,
 * as `@vscode/tree-sitter-wasm` ships it) is started on the first parse, and each grammar's WASM
 * only when a file of its language is first parsed, so a repository costs only the grammars of the
 * languages it has.
 *
 * The WASM files are read from `grammars/` beside the bundle (dist/grammars, copied there by
 * esbuild.mjs) or, running from the sources, from the package's own folder in node_modules.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type * as TreeSitter from '@vscode/tree-sitter-wasm';

/** The grammars the engine uses: esbuild.mjs copies `tree-sitter-<id>.wasm` for each of these. */
export const GRAMMARS = ['c-sharp', 'cpp', 'go', 'java', 'javascript', 'php', 'python', 'ruby', 'rust', 'tsx', 'typescript'] as const;
export type GrammarId = (typeof GRAMMARS)[number];

/** By file extension (lower case). C is parsed with the C++ grammar, which accepts it. */
const GRAMMAR_BY_EXTENSION: ReadonlyMap<string, GrammarId> = new Map<string, GrammarId>([
  ...(['.c', '.h', '.cc', '.cpp', '.cxx', '.c++', '.hpp', '.hh', '.hxx', '.h++', '.inl'] as const).map((ext) => [ext, 'cpp'] as const),
  ...(['.cs'] as const).map((ext) => [ext, 'c-sharp'] as const),
  ...(['.go'] as const).map((ext) => [ext, 'go'] as const),
  ...(['.java'] as const).map((ext) => [ext, 'java'] as const),
  ...(['.js', '.mjs', '.cjs', '.jsx'] as const).map((ext) => [ext, 'javascript'] as const),
  ...(['.php'] as const).map((ext) => [ext, 'php'] as const),
  ...(['.py', '.pyi'] as const).map((ext) => [ext, 'python'] as const),
  ...(['.rb', '.rake'] as const).map((ext) => [ext, 'ruby'] as const),
  ...(['.rs'] as const).map((ext) => [ext, 'rust'] as const),
  ...(['.tsx'] as const).map((ext) => [ext, 'tsx'] as const),
  ...(['.ts', '.mts', '.cts'] as const).map((ext) => [ext, 'typescript'] as const),
]);

/** The grammar a file of this path is parsed with, or undefined when there is none for its language. */
export function grammarFor(filePath: string): GrammarId | undefined {
  return GRAMMAR_BY_EXTENSION.get(path.extname(filePath).toLowerCase());
}

type Runtime = typeof TreeSitter;

/** A loaded grammar with the one parser the engine uses for it (parsing is synchronous, so one suffices). */
export interface Grammar {
  readonly id: GrammarId;
  readonly runtime: Runtime;
  readonly language: TreeSitter.Language;
  readonly parser: TreeSitter.Parser;
}

/*
 * Process-wide on purpose, not per engine: what is kept here is the tree-sitter runtime and the
 * loaded grammars, which depend only on the WASM files shipped with the engine, hold nothing of a
 * repository or a request, and never change once loaded (at most one per grammar in GRAMMARS, so
 * the cache is bounded). Two engines in one process share them as they share the code itself; the
 * one parser per grammar is used synchronously (a parse never yields), so sharing it is safe too
 * (definitions.ts resets it after a stopped parse). What reading repositories keeps per engine is
 * in repo/repoCaches.ts.
 */
let runtime: Promise<Runtime> | undefined;
const grammars = new Map<GrammarId, Promise<Grammar>>();
const loaded = new Set<GrammarId>();

/** The grammar, loaded on first use; every later call gets the same one. */
export function loadGrammar(id: GrammarId): Promise<Grammar> {
  let grammar = grammars.get(id);
  if (!grammar) {
    grammar = load(id);
    grammars.set(id, grammar);
  }
  return grammar;
}

/** The grammars loaded so far in this process (for tests and diagnostics). */
export function loadedLanguages(): GrammarId[] {
  return [...loaded].sort();
}

async function load(id: GrammarId): Promise<Grammar> {
  const treeSitter = await startRuntime();
  const language = await treeSitter.Language.load(path.join(wasmFolder(), `tree-sitter-${id}.wasm`));
  const parser = new treeSitter.Parser();
  parser.setLanguage(language);
  loaded.add(id);
  return { id, runtime: treeSitter, language, parser };
}

function startRuntime(): Promise<Runtime> {
  runtime ??= (async () => {
    // Imported here, not at the top: whoever imports this module pays for the runtime only when it parses.
    const module = (await import('@vscode/tree-sitter-wasm')) as Runtime & { default?: Runtime };
    // A CommonJS module: under esbuild its exports are the namespace's, under Node's own loader its `default`.
    const treeSitter = module.default ?? module;
    const folder = wasmFolder();
    await treeSitter.Parser.init({ locateFile: (file: string) => path.join(folder, file) });
    return treeSitter;
  })();
  return runtime;
}

let folder: string | undefined;

/** dist/grammars beside the bundle, or the package's wasm folder when running from the sources. */
function wasmFolder(): string {
  if (folder) return folder;
  const bundled = path.join(__dirname, 'grammars');
  // Resolved at run time, not by the bundler: a bundle finds its own copy first.
  folder = existsSync(path.join(bundled, 'tree-sitter.wasm')) ? bundled : path.dirname(createRequire(__filename).resolve('@vscode/tree-sitter-wasm'));
  return folder;
}
