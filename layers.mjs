// The layers of DESIGN.md: each folder of src and what it may not import. One table, read by the
// lint (eslint.config.mjs turns it into import rules) and by the layer test (test/unit/layers.test.ts
// checks the same on the sources, resolving every import), so the two cannot drift apart.

import { builtinModules } from 'node:module';

/** @typedef {import("./layers.d.mts").LayerRule} LayerRule */

/**
 * The engine's own floors, lowest first: each folder imports only from floors below it (a folder's
 * name in `notLayers` is a sibling in src/engine). Root modules of the engine: `options` and
 * `cliArgs` sit with the answers, `server` above every folder, `cli` and `hosted` on top.
 */
export const ENGINE_FLOORS = [
  { folders: ['messages', 'runtime', 'http', 'models'], says: 'the ground: words, turns and slots, HTTP plumbing, model clients' },
  { folders: ['storage', 'git'], says: 'the data folder, and git with its process launcher' },
  { folders: ['code', 'search', 'oauth'], says: 'what a file is, the index and query language, the authorization server' },
  { folders: ['repo'], says: 'reading a repository: context, paths, blocks, grep, file ranking, retrieval for a question' },
  { folders: ['tools'], says: 'the tools, one file per tool family, and their catalogue' },
  { folders: ['answers', 'options', 'cliArgs'], says: "how an answer is made, the engine's options" },
  { folders: ['conversations', 'mcp'], says: 'the doors: both conversation APIs, the MCP transport and server' },
  { folders: ['server'], says: 'the wiring' },
  { folders: ['cli', 'hosted'], says: 'the entry points' },
];

/** @type {LayerRule[]} */
export const LAYER_RULES = [
  {
    layer: 'model',
    says: 'The domain model is the ground floor: it imports no other layer, no editor and no Node.',
    notLayers: ['api', 'conversations', 'contract', 'engine', 'vscode', 'extension', 'webview', 'protocol', 'format'],
    notPackages: ['vscode', 'undici'],
    noNode: true,
  },
  {
    layer: 'contract',
    says: 'The contract holds what client and engine share: it imports neither side, nor the model.',
    notLayers: ['api', 'conversations', 'model', 'engine', 'vscode', 'extension', 'webview', 'protocol'],
    notPackages: ['vscode'],
    noNode: false,
  },
  {
    layer: 'api',
    says: 'The client runs on plain Node and knows nothing of the conversation store, the editor, the engine or the webview.',
    notLayers: ['conversations', 'engine', 'vscode', 'extension', 'webview', 'protocol'],
    notPackages: ['vscode'],
    noNode: false,
  },
  {
    layer: 'conversations',
    says: 'The conversation store runs on plain Node, below the editor and the webview.',
    notLayers: ['engine', 'vscode', 'extension', 'webview', 'protocol'],
    notPackages: ['vscode'],
    noNode: false,
  },
  {
    layer: 'engine',
    says: 'The engine runs on plain Node and shares only the contract with the client.',
    notLayers: ['api', 'conversations', 'model', 'vscode', 'extension', 'webview', 'protocol', 'format'],
    notPackages: ['vscode'],
    noNode: false,
  },
  {
    layer: 'vscode',
    says: 'The editor layer starts the engine as a process of its own, and talks to the webview through protocol.ts only.',
    notLayers: ['engine', 'webview'],
    notPackages: [],
    noNode: false,
  },
  {
    layer: 'webview',
    says: 'The webview runs in a browser frame: no Node, no editor API, no HTTP, nothing of the client, the engine or the host.',
    notLayers: ['api', 'engine', 'vscode', 'extension'],
    notPackages: ['vscode', 'undici'],
    noNode: true,
  },
  ...engineFloors(),
];

/** A rule for each folder of the engine: nothing from its own floor (but itself) or above. */
function engineFloors() {
  return ENGINE_FLOORS.flatMap((floor, level) => {
    const above = ENGINE_FLOORS.slice(level + 1).flatMap((higher) => higher.folders);
    return floor.folders
      .filter((folder) => !['options', 'cliArgs', 'server', 'cli', 'hosted'].includes(folder))
      .map((folder) => ({
        layer: `engine/${folder}`,
        says: `src/engine/${folder} stands on the engine's floor of ${floor.says}: it imports only from floors below it (layers.mjs).`,
        notLayers: [...floor.folders.filter((sibling) => sibling !== folder), ...above],
        notPackages: ['vscode'],
        noNode: false,
      }));
  });
}

/** How deep under a layer's folder the lint looks for files (src/engine/search/x.ts is depth 1). */
const MAX_DEPTH = 5;

/**
 * The layers as import rules. A specifier names a folder of src by how many `../` it
 * climbs, which depends on how deep the importing file sits, so there is one block per depth: from
 * src/engine/answers/x.ts, `../conversations` is the engine's own folder and `../../conversations`
 * is the conversation store.
 */
export function layerLintConfig() {
  // A folder's file is governed by its own rule and by every rule of a folder it sits in (a file of
  // src/engine/search by the engine's floors and by the engine's layer): ESLint keeps only the last
  // block that sets a rule for a file, so each block carries the restrictions of all of them.
  const restrictions = (rule, depth) => {
    const parent = rule.layer.includes('/') ? LAYER_RULES.find((other) => other.layer === rule.layer.slice(0, rule.layer.lastIndexOf('/'))) : undefined;
    const own = {
      paths: [
        ...rule.notPackages.map((name) => ({ name, message: rule.says })),
        ...(rule.noNode ? builtinModules.filter((name) => !name.startsWith('_')).map((name) => ({ name, message: rule.says })) : []),
      ],
      patterns: [
        { regex: `^(\\.\\./){${depth + 1}}(${rule.notLayers.join('|')})(\\.ts)?(/|$)`, message: rule.says },
        ...(rule.noNode ? [{ group: ['node:*'], message: rule.says }] : []),
      ],
    };
    if (!parent) return own;
    const inherited = restrictions(parent, depth + 1);
    const named = new Set(own.paths.map((entry) => entry.name));
    return { paths: [...own.paths, ...inherited.paths.filter((entry) => !named.has(entry.name))], patterns: [...own.patterns, ...inherited.patterns] };
  };
  const blocks = LAYER_RULES.flatMap((rule) =>
    Array.from({ length: MAX_DEPTH + 1 }, (_, depth) => ({
      files: [`src/${rule.layer}/${'*/'.repeat(depth)}*.ts`],
      rules: { 'no-restricted-imports': ['error', restrictions(rule, depth)] },
    })),
  );
  const webEntry =
    "The web entry runs in a web worker: no Node, no undici, none of the Node host's parts (the esbuild.mjs web build refuses them wherever they are imported).";
  return [
    ...blocks,
    {
      files: ['src/extensionWeb.ts'],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            paths: [...builtinModules.filter((name) => !name.startsWith('_')), 'undici'].map((name) => ({ name, message: webEntry })),
            patterns: [
              { group: ['node:*'], message: webEntry },
              { regex: '^\\./(engine|webview)(/|$)', message: webEntry },
              {
                regex: '^\\./(api/network|api/undiciTransport|vscode/auth/nodeNetwork|vscode/engine/localEngine|vscode/workspace/gitRepositories)$',
                message: webEntry,
              },
            ],
          },
        ],
      },
    },
    {
      files: ['src/extension.ts'],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              {
                regex: '^\\./(engine|webview)(/|$)',
                message: 'The extension starts the engine as a process of its own (dist/engineHosted.js), and talks to the webview through protocol.ts only.',
              },
            ],
          },
        ],
      },
    },
  ];
}
