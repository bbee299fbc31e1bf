/**
 * ripgrep in place of `git grep` for the searches that come before a repository's index is ready
 * (and for trees too large to index): the very lines git grep would print, found sooner.
 *
 * git grep searches committed content: `git grep <commit>` reads the commit's blobs, never the
 * working tree. ripgrep reads files. So ripgrep answers only when the files it reads are, byte for
 * byte, the blobs git would read, and says nothing otherwise (git grep then answers, as before):
 *  - The repository has a working tree, and after ripgrep (and every other read here) is done,
 *    `git diff-index <commit>` finds no difference between the commit, the index and the working
 *    tree. A file written meanwhile has a new ctime, so it shows up there and the answer is
 *    dropped; so does a file swapped for a symbolic link. The index file must not change meanwhile.
 *  - No index entry is taken on trust without looking at the file (assume-unchanged,
 *    skip-worktree), and every file is as large in the working tree as its blob: a checkout that
 *    converts (line endings, a filter such as LFS, `ident`, a working-tree encoding) changes
 *    sizes, and such trees stay with git grep.
 *  - Paths are valid UTF-8 without newlines, the form they take on the command line.
 * The files are git grep's: the commit's regular files (no symbolic links, no submodules), named
 * on the command line (taken from the index, which is quicker to list than the tree and which the
 * checks above prove to be the commit's), never found by a directory walk (no ignore files, no
 * hidden-file rules, nothing followed). Binary files are dropped as `git grep -I` drops them: a NUL
 * among the first 8000 bytes, or a `-diff` (`binary`) attribute. ripgrep's own test (a NUL
 * anywhere) differs, so it reads every file as text (`--text`) and the files with matches are
 * checked afterwards.
 * The output is git's: files put back in tree order (ripgrep prints each file's lines together,
 * but files as its threads finish them), lines as bytes (`--encoding none`: no BOM sniffing, no
 * transcoding), and git's output cap applied byte for byte as if git had printed each line; an
 * output too large to tell where git's cap falls is left to git grep (which stops early there).
 * The caller's pattern reaches ripgrep only after `-e`, translated (grepPatterns.ts); ripgrep reads
 * no config file (`--no-config`) and runs no preprocessor or decompressor (neither is asked for).
 */
import { isUtf8 } from 'node:buffer';
import { closeSync, constants, openSync, readSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import * as path from 'node:path';
import { runGit } from '../git/git';
import type { LaunchRequest, ProcessLauncher } from '../git/processLauncher';
import { runBounded } from '../runtime/boundedProcess';
import type { ServedRepository } from '../git/repos';
import { ToolError } from '../messages/toolError';
import type { GrepLine, GrepResult, SearchTarget } from './grepResult';
import { argumentSlices } from './commandLine';
import { pathspecFilter } from './grepPatterns';
import { binaryAttributes, collect, listRegularFiles, type TreeEntry } from './treeText';
import { errorMessage } from '../../contract/errorMessage';
import { forEachInTurns, nextTurn } from '../runtime/inTurns';

export interface RipgrepRequest {
  /** The patterns in ripgrep's syntax (`ripgrepPattern`). */
  pattern: string;
  pathspecs: readonly string[];
  /** Only these files (exact paths), in place of the pathspecs. */
  files?: readonly string[];
  linesPerFile: number;
  maxOutputBytes: number;
}

/** Bytes git -I looks at for a NUL. */
const BINARY_PROBE_BYTES = 8000;
const RIPGREP_TIMEOUT_MS = 10_000;
const STDERR_KEPT_BYTES = 4096;
/** Output of one counting ripgrep (a path and a number per file) read at most. */
const COUNTS_MAX_OUTPUT_BYTES = 64 * 1024 * 1024;
/** Output each ripgrep may print past git's cap (for lines of binary files, which git skips). */
const OUTPUT_MARGIN_BYTES = 64 * 1024;
/** Files read to look for a NUL before other work gets a turn. */
const PROBES_BETWEEN_YIELDS = 256;
/** Count records read before other work gets a turn. */
const RECORDS_BETWEEN_YIELDS = 4096;
/** Reasons logged per repository and commit, at most this many in all. */
const MAX_LOGGED = 200;
/** `git ls-files` output read at most (about 160 bytes a file with its stat data). */
const INDEX_LISTING_MAX_BYTES = 256 * 1024 * 1024;

/** The regular files of the index (one version of the index file), in git's order: what ripgrep is given. */
interface IndexFiles {
  /** Why this index rules ripgrep out, if it does. */
  problem?: string;
  paths: string[];
  pathBytes: number[];
  byPath: Map<string, number>;
  /** Per index entry (regular file or not, in order): 1 for a regular file. */
  regular: Uint8Array;
}

interface RepositoryState {
  indexFile?: Promise<string>;
  /** The index's files, for one version of the index file (its stamp). */
  listing?: { stamp: string; files: Promise<IndexFiles> };
  /** The commit's regular files with their blob sizes, for one commit. */
  tree?: { commit: string; entries: Promise<TreeEntry[]> };
  /** Whether the index's files are the commit's, as large as its blobs: for one commit and index version. */
  sameFiles?: { key: string; problem: Promise<string | undefined> };
  /** Whether the working tree last agreed with a commit under one version of the index file. */
  worktree?: { key: string; clean: boolean };
  /** For one commit, the files found binary (a NUL among their first 8000 bytes) or not. */
  binary?: { commit: string; byPath: Map<string, boolean> };
}

/** One ripgrep run's output, unless it passed its cap (`cut`: then ripgrep was stopped). */
interface RunOutput {
  output: Buffer;
  cut: boolean;
}

/** ripgrep's output for the slices of the tree it ran, in order; `skipped` when later slices were not needed. */
interface Slices {
  outputs: Buffer[];
  skipped: boolean;
}

interface ParsedLine {
  file: number;
  number: number;
  output: Buffer;
  /** The line's bytes in `output`. */
  start: number;
  end: number;
}

/** What a search of a commit starts from: the index file, its stamp then, and the files it lists. */
interface Listing {
  indexFile: string;
  stamp: string;
  worktreeKey: string;
  files: IndexFiles;
}

function differsFrom(commit: string): string {
  return `the working tree differs from ${commit.slice(0, 12)}`;
}

class Declined {
  constructor(
    readonly reason: string,
    /** Whether the reason is worth a log line (a pathspec form ripgrep does not take is not). */
    readonly logged = true,
  ) {}
}

/** ripgrep for the searches of one engine. */
export class Ripgrep {
  /** Searches ripgrep answered, and searches it left to git grep: for tests, logs and the bench. */
  readonly stats = { answered: 0, declined: 0 };
  /** The ripgrep executable (`rg`), e.g. the one VS Code ships; a relative path is taken from the engine's folder, not the repository's. */
  readonly executable: string;
  private readonly repositories = new Map<ServedRepository, RepositoryState>();
  private readonly logged = new Set<string>();

  constructor(
    executable: string,
    private readonly log: (line: string) => void,
    /** The engine's process launcher (git/processLauncher.ts); without one, processes start from this process. */
    private readonly launcher?: ProcessLauncher,
  ) {
    this.executable = /[\\/]/.test(executable) ? path.resolve(executable) : executable;
  }

  /**
   * git grep's answer for the target, found by ripgrep; or undefined when git grep has to answer
   * (a tree or working tree ripgrep cannot vouch for, a pathspec form it does not take, a failure).
   */
  async grep(target: SearchTarget, request: RipgrepRequest, signal: AbortSignal): Promise<GrepResult | undefined> {
    const at = `${target.repo.name} at ${target.commit.slice(0, 12)}`;
    let outcome: GrepResult | Declined;
    try {
      outcome = await this.search(target, request, signal);
    } catch (error) {
      if (signal.aborted) throw new ToolError('The request was cancelled.');
      outcome = new Declined(`ripgrep failed (${errorMessage(error)})`);
    }
    if (outcome instanceof Declined) {
      this.stats.declined++;
      if (outcome.logged) this.once(`${at}\0${outcome.reason}`, `ripgrep does not search ${at}: ${outcome.reason}; git grep answers`);
      return undefined;
    }
    this.stats.answered++;
    this.once(`${at}\0answers`, `ripgrep answers searches of ${at} while it has no search index`);
    return outcome;
  }

  /**
   * Reads ahead what the first search of the commit needs (the index's file listing, the checks
   * that the working tree is the commit), so that the search itself only runs ripgrep and its last
   * check. Says in the log whether ripgrep can answer. A later change of the index file, or of the
   * working tree, is seen by the searches as before.
   */
  async prepare(repo: ServedRepository, commit: string, signal: AbortSignal): Promise<void> {
    const at = `${repo.name} at ${commit.slice(0, 12)}`;
    const problem = await this.readAhead(repo, commit, signal).catch((error: unknown) =>
      signal.aborted ? undefined : `reading ahead failed (${errorMessage(error)})`,
    );
    if (signal.aborted) return;
    this.log(problem === undefined ? `ripgrep is ready for ${at}` : `ripgrep will not search ${at}: ${problem}`);
  }

  private async readAhead(repo: ServedRepository, commit: string, signal: AbortSignal): Promise<string | undefined> {
    const state = this.state(repo);
    const listed = await this.listing(state, repo, commit, signal);
    if (listed instanceof Declined) return listed.reason;
    const problem = await this.sameFiles(state, repo, commit, listed.stamp, listed.files, signal);
    if (problem) return problem;
    if (state.worktree?.key !== listed.worktreeKey)
      state.worktree = { key: listed.worktreeKey, clean: !(await treeDiffers(repo, commit, signal, this.launcher)) };
    return state.worktree.clean ? undefined : `${differsFrom(commit)} (for now)`;
  }

  /**
   * The first steps of every search of the commit, and of reading ahead for it: the index file
   * and its stamp, a working tree already known to differ, and the index's file listing.
   */
  private async listing(state: RepositoryState, repo: ServedRepository, commit: string, signal: AbortSignal): Promise<Listing | Declined> {
    const indexFile = await this.indexFile(state, repo);
    const stamp = await indexStamp(indexFile);
    if (stamp === undefined) return new Declined('the repository has no index file');
    const worktreeKey = `${commit}\0${stamp}`;
    // A file that differs by its stat data keeps differing until git rewrites the index.
    if (state.worktree?.key === worktreeKey && !state.worktree.clean) return new Declined(differsFrom(commit));
    const files = await this.indexFiles(state, repo, stamp, signal);
    if (files.problem) return new Declined(files.problem);
    return { indexFile, stamp, worktreeKey, files };
  }

  /**
   * Lets go of what is kept for the repository's searches (its file listings, the binary checks):
   * its index answers them now. A later search reads them again.
   */
  forget(repo: ServedRepository): void {
    this.repositories.delete(repo);
  }

  private once(key: string, line: string): void {
    if (this.logged.has(key) || this.logged.size >= MAX_LOGGED) return;
    this.logged.add(key);
    this.log(line);
  }

  private async search(target: SearchTarget, request: RipgrepRequest, signal: AbortSignal): Promise<GrepResult | Declined> {
    const { repo, commit } = target;
    if (repo.bare) return new Declined('a bare repository has no working tree');
    const named = request.files ? new Set(request.files) : undefined;
    const selects = named ? (path: string) => named.has(path) : pathspecFilter(request.pathspecs);
    if (selects === undefined) return new Declined('a pathspec form ripgrep does not take', false);
    const state = this.state(repo);
    const listed = await this.listing(state, repo, commit, signal);
    if (listed instanceof Declined) return listed;
    const { indexFile, stamp, worktreeKey, files } = listed;
    const differs = differsFrom(commit);
    const sameFiles = this.sameFiles(state, repo, commit, stamp, files, signal);
    // Checks that can rule ripgrep out run beside it, and stop it when they do.
    const stop = new AbortController();
    const ruledOut = (problem: string | undefined): string | undefined => {
      if (problem) stop.abort();
      return problem;
    };
    const checks = [sameFiles.then(ruledOut)];
    if (state.worktree?.key !== worktreeKey) {
      checks.push(
        treeDiffers(repo, commit, signal, this.launcher).then((different) => {
          if (different) state.worktree = { key: worktreeKey, clean: false };
          return ruledOut(different ? differs : undefined);
        }),
      );
    }
    const selected: number[] = [];
    files.paths.forEach((file, index) => {
      if (selects === null || selects(file)) selected.push(index);
    });
    const searched = this.runSlices(repo.dir, files, selected, request, AbortSignal.any([signal, stop.signal])).catch((error: unknown) => {
      if (stop.signal.aborted && !signal.aborted) return undefined;
      throw error;
    });
    // A check that fails stops ripgrep too.
    const [problems, slices] = await Promise.all([Promise.all(checks), searched]).finally(() => stop.abort());
    const problem = problems.find((each) => each !== undefined);
    if (problem !== undefined) return new Declined(problem);
    if (!slices) return new Declined('ripgrep was stopped');
    if (slices instanceof Declined) return slices;
    if (state.binary?.commit !== commit) state.binary = { commit, byPath: new Map() };
    const binary = state.binary.byPath;
    const assembled =
      request.linesPerFile === 0
        ? await assembleCounts(repo, files, binary, slices, signal, this.launcher)
        : await assemble(repo, commit, files, binary, slices, request, signal, this.launcher);
    if (assembled instanceof Declined) return assembled;
    // Everything was read: only now does the working tree's agreement with the commit count.
    const different = (await treeDiffers(repo, commit, signal, this.launcher)) || (await indexStamp(indexFile)) !== stamp;
    state.worktree = { key: worktreeKey, clean: !different };
    if (different) return new Declined(differs);
    for (const [file, found] of assembled.probed) binary.set(files.paths[file], found);
    return assembled.result;
  }

  private state(repo: ServedRepository): RepositoryState {
    let state = this.repositories.get(repo);
    if (!state) {
      state = {};
      this.repositories.set(repo, state);
    }
    return state;
  }

  private indexFile(state: RepositoryState, repo: ServedRepository): Promise<string> {
    if (!state.indexFile) {
      const promise = runGit(['rev-parse', '--git-path', 'index'], { cwd: repo.dir, ...(this.launcher ? { launcher: this.launcher } : {}) }).then((result) =>
        path.resolve(repo.dir, result.stdout.replace(/\r?\n$/, '')),
      );
      state.indexFile = promise;
      promise.catch(() => {
        if (state.indexFile === promise) state.indexFile = undefined;
      });
    }
    return state.indexFile;
  }

  /** The index's regular files: one `ls-files` per version of the index file. */
  private indexFiles(state: RepositoryState, repo: ServedRepository, stamp: string, signal: AbortSignal): Promise<IndexFiles> {
    if (state.listing?.stamp !== stamp) {
      const files = collect(repo.dir, ['ls-files', '-z', '-s'], undefined, signal, INDEX_LISTING_MAX_BYTES, this.launcher).then(parseIndexFiles);
      state.listing = { stamp, files };
      // A failed or cancelled listing is not kept.
      files.catch(() => {
        if (state.listing?.files === files) state.listing = undefined;
      });
    }
    return state.listing.files;
  }

  /**
   * Why the index's files are not the commit's, or differ in size from its blobs, or are not
   * compared with the working tree by git; undefined when none of that holds. The commit's tree
   * and git's view of the working tree are listed for it (while ripgrep runs).
   */
  private sameFiles(
    state: RepositoryState,
    repo: ServedRepository,
    commit: string,
    stamp: string,
    files: IndexFiles,
    signal: AbortSignal,
  ): Promise<string | undefined> {
    const key = `${commit}\0${stamp}`;
    if (state.sameFiles?.key !== key) {
      let tree = state.tree;
      if (tree?.commit !== commit) {
        const entries = listRegularFiles(repo.dir, commit, signal, this.launcher);
        tree = { commit, entries };
        state.tree = tree;
        entries.catch(() => {
          if (state.tree?.entries === entries) state.tree = undefined;
        });
      }
      const worktree = collect(repo.dir, ['ls-files', '-z', '-v', '--debug'], undefined, signal, INDEX_LISTING_MAX_BYTES, this.launcher);
      const problem = Promise.all([tree.entries, worktree]).then(([entries, listing]) => compareFiles(commit, entries, files, listing));
      state.sameFiles = { key, problem };
      problem.catch(() => {
        if (state.sameFiles?.problem === problem) state.sameFiles = undefined;
      });
    }
    return state.sameFiles.problem;
  }

  /**
   * Runs ripgrep over the selected files: one run (on all its threads) per slice of the tree that
   * fits a command line, one after another. Slices after the point where the output so far is sure
   * to fill git's cap are not run. A run whose output passes its own cap is stopped: its lines are
   * not in git's order, so which of them git would print is not known.
   */
  private async runSlices(
    dir: string,
    files: IndexFiles,
    selected: readonly number[],
    request: RipgrepRequest,
    signal: AbortSignal,
  ): Promise<Slices | Declined> {
    // Counting, ripgrep prints a path and a number per file: no cap of git's applies. Otherwise it
    // prints each line in fewer bytes than git (no `<commit>:`), so git's cap falls within as many,
    // unless binary files (which git skips) took some: a margin, and assemble() checks.
    const counting = request.linesPerFile === 0;
    const cap = counting ? COUNTS_MAX_OUTPUT_BYTES : request.maxOutputBytes + OUTPUT_MARGIN_BYTES;
    const args = [
      '--no-config',
      '--text',
      '--encoding',
      'none',
      '--case-sensitive',
      '--no-ignore',
      '--hidden',
      counting ? '--count' : '--line-number',
      '--with-filename',
      '--null',
      '--no-heading',
      '--color',
      'never',
      '-e',
      request.pattern,
      '--',
    ];
    const deadline = AbortSignal.timeout(RIPGREP_TIMEOUT_MS);
    const outputs: Buffer[] = [];
    let bytes = 0;
    for (const slice of argumentSlices(selected, (file) => files.pathBytes[file])) {
      if (!counting && bytes >= request.maxOutputBytes) return { outputs, skipped: true };
      let run: RunOutput;
      try {
        run = await runRipgrep(
          this.executable,
          dir,
          [...args, ...slice.map((file) => files.paths[file])],
          cap,
          AbortSignal.any([signal, deadline]),
          this.launcher,
        );
      } catch (error) {
        throw deadline.aborted && !signal.aborted ? new Error(`it took over ${RIPGREP_TIMEOUT_MS / 1000} s`) : error;
      }
      if (run.cut) return new Declined('more output than git would print, not in git’s order', false);
      outputs.push(run.output);
      bytes += run.output.length;
    }
    return { outputs, skipped: false };
  }
}

/**
 * git's output from ripgrep's: binary files dropped, each line counted as git prints it
 * (`<commit>:<path>\0<n>\0<line>\n`) against git's cap. Declined when the lines held run out
 * before the cap although later slices were not searched (binary files took up the room).
 */
async function assemble(
  repo: ServedRepository,
  commit: string,
  files: IndexFiles,
  binaryByPath: ReadonlyMap<string, boolean>,
  slices: Slices,
  request: RipgrepRequest,
  signal: AbortSignal,
  launcher: ProcessLauncher | undefined,
): Promise<{ result: GrepResult; probed: Map<number, boolean> } | Declined> {
  const parsed = parseLines(files, slices.outputs);
  if (parsed instanceof Declined) return parsed;
  const probed = new Map<number, boolean>();
  const binaryByAttribute = new Set<number>();
  const isBinary = (file: number): boolean => binaryByAttribute.has(file) || (probed.get(file) ?? binaryByPath.get(files.paths[file])) === true;
  const prefixBytes = commit.length + 1;
  const counts = new Map<string, number>();
  const result: GrepResult = { files: new Map(), counts, truncated: false };
  let used = 0;
  let position = 0;
  // The files to check for binary content: those whose lines git would print before its cap if
  // every file were text; a batch at a time, as binary ones make room for more.
  while (position < parsed.length) {
    const batch = filesWithinCap(parsed, position, files, prefixBytes, request.maxOutputBytes - used);
    for (let at = 0; at < batch.length; at++) {
      const file = batch[at];
      if (!binaryByPath.has(files.paths[file]) && !probed.has(file)) probed.set(file, startsBinary(path.join(repo.dir, files.paths[file])));
      // The reads are quick (a page each) but synchronous: let other work in now and then.
      if (at % PROBES_BETWEEN_YIELDS === PROBES_BETWEEN_YIELDS - 1) await nextTurn();
    }
    const attributes = await binaryAttributes(
      repo.dir,
      batch.map((file) => ({ path: Buffer.from(files.paths[file], 'utf8') })),
      signal,
      launcher,
    );
    batch.forEach((file, index) => {
      if (attributes[index]) binaryByAttribute.add(file);
    });
    const lastFile = batch[batch.length - 1];
    for (; position < parsed.length && parsed[position].file <= lastFile; position++) {
      const line = parsed[position];
      if (isBinary(line.file)) continue;
      const file = files.paths[line.file];
      // A record cut by the cap still counts when both NULs made it (as grep.ts reads git's output).
      const head = prefixBytes + files.pathBytes[line.file] + 1 + String(line.number).length + 1;
      const record = head + (line.end - line.start) + 1;
      let end = line.end;
      let last = false;
      if (used + record > request.maxOutputBytes) {
        result.truncated = true;
        const room = request.maxOutputBytes - used;
        if (room < head) return { result, probed };
        end = line.start + Math.min(line.end - line.start, room - head);
        last = true;
      } else {
        used += record;
      }
      counts.set(file, (counts.get(file) ?? 0) + 1);
      let kept = result.files.get(file);
      if (!kept) {
        kept = [];
        result.files.set(file, kept);
      }
      if (kept.length < request.linesPerFile) kept.push({ line: line.number, text: line.output.toString('utf8', line.start, end) } satisfies GrepLine);
      if (last) return { result, probed };
    }
  }
  if (slices.skipped) return new Declined('binary files filled ripgrep’s share of the output before git’s cap', false);
  return { result, probed };
}

/**
 * git grep -c's answer from ripgrep's counts (`<path>\0<count>\n` per file with a match): binary
 * files dropped, files in tree order.
 */
async function assembleCounts(
  repo: ServedRepository,
  files: IndexFiles,
  binaryByPath: ReadonlyMap<string, boolean>,
  slices: Slices,
  signal: AbortSignal,
  launcher: ProcessLauncher | undefined,
): Promise<{ result: GrepResult; probed: Map<number, boolean> } | Declined> {
  const found: Array<{ file: number; count: number }> = [];
  for (const output of slices.outputs) {
    let start = 0;
    while (start < output.length) {
      const end = output.indexOf(0x0a, start);
      const nul = output.indexOf(0, start);
      if (end === -1 || nul === -1 || nul > end) return new Declined('ripgrep printed a count without a file name');
      const file = files.byPath.get(output.toString('utf8', start, nul));
      const count = Number(output.toString('latin1', nul + 1, end));
      if (file === undefined || !Number.isInteger(count) || count <= 0) return new Declined('ripgrep printed a count this engine does not read');
      found.push({ file, count });
      start = end + 1;
      if (found.length % RECORDS_BETWEEN_YIELDS === 0) await nextTurn();
    }
  }
  found.sort((a, b) => a.file - b.file);
  const probed = new Map<number, boolean>();
  for (let at = 0; at < found.length; at++) {
    const { file } = found[at];
    if (!binaryByPath.has(files.paths[file])) probed.set(file, startsBinary(path.join(repo.dir, files.paths[file])));
    if (at % PROBES_BETWEEN_YIELDS === PROBES_BETWEEN_YIELDS - 1) await nextTurn();
  }
  const attributes = await binaryAttributes(
    repo.dir,
    found.map(({ file }) => ({ path: Buffer.from(files.paths[file], 'utf8') })),
    signal,
    launcher,
  );
  const counts = new Map<string, number>();
  await forEachInTurns(found, ({ file, count }, index) => {
    if (attributes[index] || (probed.get(file) ?? binaryByPath.get(files.paths[file])) === true) return;
    counts.set(files.paths[file], count);
  });
  return { result: { files: new Map(), counts, truncated: false }, probed };
}

/**
 * The lines of ripgrep's output in git's order. ripgrep prints each file's lines together, in
 * order, but the files in the order its threads finish them: the files are put in tree order.
 */
function parseLines(files: IndexFiles, outputs: readonly Buffer[]): ParsedLine[] | Declined {
  const lines: ParsedLine[] = [];
  for (const output of outputs) {
    const blocks: Array<{ file: number; lines: ParsedLine[] }> = [];
    const seen = new Set<number>();
    // Where the previous line's file name is, to recognise the same file without decoding it again.
    let nameStart = 0;
    let nameEnd = -1;
    let start = 0;
    while (start < output.length) {
      const end = output.indexOf(0x0a, start);
      if (end === -1) return new Declined('ripgrep’s output ended inside a line');
      const nul = output.indexOf(0, start);
      if (nul === -1 || nul > end) return new Declined('ripgrep printed a line without a file name');
      let number = 0;
      let at = nul + 1;
      for (; at < end && at - nul <= 10; at++) {
        const digit = output[at] - 0x30;
        if (digit < 0 || digit > 9) break;
        number = number * 10 + digit;
      }
      if (output[at] !== 0x3a || number === 0 || output[nul + 1] === 0x30) return new Declined('ripgrep printed a line without a line number');
      let block = blocks[blocks.length - 1];
      if (!block || output.compare(output, nameStart, nameEnd, start, nul) !== 0) {
        const file = files.byPath.get(output.toString('utf8', start, nul));
        if (file === undefined || seen.has(file)) return new Declined('ripgrep printed a file it was not given, or one file in two places');
        seen.add(file);
        block = { file, lines: [] };
        blocks.push(block);
      }
      nameStart = start;
      nameEnd = nul;
      const previous = block.lines[block.lines.length - 1];
      if (previous && previous.number >= number) return new Declined('ripgrep printed a file’s lines out of order');
      block.lines.push({ file: block.file, number, output, start: at + 1, end });
      start = end + 1;
    }
    blocks.sort((a, b) => a.file - b.file);
    for (const block of blocks) lines.push(...block.lines);
  }
  return lines;
}

/**
 * The distinct files, in order, of the lines from `from` on that git would print within `room`
 * bytes if all of them were text (at least one file).
 */
function filesWithinCap(lines: readonly ParsedLine[], from: number, files: IndexFiles, prefixBytes: number, room: number): number[] {
  const found: number[] = [];
  let bytes = 0;
  for (let at = from; at < lines.length && bytes <= room; at++) {
    const line = lines[at];
    if (found[found.length - 1] !== line.file) found.push(line.file);
    bytes += prefixBytes + files.pathBytes[line.file] + String(line.number).length + (line.end - line.start) + 3;
  }
  return found;
}

/**
 * `ls-files -z -s`: the regular files of the index, in order; or the reason the index rules ripgrep
 * out (a conflict, a path the command line cannot carry, output this does not read).
 */
function parseIndexFiles(listing: Buffer): IndexFiles {
  const files: IndexFiles = { paths: [], pathBytes: [], byPath: new Map(), regular: new Uint8Array(0) };
  const regular: number[] = [];
  let at = 0;
  while (at < listing.length) {
    // "<mode> <object> <stage>\t<path>\0"
    const tab = listing.indexOf(0x09, at);
    const nul = listing.indexOf(0, at);
    if (tab === -1 || nul === -1 || tab > nul || listing[at + 6] !== 0x20 || listing[tab - 2] !== 0x20)
      return { ...files, problem: 'git ls-files printed what this engine does not read' };
    if (listing[tab - 1] !== 0x30) return { ...files, problem: 'some files are unmerged' };
    const mode = listing.toString('latin1', at, at + 6);
    const isRegular = mode === '100644' || mode === '100755';
    regular.push(isRegular ? 1 : 0);
    if (isRegular) {
      const name = listing.subarray(tab + 1, nul);
      if (!isUtf8(name) || name.includes(0x0a)) return { ...files, problem: 'a path is not valid UTF-8 or holds a newline' };
      const text = name.toString('utf8');
      files.byPath.set(text, files.paths.length);
      files.paths.push(text);
      files.pathBytes.push(name.length);
    }
    at = nul + 1;
  }
  return { ...files, regular: Uint8Array.from(regular) };
}

/**
 * Why ripgrep cannot take the index's files for the commit's blobs, or undefined: they are not the
 * commit's regular files (`entries`, from its tree), git takes some on trust without looking at
 * the working tree (`listing`, `ls-files -z -v --debug`: tag `H` is an ordinary entry, lower case
 * assume-unchanged, `S` skip-worktree), or the working tree's sizes differ from the blobs'.
 */
function compareFiles(commit: string, entries: readonly TreeEntry[], files: IndexFiles, listing: Buffer): string | undefined {
  const differs = `the working tree differs from ${commit.slice(0, 12)}`;
  if (entries.length !== files.paths.length) return differs;
  for (let file = 0; file < entries.length; file++) {
    if (entries[file].path.length !== files.pathBytes[file] || entries[file].path.toString('utf8') !== files.paths[file]) return differs;
  }
  const unreadable = 'git ls-files printed what this engine does not read';
  let at = 0;
  let entry = 0;
  let file = 0;
  while (at < listing.length) {
    // "<tag> <path>\0" and five lines of stat data: ctime, mtime, dev/ino, uid/gid, size/flags.
    const nul = listing.indexOf(0, at);
    if (nul === -1 || listing[at + 1] !== 0x20 || entry >= files.regular.length) return unreadable;
    if (listing[at] !== 0x48) return 'some files are marked assume-unchanged or skip-worktree, so git does not compare them with the working tree';
    let sizeLine = nul;
    for (let line = 0; line < 4 && sizeLine !== -1; line++) sizeLine = listing.indexOf(0x0a, sizeLine + 1);
    if (sizeLine === -1 || listing.toString('latin1', sizeLine + 1, sizeLine + 9) !== '  size: ') return unreadable;
    let size = 0;
    let digit = sizeLine + 9;
    for (; digit < listing.length && listing[digit] >= 0x30 && listing[digit] <= 0x39; digit++) size = size * 10 + listing[digit] - 0x30;
    const end = listing.indexOf(0x0a, digit);
    if (digit === sizeLine + 9 || listing[digit] !== 0x09 || end === -1) return unreadable;
    if (files.regular[entry] === 1) {
      // The index keeps sizes modulo 2^32.
      if (entries[file].size % 2 ** 32 !== size)
        return 'the checkout converts files (line endings, a filter such as LFS, ident or an encoding): their sizes differ from the commit’s';
      file++;
    }
    entry++;
    at = end + 1;
  }
  return entry === files.regular.length ? undefined : unreadable;
}

/** Whether the working tree or the index differs from the commit (git's stat-based check; submodules aside). */
async function treeDiffers(repo: ServedRepository, commit: string, signal: AbortSignal, launcher: ProcessLauncher | undefined): Promise<boolean> {
  const result = await runGit(['diff-index', '--quiet', '--ignore-submodules', commit, '--'], {
    cwd: repo.dir,
    signal,
    okExitCodes: [0, 1],
    ...(launcher ? { launcher } : {}),
  });
  return result.exitCode !== 0;
}

/** Identifies one version of the index file; undefined when there is none. */
async function indexStamp(file: string): Promise<string | undefined> {
  const info = await stat(file, { bigint: true }).catch(() => undefined);
  return info ? `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}` : undefined;
}

/** Whether the file has a NUL among its first 8000 bytes (git -I's test). A symbolic link is not followed. */
function startsBinary(file: string): boolean {
  const descriptor = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  try {
    const buffer = Buffer.alloc(BINARY_PROBE_BYTES);
    let filled = 0;
    while (filled < buffer.length) {
      const read = readSync(descriptor, buffer, filled, buffer.length - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    return buffer.subarray(0, filled).includes(0);
  } finally {
    closeSync(descriptor);
  }
}

/**
 * Runs ripgrep once, started off the engine's thread (processLauncher.ts): no shell, no config,
 * stdout kept up to `cap` bytes (then ripgrep is stopped and the output marked cut). Exit 0
 * (matches) and 1 (none) succeed; anything else, such as a file that could not be read, fails.
 */
async function runRipgrep(
  executable: string,
  cwd: string,
  args: readonly string[],
  cap: number,
  signal: AbortSignal,
  launcher: ProcessLauncher | undefined,
): Promise<RunOutput> {
  const environment = { ...process.env };
  delete environment.RIPGREP_CONFIG_PATH;
  // The caller's deadline stops it first; this bound only keeps a lost one from running for ever.
  const request: LaunchRequest = {
    command: executable,
    args,
    cwd,
    env: environment,
    timeoutMs: 2 * RIPGREP_TIMEOUT_MS,
    maxOutputBytes: cap,
    truncate: true,
    stderrKeptBytes: STDERR_KEPT_BYTES,
  };
  const outcome = launcher ? await launcher.launch(request, signal) : await runBounded(request, { signal });
  switch (outcome.kind) {
    case 'exited':
      if (outcome.truncated) return { output: outcome.stdout, cut: true };
      if (outcome.code === 0 || outcome.code === 1) return { output: outcome.stdout, cut: false };
      throw new Error(
        outcome.stderr
          .split('\n')
          .find((line) => line.trim() !== '')
          ?.trim()
          .slice(0, 200) || `exit code ${outcome.code}`,
      );
    case 'start-failed':
      throw new Error(outcome.message);
    case 'aborted':
      throw new Error('cancelled');
    case 'timeout':
    case 'output-limit':
      throw new Error(`ripgrep did not finish (${outcome.kind})`);
  }
}
