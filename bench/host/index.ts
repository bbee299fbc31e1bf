/**
 * The host benchmarks, run inside the extension host of a real VS Code by
 * `scripts/test-host.mjs --suite bench/host`: what activation costs and loads, when the network
 * and MCP bundles load, and how the Conversations tree behaves over 10,000 conversations. Writes
 * its measurements as JSON to the `results` file; bench/figures/host.ts turns them into rows.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import * as vscode from 'vscode';
import { ConversationStore } from '../../src/api/conversationStore';
import type { DeepSearchExtensionApi } from '../../src/extension';
import type { HostBenchOptions } from './fixtures';

const EXTENSION_ID = 'deepsearch-team.deep-search-vscode';

export interface HostBenchResults {
  activation: { ms: number; activeBeforeSuite: boolean; loaded: { file: string; bytes: number }[]; afterSignIn: string[]; afterToolCall: string[] };
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

function options(): HostBenchOptions {
  const file = process.env.DEEP_SEARCH_TEST_OPTIONS;
  if (!file) throw new Error('DEEP_SEARCH_TEST_OPTIONS is not set: run through scripts/test-host.mjs --suite bench/host');
  return JSON.parse(readFileSync(file, 'utf8')) as HostBenchOptions;
}

/** The extension's own bundles that this extension host has loaded so far. */
function loadedBundles(extensionPath: string): string[] {
  const dist = path.join(extensionPath, 'dist') + path.sep;
  return Object.keys(require.cache).filter((file) => file.startsWith(dist)).map((file) => path.relative(extensionPath, file)).sort();
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

  const measured: HostBenchResults = {
    activation: { ms: api.activationMs, activeBeforeSuite, loaded, afterSignIn, afterToolCall },
    tree: { seeded, pages, firstPageMs, heapBefore, heapMiddle, heapAfter, unboundedHeapAfter, listedAtEnd },
  };
  if (results) writeFileSync(results, JSON.stringify(measured, null, 2));
  console.log(JSON.stringify(measured));
}
