/**
 * The engine's in-memory search index: per served repository, the text files of its HEAD commit,
 * held by a worker thread (searchWorkerThread.ts) that greps them with git grep's exact results.
 *
 * An index is built in the background the first time a repository's HEAD is searched (with ripgrep,
 * once that search is answered: `buildAfterward`), not when the engine starts: an engine may serve
 * many repositories that are never searched, and building costs a few seconds of CPU and memory the
 * size of the text. Until it is ready, searches run git grep as before (or ripgrep, when the engine
 * has one: ripgrep.ts), over the files the commit's trigram filter leaves (gramFilter.ts) when it
 * has one, so no search waits for it. The filters, on disk and small, are built at start for the
 * first few repositories' HEADs (`prepare`) and after each index. When HEAD
 * moves, the next search builds the new commit's index, which replaces the old one once ready:
 * each repository keeps at most one.
 *
 * All indexes together hold at most `budgetBytes` of files (the index's memory is about 1.5 times
 * that). A repository larger than what is left of the budget gets an index of the files that fit,
 * in tree order, and its searches read the rest the way they would without an index (ripgrep, or
 * git grep), so a search costs more the less of the tree is indexed, never all at once; one with
 * no room left gets no index.
 */
import { Worker } from 'node:worker_threads';
import type { ServedRepository } from '../git/repos';
import { formatSize, ToolError } from '../messages/toolError';
import { plural } from '../messages/plural';
import type { GrepLine, GrepResult, SearchTarget } from './grepResult';
import { pathspecFilter, type LineMatcher } from './grepPatterns';
import { requiredText } from './literalQuery';
import { Ripgrep } from './ripgrep';
import type { RankReply, RankRequest, ReadyMessage, ScanReply, ScanRequest, WorkerInit, WorkerMessage, WorkerRequest } from './searchWorker';
import { entryPoint } from '../runtime/entryPoints';
import { GIT_STEP_TIMEOUT_MS, NoRoomForIndex, TREE_LISTING_MAX_BYTES } from './treeText';
import { gitCommand, runGit } from '../git/git';
import type { ProcessLauncher } from '../git/processLauncher';
import { errorMessage } from '../../contract/errorMessage';
import { Slots } from '../runtime/slots';
import { ensureRoomForFilter, filterFile, GramFilter, writeFilter, type FilterTables } from './gramFilter';
import { IndexCounts } from './indexCounts';
import { releaseBuffers } from './releaseBuffers';
import { collectGarbage } from '../runtime/collectGarbage';
import { forEachInTurns } from '../runtime/inTurns';

/** Bytes of files all indexes together hold by default (`--index-budget`); their memory is about 1.5 times this. */
export const DEFAULT_INDEX_BUDGET_BYTES = 512 * 1024 * 1024;
/** How long a build asked for by a search waits, at most, for that search's call to be answered. */
const BUILD_AFTERWARD_MS = 2_000;
/** A scan that takes longer is stopped and git grep answers instead (a pathological regular expression). */
export const DEFAULT_SCAN_TIME_LIMIT_MS = 2_000;
/** Repositories the engine prepares at start (`prepare`): the others' first searches read the tree, then build. */
const PREPARED_REPOSITORIES = 8;

export interface SearchIndexesOptions {
  /** Where the "index ready" and failure lines go. */
  log: (line: string) => void;
  /** Bytes of files all indexes together may hold (DEFAULT_INDEX_BUDGET_BYTES). */
  budgetBytes?: number;
  scanTimeLimitMs?: number;
  /** A ripgrep executable for the searches that come before an index is ready (ripgrep.ts). */
  ripgrepPath?: string;
  /** The engine's process launcher (git/processLauncher.ts); without one, git and ripgrep start from this process. */
  launcher?: ProcessLauncher;
  /** Where the commits' trigram filters are kept (gramFilter.ts); none are built without it. */
  filterDir?: string;
  /** Free space a filter never takes on that disk (DEFAULT_SPARE_BYTES). */
  filterSpareBytes?: number;
}

/** A build waiting for its turn (SearchIndexes.queueBuild). */
interface QueuedBuild {
  /** Asked for by a search (an index): it goes first. Otherwise a start-up filter, which gives way. */
  forSearch: boolean;
  /** `giveWay` aborts when a search's build comes while this one (a start-up filter) runs. */
  run(giveWay: AbortSignal): Promise<void>;
}

interface RepositoryState {
  ready?: SearchIndex;
  /** Bytes of the budget this repository holds: its ready index's, or a build's while under way. */
  held: number;
  /** `done` settles when the build ends, whatever its outcome. */
  building?: { commit: string; abort: AbortController; done: Promise<void> };
  /** Commits whose index was refused (no room left in the budget) or failed: not tried again. */
  refused: Set<string>;
  /** The trigram filter of one commit, being read from disk or read (undefined: none there). */
  filter?: { commit: string; loaded: Promise<GramFilter | undefined> };
}

/** The indexes of one engine's repositories. */
export class SearchIndexes {
  private readonly states = new Map<ServedRepository, RepositoryState>();
  private readonly turns = new WeakMap<ServedRepository, Slots>();
  private readonly shutdown = new AbortController();
  private readonly budgetBytes: number;
  private readonly wanted = new Map<ServedRepository, SearchTarget>();
  private wantedTimer: ReturnType<typeof setTimeout> | undefined;
  /** Builds take turns: the one under way (which settles `finished`), and those waiting. */
  private current: { build: QueuedBuild; giveWay: AbortController; finished: Promise<void> } | undefined;
  private readonly waiting: QueuedBuild[] = [];
  private readonly scanTimeLimitMs: number;
  /** Answers for the searches that come before an index is ready, when the engine has a ripgrep. */
  readonly ripgrep: Ripgrep | undefined;

  constructor(private readonly options: SearchIndexesOptions) {
    this.budgetBytes = options.budgetBytes ?? DEFAULT_INDEX_BUDGET_BYTES;
    this.scanTimeLimitMs = options.scanTimeLimitMs ?? DEFAULT_SCAN_TIME_LIMIT_MS;
    this.ripgrep = options.ripgrepPath ? new Ripgrep(options.ripgrepPath, options.log, options.launcher) : undefined;
  }

  /**
   * The engine's start-up work for its first few repositories, one after another: ripgrep reads
   * ahead what the first search of each HEAD needs (when the engine has one), then each HEAD's
   * trigram filter is built unless it is on disk already (`filters`; in the build queue, giving
   * way to any index a search asks for: queueBuild). The filter is what makes a first search
   * cheap: it reads the few files that can match, not the whole tree.
   */
  async prepare(repositories: readonly ServedRepository[], { filters = true }: { filters?: boolean } = {}): Promise<void> {
    const signal = this.shutdown.signal;
    const heads: { repo: ServedRepository; commit: string }[] = [];
    for (const repo of repositories.slice(0, PREPARED_REPOSITORIES)) {
      if (signal.aborted) return;
      const head = await runGit(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], {
        cwd: repo.dir,
        signal,
        okExitCodes: [0, 1],
        ...(this.options.launcher ? { launcher: this.options.launcher } : {}),
      }).catch(() => undefined);
      const commit = head?.exitCode === 0 ? head.stdout.trim() : '';
      if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(commit)) continue;
      heads.push({ repo, commit });
      if (this.ripgrep && !repo.bare) await this.ripgrep.prepare(repo, commit, signal);
    }
    if (!filters || this.options.filterDir === undefined) return;
    for (const { repo, commit } of heads) {
      const state = this.stateOf(repo);
      const at = `${repo.name} at ${commit.slice(0, 12)}`;
      this.queueBuild({
        forSearch: false,
        run: async (giveWay) => {
          const stopped = AbortSignal.any([giveWay, signal]);
          if (stopped.aborted) return;
          // What the build left behind (the worker's tables) is given back now.
          if (await this.buildFilter(repo, commit, state, stopped, at)) collectGarbage();
          else if (giveWay.aborted && !signal.aborted) this.options.log(`search filter of ${at} put off: an index a search asked for is built first`);
        },
      });
    }
  }

  /**
   * The ready index of the target's commit, or undefined. A search of a repository's HEAD starts
   * building that commit's index in the background unless it is already being built (or the
   * caller says not yet: `build` false).
   */
  lookup(target: SearchTarget, build = true): SearchIndex | undefined {
    if (this.shutdown.signal.aborted) return undefined;
    const state = this.stateOf(target.repo);
    if (state.ready && !state.ready.alive) {
      // A worker that died (out of memory, most likely) would die again: this commit stays with git grep.
      state.refused.add(state.ready.commit);
      state.ready = undefined;
      if (!state.building) state.held = 0;
    }
    if (state.ready?.commit === target.commit) return state.ready;
    if (build && target.revision === 'HEAD' && state.building?.commit !== target.commit && !state.refused.has(target.commit)) {
      this.build(target.repo, target.commit, state);
    }
    return undefined;
  }

  /**
   * The target's index once it is built: at once when it is ready, after the build under way (or
   * started now) otherwise; undefined when there will be none (not HEAD, refused, failed), or when
   * `maxWaitMs` passes or `signal` aborts first. For work that may wait (an answer), not a tool call.
   */
  async whenReady(target: SearchTarget, signal: AbortSignal, maxWaitMs: number): Promise<SearchIndex | undefined> {
    const ready = this.lookup(target);
    if (ready) return ready;
    const building = this.states.get(target.repo)?.building;
    if (!building || building.commit !== target.commit) return undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const givenUp = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, maxWaitMs);
      onAbort = () => resolve();
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      await Promise.race([building.done, givenUp]);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal.removeEventListener('abort', onAbort);
    }
    signal.throwIfAborted();
    return this.lookup(target, false);
  }

  /**
   * Runs `search` when the repository's searches that run without its index have had their turn:
   * one at a time while its index builds.
   */
  takingTurns<T>(target: SearchTarget, signal: AbortSignal, search: () => Promise<T>): Promise<T> {
    let turns = this.turns.get(target.repo);
    if (!turns) {
      turns = new Slots(1);
      this.turns.set(target.repo, turns);
    }
    return turns.run(search, signal);
  }

  /**
   * Starts the target's index once the work under way is answered (`buildWanted`, which the tool
   * server calls after each tool call), or after a moment at the latest: a build and the search
   * that asked for it would share the machine, and that search would wait for its share.
   */
  buildAfterward(target: SearchTarget): void {
    if (this.shutdown.signal.aborted) return;
    this.wanted.set(target.repo, target);
    this.wantedTimer ??= setTimeout(() => this.buildWanted(), BUILD_AFTERWARD_MS).unref();
  }

  /** Starts the builds `buildAfterward` was asked for. */
  buildWanted(): void {
    clearTimeout(this.wantedTimer);
    this.wantedTimer = undefined;
    const targets = [...this.wanted.values()];
    this.wanted.clear();
    for (const target of targets) this.lookup(target);
  }

  /**
   * The trigram filter of the repository's commit (gramFilter.ts), read from disk on first use: built
   * as the engine starts (`prepare`) and after the commit's index, and kept across starts.
   * Undefined when there is none (yet).
   */
  filterFor(repo: ServedRepository, commit: string): Promise<GramFilter | undefined> {
    const dir = this.options.filterDir;
    if (dir === undefined || this.shutdown.signal.aborted) return Promise.resolve(undefined);
    const state = this.stateOf(repo);
    if (state.filter?.commit !== commit) {
      // A miss is kept too: only this engine writes the folder, and its build replaces the miss.
      const loaded = GramFilter.open(filterFile(dir, repo.dir, commit), commit);
      state.filter = { commit, loaded };
      void loaded.then((filter) => {
        if (filter) this.options.log(`search filter of ${repo.name} at ${commit.slice(0, 12)} read from disk: ${plural(filter.paths.length, 'file')}`);
      });
    }
    return state.filter.loaded;
  }

  /** Whether the target's index is being built now (so a search could wait for it). */
  isBuilding(target: SearchTarget): boolean {
    return this.states.get(target.repo)?.building?.commit === target.commit;
  }

  /** Settles once the builds under way or waiting have ended (after `close`, at once: they stop). */
  async idle(): Promise<void> {
    while (this.current) await this.current.finished;
  }

  /** Stops every build and worker. */
  close(): void {
    this.shutdown.abort();
    clearTimeout(this.wantedTimer);
    this.wanted.clear();
    for (const state of this.states.values()) {
      state.building?.abort.abort();
      void state.ready?.close();
      state.ready = undefined;
      state.held = 0;
    }
  }

  private stateOf(repo: ServedRepository): RepositoryState {
    let state = this.states.get(repo);
    if (!state) {
      state = { refused: new Set(), held: 0 };
      this.states.set(repo, state);
    }
    return state;
  }

  /** Bytes of the budget that other repositories' indexes (ready or being built) hold. */
  private heldByOthers(state: RepositoryState): number {
    let held = 0;
    for (const other of this.states.values()) if (other !== state) held += other.held;
    return held;
  }

  private build(repo: ServedRepository, commit: string, state: RepositoryState): void {
    state.building?.abort.abort();
    const abort = new AbortController();
    let finished = (): void => undefined;
    state.building = { commit, abort, done: new Promise<void>((resolve) => (finished = resolve)) };
    const signal = AbortSignal.any([abort.signal, this.shutdown.signal]);
    const at = `${repo.name} at ${commit.slice(0, 12)}`;
    // One build at a time: each takes what the indexes built before it left of the budget (and the
    // machine is not asked to build several while it answers searches).
    this.queueBuild({
      forSearch: true,
      run: async () => {
        try {
          if (!signal.aborted) await this.buildIndex(repo, commit, state, signal, at);
        } finally {
          if (state.building?.abort === abort) {
            state.building = undefined;
            state.held = state.ready?.alive ? state.ready.heldBytes : 0;
          }
          finished();
        }
        // The filter comes after the index (which searches wait for), in the same turn.
        if (!signal.aborted) await this.buildFilter(repo, commit, state, signal, at);
        // What the builds left behind (listings, the old index's tables) is given back now.
        collectGarbage();
      },
    });
  }

  /**
   * Queues a build: one runs at a time, whatever the outcome of those before it. A build a search
   * asked for goes before the start-up filters still waiting, and the one under way gives way to
   * it (aborted, and queued again at the back: its work is lost, the search's index is not late).
   */
  private queueBuild(build: QueuedBuild): void {
    const before = build.forSearch ? this.waiting.findIndex((waiting) => !waiting.forSearch) : -1;
    this.waiting.splice(before === -1 ? this.waiting.length : before, 0, build);
    if (build.forSearch && this.current && !this.current.build.forSearch) this.current.giveWay.abort();
    this.nextBuild();
  }

  private nextBuild(): void {
    const build = this.current ? undefined : this.waiting.shift();
    if (!build) return;
    const giveWay = new AbortController();
    this.current = { build, giveWay, finished: this.runBuild(build, giveWay.signal) };
  }

  private async runBuild(build: QueuedBuild, giveWay: AbortSignal): Promise<void> {
    try {
      await build.run(giveWay);
    } catch (error) {
      // Each build says why it failed; this is for what it did not foresee.
      this.options.log(`a search build failed: ${errorMessage(error)}`);
    } finally {
      this.current = undefined;
      if (giveWay.aborted && !this.shutdown.signal.aborted) this.waiting.push(build);
      this.nextBuild();
    }
  }

  private async buildIndex(repo: ServedRepository, commit: string, state: RepositoryState, signal: AbortSignal, at: string): Promise<void> {
    try {
      const started = performance.now();
      // The room is what the others leave: this repository's own ready index is replaced by the new one.
      const room = Math.max(0, this.budgetBytes - this.heldByOthers(state));
      state.held = Math.max(state.held, room);
      const index = await SearchIndex.start(commit, repo.dir, room, { scanTimeLimitMs: this.scanTimeLimitMs, log: this.options.log }, signal);
      if (signal.aborted) {
        await index.close();
        return;
      }
      void state.ready?.close();
      state.ready = index;
      // ripgrep is not asked about this repository's HEAD while the index holds all of it.
      if (index.unread.length === 0) this.ripgrep?.forget(repo);
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const part =
        index.unread.length === 0
          ? ''
          : `; ${plural(index.unread.length, 'file')} (${formatSize(index.unreadBytes)}) past the index budget are read per search`;
      this.options.log(`search index of ${at} ready: ${index.paths.length} text files, ${formatSize(index.textBytes)}, ${seconds} s${part}`);
    } catch (error) {
      if (signal.aborted) return;
      state.refused.add(commit);
      const reason = errorMessage(error);
      this.options.log(`${error instanceof NoRoomForIndex ? 'no search index for' : 'search index failed for'} ${at}: ${reason}; its searches read the tree`);
    }
  }

  /**
   * Builds the commit's trigram filter and writes it to disk, unless it is there already (or the
   * disk has no room to spare for one); true when it built one.
   */
  private async buildFilter(repo: ServedRepository, commit: string, state: RepositoryState, signal: AbortSignal, at: string): Promise<boolean> {
    const dir = this.options.filterDir;
    if (dir === undefined || (await this.filterFor(repo, commit))) return false;
    try {
      const started = performance.now();
      // Before the tree is read: a disk without room would refuse the filter after all that work.
      await ensureRoomForFilter(dir, 0, this.options.filterSpareBytes);
      const tables = await readFilterTables(commit, repo.dir, signal);
      const file = filterFile(dir, repo.dir, commit);
      try {
        await writeFilter(file, commit, tables, this.options.filterSpareBytes);
      } finally {
        // Tens of megabytes an idle engine's garbage collector might not get to for a long time.
        releaseBuffers([tables.offsets.buffer, tables.postings.buffer]);
      }
      const filter = await GramFilter.open(file, commit);
      if (!filter) throw new Error('it did not read back whole');
      // Written whole: it replaces the miss kept since the start of the build, even if stopped now.
      state.filter = { commit, loaded: Promise.resolve(filter) };
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      if (!signal.aborted)
        this.options.log(`search filter of ${at} ready: ${plural(filter.paths.length, 'file')}, ${formatSize(filter.diskBytes)} on disk, ${seconds} s`);
      return true;
    } catch (error) {
      if (!signal.aborted) this.options.log(`no search filter for ${at}: ${errorMessage(error)}; searches the index does not answer read every file`);
      return false;
    }
  }
}

/** A search worker (searchWorkerThread.ts) for one task on a commit of the repository in `dir`. */
function startWorker(task: { task: WorkerInit['task']; commit: string; dir: string; room: number }): Worker {
  const init: WorkerInit = {
    task: task.task,
    git: { ...gitCommand([]), cwd: task.dir, timeoutMs: GIT_STEP_TIMEOUT_MS },
    commit: task.commit,
    room: task.room,
    listingMaxBytes: TREE_LISTING_MAX_BYTES,
  };
  const thread = entryPoint('search/searchWorkerThread');
  // The worker's young generation is kept small: it allocates little once built, and a large one stays resident.
  return new Worker(thread.file, { execArgv: thread.nodeOptions, workerData: init, resourceLimits: { maxYoungGenerationSizeMb: 4 } });
}

/**
 * The trigram filter of the commit's regular files (gramFilter.ts), built by a worker that reads
 * the blobs with git processes of its own and stops once it has answered. `signal` stops it.
 */
function readFilterTables(commit: string, dir: string, signal: AbortSignal): Promise<FilterTables> {
  const worker = startWorker({ task: 'filter', commit, dir, room: 0 });
  return new Promise<FilterTables>((resolve, reject) => {
    const onAbort = (): void => {
      reject(new Error('the filter build was cancelled'));
      void worker.terminate();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const settle = (outcome: () => void): void => {
      signal.removeEventListener('abort', onAbort);
      outcome();
      void worker.terminate();
    };
    worker.on('message', (message: WorkerMessage) => {
      if (message.type === 'filter') settle(() => resolve(message));
      else settle(() => reject(new Error(message.type === 'failed' ? message.message : `the search worker answered ${message.type}`)));
    });
    worker.on('error', (error) => settle(() => reject(error)));
    worker.on('exit', (code) => settle(() => reject(new Error(`the search worker stopped (exit code ${code})`))));
    if (signal.aborted) onAbort();
  });
}

const engines = new WeakMap<readonly ServedRepository[], SearchIndexes>();

/**
 * The indexes of the engine serving `repositories` (one set, shared by its tool endpoints and its
 * answerer: the first to ask gives the options), closed when `shuttingDown` aborts.
 */
export function searchIndexesFor(repositories: readonly ServedRepository[], shuttingDown: AbortSignal, options: SearchIndexesOptions): SearchIndexes {
  let indexes = engines.get(repositories);
  if (!indexes) {
    const created = new SearchIndexes(options);
    shuttingDown.addEventListener('abort', () => created.close(), { once: true });
    if (shuttingDown.aborted) created.close();
    engines.set(repositories, created);
    indexes = created;
  }
  return indexes;
}

/** The index's best files for a ranking, best first, and how many candidates were scored. */
export interface RankedInIndex {
  total: number;
  best: Array<{ path: string; length: number; score: number; termFrequencies: Map<string, number> }>;
}

/** How an index runs its scans: the time one may take, and where it says it ran over. */
interface ScanOptions {
  scanTimeLimitMs: number;
  log: (line: string) => void;
}

/** One commit's index: the file list here, the text and the scanning in the worker. */
export class SearchIndex {
  alive = true;
  private nextId = 1;
  private readonly pending = new Map<number, (reply: Extract<WorkerMessage, { id: number }> | undefined) => void>();
  private readonly allowedBySpecs = new Map<string, Uint8Array | null | undefined>();
  private readonly allowedByList = new WeakMap<readonly string[], Uint8Array>();
  private fileIndexes: Map<string, number> | undefined;
  private unreadSet: Set<string> | undefined;

  /** The indexed (text) files of the commit, in the order the worker numbers them. */
  readonly paths: readonly string[];
  /** Their blob sizes. */
  private readonly sizes: Float64Array;
  /** Bytes of the indexed text. */
  readonly textBytes: number;
  /**
   * The commit's regular files past the index budget, in tree order (they all come after the
   * indexed ones): searches read them some other way.
   */
  readonly unread: readonly string[];
  /** Their bytes. */
  readonly unreadBytes: number;
  /** Bytes of the budget the index holds. */
  readonly heldBytes: number;

  private constructor(
    readonly commit: string,
    private readonly worker: Worker,
    ready: ReadyMessage,
    private readonly options: ScanOptions,
  ) {
    const split = (joined: string): string[] => (joined === '' ? [] : joined.split('\0'));
    this.paths = split(ready.paths);
    this.sizes = ready.sizes;
    this.textBytes = ready.length;
    this.unread = split(ready.unread);
    this.unreadBytes = ready.unreadBytes;
    this.heldBytes = ready.treeBytes;
  }

  /**
   * Starts a worker that reads the commit's tree within `room` bytes with git processes of its own
   * (the tree and its text never pass through this thread) and resolves once it has laid out their
   * lines; rejects with NoRoomForIndex when not one file fits. `signal` stops it.
   */
  static start(commit: string, dir: string, room: number, options: ScanOptions, signal: AbortSignal): Promise<SearchIndex> {
    const worker = startWorker({ task: 'index', commit, dir, room });
    return new Promise<SearchIndex>((resolve, reject) => {
      let index: SearchIndex | undefined;
      const stopped = (error: unknown): void => {
        signal.removeEventListener('abort', onAbort);
        index?.stop();
        reject(error instanceof Error ? error : new Error(String(error)));
      };
      const onAbort = (): void => {
        stopped(new Error('the index build was cancelled'));
        void worker.terminate();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      worker.on('message', (message: WorkerMessage) => {
        if (message.type === 'ready') {
          signal.removeEventListener('abort', onAbort);
          index = new SearchIndex(commit, worker, message, options);
          // The engine's server keeps the process alive; an idle index must not.
          worker.unref();
          resolve(index);
        } else if (message.type === 'no-room' || message.type === 'failed' || message.type === 'filter') {
          stopped(
            message.type === 'no-room'
              ? new NoRoomForIndex(message.bytes, message.room)
              : new Error(message.type === 'failed' ? message.message : 'the search worker built a filter'),
          );
          void worker.terminate();
        } else {
          index?.pending.get(message.id)?.(message);
        }
      });
      worker.on('error', stopped);
      worker.on('exit', (code) => stopped(new Error(`the search worker stopped (exit code ${code})`)));
      if (signal.aborted) onAbort();
    });
  }

  /**
   * The lines git grep would print for `matcher` on the indexed files `pathspecs` select, with its
   * caps (`outputBytes`: how much of the output cap they used; `scannedBytes`: how much text was
   * read, the n-gram filter skipping the rest); or undefined when git grep has to
   * answer: a pathspec form the index does not know, or a scan that ran over its time limit.
   */
  async grep(
    request: {
      matcher: LineMatcher;
      pathspecs: readonly string[];
      /** In place of pathspecs. */ files?: readonly string[];
      linesPerFile: number;
      maxOutputBytes: number;
      what: string;
    },
    signal: AbortSignal,
  ): Promise<{ result: GrepResult; outputBytes: number; scannedBytes: number } | undefined> {
    const allowed = request.files ? await this.allowedFiles(request.files) : this.allowed(request.pathspecs);
    if (allowed === undefined || !this.alive) return undefined;
    const scan: ScanRequest = {
      kind: 'scan',
      id: this.nextId++,
      matcher: request.matcher,
      allowed,
      required: requiredText(request.matcher),
      keep: request.linesPerFile,
      maxBytes: request.maxOutputBytes,
      timeoutMs: this.options.scanTimeLimitMs,
    };
    const reply = (await this.ask(scan, signal)) as ScanReply | undefined;
    if (!reply) return undefined;
    if (!reply.ok) {
      this.options.log(
        reply.timedOut
          ? `search index: ${request.what} took over ${this.options.scanTimeLimitMs} ms; git grep answers instead`
          : `search index: ${request.what} failed in the index (${reply.message}); git grep answers instead`,
      );
      return undefined;
    }
    const files = new Map<string, GrepLine[]>();
    const counts = new IndexCounts(reply.counts, this.paths, this.fileNumbers());
    if (request.linesPerFile > 0) for (const path of counts.keys()) files.set(path, []);
    reply.texts.forEach((text, at) => {
      files.get(this.paths[reply.files[at]])?.push({ line: reply.lines[at], text });
    });
    return { result: { files, counts, truncated: reply.truncated }, outputBytes: reply.outputBytes, scannedBytes: reply.scannedBytes };
  }

  /** Whether the index holds the file (a text file of its commit within its budget). */
  holds(path: string): boolean {
    return this.fileNumbers().has(path);
  }

  /**
   * The files past the index budget that a search of `files` (exact paths) or else `pathspecs`
   * reads, in tree order.
   */
  unreadAmong(files: readonly string[] | undefined, pathspecs: readonly string[]): string[] {
    if (this.unread.length === 0) return [];
    if (files) {
      this.unreadSet ??= new Set(this.unread);
      const unread = this.unreadSet;
      return files.filter((file) => unread.has(file));
    }
    const selects = pathspecs.length === 0 ? null : pathspecFilter(pathspecs);
    return selects ? this.unread.filter(selects) : [...this.unread];
  }

  /**
   * The text of an indexed file of at most `maxBytes` bytes (UTF-8 decoded, as `git cat-file` output
   * is), or undefined: not a text file of this commit, or larger.
   */
  async readText(path: string, maxBytes: number, signal: AbortSignal): Promise<string | undefined> {
    const file = this.fileNumbers().get(path);
    const size = file === undefined ? undefined : this.sizes[file];
    if (file === undefined || size === undefined || size > maxBytes || !this.alive) return undefined;
    const reply = await this.ask({ kind: 'read', id: this.nextId++, file, size }, signal);
    return reply && 'text' in reply ? reply.text : undefined;
  }

  /**
   * How many files hold each term (ASCII words, any case, as `git grep -i -F` finds them): exact
   * counts, never capped. Undefined when the worker has stopped.
   */
  async termFiles(terms: readonly string[], signal: AbortSignal): Promise<number[] | undefined> {
    const reply = await this.ask({ kind: 'terms', id: this.nextId++, terms: [...terms] }, signal);
    return reply && reply.type === 'terms' ? reply.files : undefined;
  }

  /**
   * The best files for natural-language search and how many candidates there were (the worker
   * scores them all: RankRequest); undefined when the worker has stopped.
   */
  async rank(request: Omit<RankRequest, 'kind' | 'id'>, signal: AbortSignal): Promise<RankedInIndex | undefined> {
    const reply = await this.ask({ kind: 'rank', id: this.nextId++, ...request }, signal);
    if (!reply || reply.type !== 'rank') return undefined;
    const { files, scores, frequencies, total } = reply as RankReply;
    const width = request.terms.length;
    const best = Array.from(files, (file, at) => {
      const termFrequencies = new Map<string, number>();
      request.terms.forEach((term, index) => {
        const count = frequencies[at * width + index];
        if (count > 0) termFrequencies.set(term.text, count);
      });
      return { path: this.paths[file], length: this.sizes[file], score: scores[at], termFrequencies };
    });
    return { total, best };
  }

  /** Sends one request to the worker; undefined when the worker stopped before answering. */
  private ask(request: WorkerRequest, signal: AbortSignal): Promise<Extract<WorkerMessage, { id: number }> | undefined> {
    if (signal.aborted) return Promise.reject(new ToolError('The request was cancelled.'));
    const id = request.id;
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.pending.delete(id);
        if (this.pending.size === 0) this.worker.unref();
        reject(new ToolError('The request was cancelled.'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      // An idle worker must not keep the process alive; one with a request to answer must.
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, (answer) => {
        this.pending.delete(id);
        if (this.pending.size === 0) this.worker.unref();
        signal.removeEventListener('abort', onAbort);
        resolve(answer);
      });
      this.worker.postMessage(request);
    });
  }

  /** Each indexed path's number in the worker, built on first use. */
  private fileNumbers(): Map<string, number> {
    this.fileIndexes ??= new Map(this.paths.map((each, index) => [each, index]));
    return this.fileIndexes;
  }

  async close(): Promise<void> {
    this.stop();
    await this.worker.terminate();
  }

  private stop(): void {
    this.alive = false;
    for (const resolve of this.pending.values()) resolve(undefined);
    this.pending.clear();
  }

  /**
   * Which files are among `files` (exact paths; those the index does not hold match nothing). The
   * selection of a list searched again (a filter's files, kept by keyword search) is kept with it.
   */
  private async allowedFiles(files: readonly string[]): Promise<Uint8Array> {
    const kept = this.allowedByList.get(files);
    if (kept) return kept;
    const numbers = this.fileNumbers();
    const allowed = new Uint8Array(this.paths.length);
    await forEachInTurns(files, (file) => {
      const index = numbers.get(file);
      if (index !== undefined) allowed[index] = 1;
    });
    this.allowedByList.set(files, allowed);
    return allowed;
  }

  /**
   * Which files the pathspecs select: null for all (no pathspec); undefined for forms other than
   * `*.<extension>` (git's `*` crosses `/`, so it means "ends with").
   */
  private allowed(pathspecs: readonly string[]): Uint8Array | null | undefined {
    if (pathspecs.length === 0) return null;
    const key = pathspecs.join('\0');
    if (this.allowedBySpecs.has(key)) return this.allowedBySpecs.get(key);
    const selects = pathspecFilter(pathspecs);
    let allowed: Uint8Array | undefined;
    if (selects) {
      allowed = new Uint8Array(this.paths.length);
      this.paths.forEach((path, index) => {
        if (selects(path)) (allowed as Uint8Array)[index] = 1;
      });
    }
    this.allowedBySpecs.set(key, allowed);
    return allowed;
  }
}
