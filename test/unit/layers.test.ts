/**
 * The layering of DESIGN.md, checked on the sources: the domain model (`src/model`) and the
 * contract on the ground floor, the client (`src/api`) and the engine beside each other on plain
 * Node sharing only the contract, the conversation store above the client, the editor layer and
 * the webview on top and apart; imports only point down, and no file imports itself in a cycle.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import * as path from 'node:path';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { LAYER_RULES, layerLintConfig, type LayerRule } from '../../layers.mjs';

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

/**
 * Where an import lands: for a relative one, the folder (or root module, as `protocol`) of src it
 * resolves into, prefixed `src/`; else the package (`vscode`, `node:fs`, `undici`).
 */
function targetOf(file: string, specifier: string): string {
  if (!specifier.startsWith('.')) return specifier;
  const inSrc = path.relative(SRC, path.resolve(path.dirname(file), specifier));
  return `src/${inSrc.split(path.sep)[0].replace(/\.ts$/, '')}`;
}

/**
 * Where an import lands for a rule: for a folder of src, as `targetOf`; for a folder of the engine
 * (`engine/search`), the engine's folder or root module it resolves into (`src/engine/answers`).
 */
function targetFor(layer: string, file: string, specifier: string): string {
  const within = layer.includes('/') ? layer.slice(0, layer.indexOf('/')) : undefined;
  if (!within || !specifier.startsWith('.')) return targetOf(file, specifier);
  const inParent = path.relative(path.join(SRC, within), path.resolve(path.dirname(file), specifier));
  if (inParent.startsWith('..')) return targetOf(file, specifier);
  return `src/${within}/${inParent.split(path.sep)[0].replace(/\.ts$/, '')}`;
}

function violations(layer: string, forbidden: (target: string) => boolean): string[] {
  return sourcesOf(layer).flatMap((file) =>
    importsOf(file)
      .filter((specifier) => forbidden(targetFor(layer, file, specifier)))
      .map((specifier) => `${path.relative(SRC, file)} imports ${specifier}`),
  );
}

/**
 * Imports each rule must refuse (from a file directly in the folder), so that no rule passes by
 * matching nothing; the lint is given the same ones.
 */
const SEEDED: Readonly<Record<string, readonly string[]>> = {
  model: ['vscode', 'node:fs', '../api/client', '../conversations/conversationStore', '../contract/legacyWire', '../protocol'],
  contract: ['vscode', '../api/errors', '../engine/server', '../model/conversation'],
  api: ['vscode', '../vscode/session', '../conversations/conversationStore', '../engine/server', '../webview/main'],
  conversations: ['vscode', '../vscode/session', '../engine/server', '../webview/main'],
  engine: ['vscode', '../api/client', '../conversations/conversationStore', '../model/conversation', '../webview/main'],
  vscode: ['../engine/server', '../engine/hosted', '../webview/l10n'],
  webview: ['vscode', 'fs', 'node:path', 'undici', '../api/errors', '../vscode/session', '../engine/server'],
  // The engine's floors: an import of a floor above (or of a sibling on the same floor).
  'engine/messages': ['../runtime/slots', '../search/query', '../server'],
  'engine/runtime': ['../http/http', '../git/git', '../answers/answerer'],
  'engine/http': ['../oauth/issuedTokens', '../options', '../conversations/routes'],
  'engine/models': ['../cliArgs', '../answers/investigation', '../http/auth'],
  'engine/storage': ['../git/git', '../conversations/storage', '../search/searchIndex'],
  'engine/git': ['../storage/atomicFile', '../repo/paths', '../server'],
  'engine/code': ['../search/query', '../repo/paths', '../tools/toolCalls'],
  'engine/search': ['../code/definitions', '../tools/context', '../repo/context', '../answers/answerer'],
  'engine/oauth': ['../search/query', '../options', '../conversations/routes'],
  'engine/repo': ['../tools/toolCalls', '../answers/answerer', '../mcp/server', '../server'],
  'engine/tools': ['../answers/retrieval', '../answers/investigation', '../mcp/jsonRpc', '../options'],
  'engine/answers': ['../options', '../conversations/records', '../mcp/protocol', '../server'],
  'engine/conversations': ['../mcp/server', '../server', '../cli'],
  'engine/mcp': ['../conversations/routes', '../server', '../hosted'],
};

function forbids(rule: LayerRule, target: string): boolean {
  if (rule.notPackages.includes(target) || (rule.noNode && isNodeBuiltin(target))) return true;
  const within = rule.layer.includes('/') ? `${rule.layer.slice(0, rule.layer.indexOf('/'))}/` : '';
  return rule.notLayers.some((layer) => target === `src/${within}${layer}`);
}

const isEditor = (target: string) => target === 'vscode' || target === 'src/vscode' || target === 'src/extension';
const isBrowserUnsafe = (target: string) => isNodeBuiltin(target) || target === 'undici';

describe('layers', () => {
  for (const rule of LAYER_RULES) {
    it(`keeps src/${rule.layer} to its floor: ${rule.says}`, () => {
      assert.deepEqual(
        violations(rule.layer, (target) => forbids(rule, target)),
        [],
      );
      const seededFile = path.join(SRC, rule.layer, 'seeded.ts');
      assert.ok(SEEDED[rule.layer]?.length, `seeded imports for src/${rule.layer}`);
      for (const specifier of SEEDED[rule.layer])
        assert.ok(forbids(rule, targetFor(rule.layer, seededFile, specifier)), `src/${rule.layer} importing ${specifier} is refused`);
    });
  }

  it('keeps what the webview may import browser-safe: src/model and the pure modules of src/conversations it uses', () => {
    const used = sourcesOf('webview').flatMap((file) =>
      importsOf(file)
        .filter((specifier) => targetOf(file, specifier) === 'src/conversations')
        .map((specifier) => `${path.resolve(path.dirname(file), specifier)}.ts`),
    );
    assert.ok(used.length > 0, 'the webview uses the citations of src/conversations');
    for (const module of new Set(used)) {
      const refused = importsOf(module).filter((specifier) => {
        const target = targetOf(module, specifier);
        return isEditor(target) || isBrowserUnsafe(target) || target === 'src/api' || specifier.endsWith('/conversationStore');
      });
      assert.deepEqual(refused, [], `${path.relative(SRC, module)} is imported by the webview`);
    }
  });

  it('has no import cycle anywhere in src (type-only imports included)', () => {
    assert.deepEqual(importCycles(allSources()), []);
  });

  it('finds an import cycle when there is one (so the check above can fail)', () => {
    const a = path.join(SRC, 'a.ts');
    const b = path.join(SRC, 'b.ts');
    const c = path.join(SRC, 'c.ts');
    const graph = new Map([
      [a, [b]],
      [b, [c]],
      [c, [a]],
    ]);
    assert.deepEqual(
      cyclesIn(graph).map((cycle) => cycle.map((file) => path.basename(file))),
      [['a.ts', 'b.ts', 'c.ts', 'a.ts']],
    );
  });

  it('finds imports at all (so the checks above cannot pass on an empty reading)', () => {
    assert.ok(importsOf(path.join(SRC, 'extension.ts')).includes('vscode'));
    for (const rule of LAYER_RULES) assert.ok(sourcesOf(rule.layer).length >= 2, `src/${rule.layer} has sources`);
    assert.ok(
      sourcesOf('engine').some((file) => importsOf(file).some((specifier) => targetOf(file, specifier) === 'src/contract')),
      'the engine reads its shapes from src/contract',
    );
    assert.equal(targetFor('engine/answers', path.join(SRC, 'engine', 'answers', 'answerer.ts'), '../repo/retrieval'), 'src/engine/repo');
    assert.equal(targetFor('engine/answers', path.join(SRC, 'engine', 'answers', 'answerer.ts'), '../options'), 'src/engine/options');
    assert.equal(
      targetOf(path.join(SRC, 'engine', 'answers', 'answerer.ts'), '../conversations/records'),
      'src/engine',
      "the engine's own conversations folder is the engine",
    );
    assert.equal(targetOf(path.join(SRC, 'webview', 'main.ts'), '../protocol'), 'src/protocol');
  });
});

describe('layers in the lint', () => {
  // The layer rules alone (layers.mjs), as eslint.config.mjs gives them, on sources written here.
  const eslint = new ESLint({
    cwd: path.join(SRC, '..'),
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, ...(layerLintConfig() as Linter.Config[])],
  });
  const refused = async (file: string, specifier: string): Promise<boolean> => {
    const [result] = await eslint.lintText(`import '${specifier}';\n`, { filePath: path.join(SRC, file) });
    return result.messages.some((message) => message.ruleId === 'no-restricted-imports');
  };

  for (const rule of LAYER_RULES) {
    it(`refuses each seeded import of src/${rule.layer}, at any depth of the folder`, async () => {
      for (const specifier of SEEDED[rule.layer]) {
        assert.ok(await refused(`${rule.layer}/seeded.ts`, specifier), `src/${rule.layer}/seeded.ts importing ${specifier}`);
        if (specifier.startsWith('../'))
          assert.ok(await refused(`${rule.layer}/deeper/seeded.ts`, `../${specifier}`), `src/${rule.layer}/deeper/seeded.ts importing ../${specifier}`);
      }
    });
  }

  it('tells a folder of the engine from the layer of the same name, and lets allowed imports through', async () => {
    // The engine's conversations are on a floor above its answers; the conversation store is another layer.
    assert.equal(await refused('engine/conversations/seeded.ts', '../answers/answerShapes'), false);
    assert.equal(await refused('engine/answers/seeded.ts', '../conversations/records'), true);
    assert.equal(await refused('engine/answers/seeded.ts', '../../conversations/conversationStore'), true);
    assert.equal(await refused('engine/answers/seeded.ts', '../repo/retrieval'), false);
    assert.equal(await refused('engine/answers/deeper/seeded.ts', '../../repo/retrieval'), false);
    assert.equal(await refused('conversations/seeded.ts', '../api/client'), false);
    assert.equal(await refused('webview/seeded.ts', '../model/linkTarget'), false);
    assert.equal(await refused('extension.ts', './engine/server'), true);
    assert.equal(await refused('extension.ts', './vscode/session'), false);
  });
});
