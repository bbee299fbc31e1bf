/**
 * The search index's worker thread (searchIndex.ts starts it; searchWorker.ts says what it is
 * asked and answers): it builds the index's text with its own git (indexedText.ts), so that the
 * engine's thread never handles the tree or its text, and answers one request at a time, so no
 * scan ever blocks the engine's event loop; or it builds a tree's on-disk filter and stops
 * (treeFilterBuild.ts). Each scan runs under a `vm` time limit, which stops even a
 * catastrophically backtracking regular expression and leaves the worker (and its text) alive.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import vm from 'node:vm';
import { IndexedText } from './indexedText';
import type { ScanRequest, WorkerInit, WorkerMessage, WorkerRequest } from './searchWorker';
import type { ScanResult } from './textScan';
import { buildTreeFilter } from './treeFilterBuild';
import { TreeGit } from './treeGit';

if (parentPort === null) throw new Error('searchWorkerThread.ts runs as a worker thread (searchIndex.ts starts it)');
const port: MessagePort = parentPort;
const init = workerData as WorkerInit;

/** A message to the engine's thread; `transfer`: buffers handed over rather than copied. */
function tell(message: WorkerMessage, transfer: ArrayBuffer[] = []): void {
  port.postMessage(message, transfer);
}

/** Answers the engine's requests from the index, each scan in a context of its own with a time limit. */
function serve(index: IndexedText): void {
  // The context only calls scan(); patterns reach nothing but the RegExp constructor. (`vm`'s time
  // limit applies to a script it runs: the script is that one call.)
  const sandbox: { scan: (request: ScanRequest) => ScanResult; request: ScanRequest | undefined; result: ScanResult | undefined } = {
    scan: (request) => index.scan(request),
    request: undefined,
    result: undefined,
  };
  vm.createContext(sandbox, { codeGeneration: { strings: false, wasm: false } });
  const script = new vm.Script('result = scan(request)');
  port.on('message', (request: WorkerRequest) => {
    if (request.kind === 'read') {
      tell({ type: 'read', id: request.id, text: index.read(request.file, request.size) });
      return;
    }
    if (request.kind === 'terms') {
      tell({ type: 'terms', id: request.id, files: index.termFiles(request.terms) });
      return;
    }
    if (request.kind === 'rank') {
      const ranked = index.rank(request);
      tell({ type: 'rank', id: request.id, ...ranked }, [ranked.files.buffer, ranked.scores.buffer, ranked.frequencies.buffer]);
      return;
    }
    // The last scan's result was cleared as it ended.
    sandbox.request = request;
    try {
      script.runInContext(sandbox, { timeout: request.timeoutMs });
      const result = sandbox.result as ScanResult;
      tell({ type: 'scan', id: request.id, ok: true, ...result }, [result.files.buffer, result.lines.buffer, result.counts.buffer]);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      tell({ type: 'scan', id: request.id, ok: false, timedOut: /timed out/i.test(message), message });
    } finally {
      sandbox.request = undefined;
      sandbox.result = undefined;
    }
  });
}

async function start(): Promise<void> {
  const git = new TreeGit(init.git);
  if (init.task === 'filter') {
    const filter = await buildTreeFilter(init, git);
    tell(filter, [filter.offsets.buffer, filter.postings.buffer]);
    return;
  }
  const built = await IndexedText.build(init, git);
  if (built.noRoom !== undefined) {
    tell({ type: 'no-room', bytes: built.noRoom, room: init.room });
    return;
  }
  serve(built.index);
  tell(built.ready);
}

start().catch((error: unknown) => tell({ type: 'failed', message: error instanceof Error ? error.message : String(error) }));
