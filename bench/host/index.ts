/**
 * The host benchmarks, run inside the extension host of a real VS Code by
 * `scripts/test-host.mjs --suite bench/host`: what activation costs and loads, when the network
 * and MCP bundles load, and how the Conversations tree behaves over 10,000 conversations. Writes
 * its measurements as JSON to the `results` file; bench/figures/host.ts turns them into rows.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import * as path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import * as vscode from 'vscode';
import { ConversationStore } from '../../src/conversations/conversationStore';
import type { DeepSearchExtensionApi } from '../../src/extension';
import type { HostBenchOptions } from './fixtures';

const EXTENSION_ID = 'deepsearch-team.deep-search-vscode';

export interface HostBenchResults {
  activation: { ms: number; activeBeforeSuite: boolean; loaded: { file: string; bytes: number }[]; afterSignIn: string[]; afterToolCall: string[] };
  /** The local engine answering and indexing, seen from the extension host. */
  engineLoad: { ownProcess: EngineLoad; inExtensionHost: EngineLoad };
  tree: {
    seeded: number;
    pages: number;
    firstPageMs: number[];
    heapBefore: number;
    heapMiddle: number;
    heapAfter: number;
    /** Undefined in a quick run. */
    unboundedHeapAfter?: number;
    listedAtEnd: number;
  };
}

export interface EngineLoad {
  /** Highest extension-host RSS above its level when the load began. */
  peakRssGrowthMb: number;
  eventLoopDelayP99Ms: number;
  eventLoopDelayMaxMs: number;
  seconds: number;
  answered: number;
}

/** Questions asked at once, and keyword searches made meanwhile, in each engine-load run. */
const LOAD_QUESTIONS = 6;
const LOAD_SEARCHES = 24;

function options(): HostBenchOptions {
  const file = process.env.DEEP_SEARCH_TEST_OPTIONS;
  if (!file) throw new Error('DEEP_SEARCH_TEST_OPTIONS is not set: run through scripts/test-host.mjs --suite bench/host');
  return JSON.parse(readFileSync(file, 'utf8')) as HostBenchOptions;
}

/** The extension's own bundles that this extension host has loaded so far. */
function loadedBundles(extensionPath: string): string[] {
  const dist = path.join(extensionPath, 'dist') + path.sep;
  return Object.keys(require.cache)
    .filter((file) => file.startsWith(dist))
    .map((file) => path.relative(extensionPath, file))
    .sort();
}

const collectGarbage = (() => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

function settledHeap(): number {
  for (let i = 0; i < 3; i++) collectGarbage();
  return process.memoryUsage().heapUsed;
}

export async function run(): Promise<void> {
  try {
    await measure();
  } catch (error) {
    // The runner prints the host's console.log lines only: say what went wrong there.
    console.log(`Host benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    throw error;
  }
}

async function measure(): Promise<void> {
  const { engineUrl, token, seeded, results, quick } = options();
  const extension = vscode.extensions.getExtension<DeepSearchExtensionApi>(EXTENSION_ID);
  if (!extension) throw new Error(`${EXTENSION_ID} is not installed`);
  const activeBeforeSuite = extension.isActive;
  // The window is still starting (other extensions, git, the workbench) when the suite begins; on
  // two cores that load lands inside whatever runs, so let it settle before activating.
  if (!activeBeforeSuite) await new Promise((resolve) => setTimeout(resolve, 2000));
  const api = await extension.activate();
  await api.session.whenRestored();
  const loaded = loadedBundles(extension.extensionPath).map((file) => ({ file, bytes: statSync(path.join(extension.extensionPath, file)).size }));

  if (!(await vscode.commands.executeCommand<boolean>('deepSearch.signIn', { instanceUrl: engineUrl, token }))) throw new Error('sign-in failed');
  const afterSignIn = loadedBundles(extension.extensionPath);
  const connection = api.session.current;
  if (!connection) throw new Error('no connection after sign-in');
  await connection.tools.listRepositories('');
  const afterToolCall = loadedBundles(extension.extensionPath);

  // Time to the first page: what the view waits for when it is shown (list request, rows, items).
  const firstPageMs: number[] = [];
  for (let run = 0; run < 7; run++) {
    const started = performance.now();
    await api.tree.reload();
    for (const node of api.tree.getChildren()) api.tree.getTreeItem(node);
    firstPageMs.push(performance.now() - started);
  }

  // Scrolling through every page as "Load more" does, rendering each page's items.
  const heapBefore = settledHeap();
  let pages = 1;
  let heapMiddle = 0;
  while (api.store.hasMore) {
    await api.store.loadMore();
    for (const node of api.tree.getChildren()) api.tree.getTreeItem(node);
    pages++;
    if (pages === Math.floor(seeded / 100)) heapMiddle = settledHeap();
  }
  const heapAfter = settledHeap();
  const listedAtEnd = api.store.listed.length;

  // The same walk with a list that keeps everything (as before the window): the baseline.
  let unboundedHeapAfter: number | undefined;
  if (!quick) {
    const unbounded = new ConversationStore({ maxListed: Number.MAX_SAFE_INTEGER });
    // The current client: signing in rebuilt the connection once the instance URL setting changed.
    unbounded.setClient(api.session.current?.client);
    await unbounded.refreshList();
    while (unbounded.hasMore) await unbounded.loadMore();
    unboundedHeapAfter = settledHeap();
    unbounded.dispose();
  }

  const engineLoad = await measureEngineLoad(api, extension.extensionPath, token);

  const measured: HostBenchResults = {
    activation: { ms: api.activationMs, activeBeforeSuite, loaded, afterSignIn, afterToolCall },
    engineLoad,
    tree: { seeded, pages, firstPageMs, heapBefore, heapMiddle, heapAfter, unboundedHeapAfter, listedAtEnd },
  };
  if (results) writeFileSync(results, JSON.stringify(measured, null, 2));
  console.log(JSON.stringify(measured));
}

/**
 * The same load on the local engine twice: as "Use Local Engine" runs it now (a process of its own)
 * and as it ran before (the engine library loaded into this extension host), both over the
 * workspace's 20,000 generated files, the index built during the load.
 */
async function measureEngineLoad(api: DeepSearchExtensionApi, extensionPath: string, token: string): Promise<HostBenchResults['engineLoad']> {
  await vscode.commands.executeCommand('deepSearch.useLocalEngine');
  const ownProcess = await underLoad(api);
  await api.session.signOut();

  type EngineModule = typeof import('../../src/engine/server');
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the engine library, loaded the way the extension once did
  const { startEngine } = require(path.join(extensionPath, 'dist', 'engineServer.js')) as EngineModule;
  const workspace = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (!workspace) throw new Error('no workspace folder');
  const storage = path.join(path.dirname(options().results ?? workspace), 'in-host-engine');
  const engine = await startEngine({ repos: [workspace], users: [{ token }], dataDir: storage });
  try {
    if (!(await vscode.commands.executeCommand<boolean>('deepSearch.signIn', { instanceUrl: engine.url, token })))
      throw new Error('sign-in to the in-host engine failed');
    const inExtensionHost = await underLoad(api);
    await api.session.signOut();
    return { ownProcess, inExtensionHost };
  } finally {
    await engine.close();
  }
}

async function underLoad(api: DeepSearchExtensionApi): Promise<EngineLoad> {
  const tools = () => {
    // Looked up for each call: a settings change may rebuild the connection meanwhile.
    const connection = api.session.current;
    if (!connection) throw new Error('not connected');
    return connection.tools;
  };
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const started = performance.now();
  const asked = await Promise.all(
    Array.from({ length: LOAD_QUESTIONS }, (_, index) =>
      api.store.ask(`How does the ${['config', 'retry', 'cache'][index % 3]} module handle failures (${index})?`),
    ),
  );
  const words = ['config', 'retry', 'poller', 'session', 'invoice', 'render', 'parse', 'token'];
  for (let index = 0; index < LOAD_SEARCHES; index += 4) {
    const batch = [0, 1, 2, 3].map((offset) => words[(index + offset) % words.length]);
    await Promise.all(batch.map((word) => tools().keywordSearch(`${word} attempts`)));
  }
  const deadline = Date.now() + 180_000;
  let answered = 0;
  while (Date.now() < deadline) {
    answered = asked.filter((conversation) => api.store.get(conversation.id)?.questions.at(-1)?.state === 'completed').length;
    if (answered === asked.length) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const seconds = (performance.now() - started) / 1000;
  delay.disable();
  clearInterval(sampler);
  return {
    peakRssGrowthMb: (peak - baseline) / 2 ** 20,
    eventLoopDelayP99Ms: delay.percentile(99) / 1e6,
    eventLoopDelayMaxMs: delay.max / 1e6,
    seconds,
    answered,
  };
}
