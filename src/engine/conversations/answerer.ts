/**
 * Answers a question from the served repositories: finds the terms, greps every repository at HEAD,
 * reads the best files and writes an answer, reporting each step as a turn. Cancellable throughout.
 * Starting a git process blocks the event loop that also serves HTTP, so every answer takes its
 * turn to start one (`spawnTurns.ts`), answers waiting together share one HEAD resolution
 * (`headCommits.ts`), and the files quoted from a repository are read with one process (`fileBatch.ts`).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { WireSource, WireStats } from '../../contract/legacyWire';
import { suggestFollowups, titleFor, writeAnswer, type Findings, type ReadExcerpt } from './answerWriter';
import {
  excerptWindows,
  grepRepository,
  rankMatches,
  readBlob,
  resolveHead,
  splitLines,
  type FileMatch,
  type GitCallOptions,
} from './codeSearch';
import { readTextFiles } from './fileBatch';
import { GitError } from '../git';
import { HeadCommits } from './headCommits';
import { zeroStats } from './records';
import type { ServedRepository } from '../repos';
import { extractSearchTerms } from '../search/searchTerms';
import { SpawnTurns } from './spawnTurns';
import { plural } from '../plural';
import { Slots } from '../slots';

export interface AnswerRequest {
  question: string;
  /** Earlier questions of the conversation, oldest first; their terms stand in when this one has none. */
  earlierQuestions: readonly string[];
  signal: AbortSignal;
  /** Appends a turn describing the current step; resolves once it is stored. */
  report(reasoning: string): Promise<void>;
}

export interface Answer {
  title: string;
  answer: string;
  sources: WireSource[];
  suggestedFollowups: string[];
  stats: WireStats;
}

export interface AnswererOptions {
  repositories: readonly ServedRepository[];
  /** Absolute base of links in answers, e.g. `http://127.0.0.1:3370`. */
  instanceUrl: string;
  paceMs: number;
  gitTimeoutMs?: number;
  /** Answers worked on at once; the rest wait, saying so in a turn. Default `DEFAULT_ANSWER_SLOTS`. */
  maxConcurrentAnswers?: number;
}

/** Enough to keep two cores busy with git while the others wait in order. */
export const DEFAULT_ANSWER_SLOTS = 4;

const GIT_TIMEOUT_MS = 20_000;
const FILES_QUOTED = 3;
const FILES_LISTED = 7;
const CHARS_PER_TOKEN = 4;

export class Answerer {
  /** Shared by every answer in progress: their git processes start one per event-loop turn. */
  private readonly spawnTurns = new SpawnTurns();
  private readonly heads: HeadCommits;
  private readonly slots: Slots;

  constructor(private readonly options: AnswererOptions) {
    this.slots = new Slots(options.maxConcurrentAnswers ?? DEFAULT_ANSWER_SLOTS);
    // A shared resolution is not cancelled with one of its askers: it is short and bounded by the timeout.
    const git = { signal: new AbortController().signal, timeoutMs: options.gitTimeoutMs ?? GIT_TIMEOUT_MS };
    this.heads = new HeadCommits(this.spawnTurns, (repo) => resolveHead(repo, git));
  }

  async answer(request: AnswerRequest): Promise<Answer> {
    const queued = (ahead: number): void => {
      const place = ahead === 0 ? 'next to start' : `behind ${plural(ahead, 'other question')}`;
      request.report(`Queued ${place}: at most ${plural(this.slots.limit, 'answer')} ${this.slots.limit === 1 ? 'is' : 'are'} worked on at once`).catch(() => undefined);
    };
    return this.slots.run(() => this.work(request), request.signal, queued);
  }

  private async work(request: AnswerRequest): Promise<Answer> {
    const started = Date.now();
    const run = new AnswerRun(this.options, request, this.spawnTurns, this.heads);
    const findings = await run.investigate();
    await run.step('Writing the answer');
    const answer = writeAnswer(findings);
    const inputTokens = Math.ceil(run.charsRead / CHARS_PER_TOKEN);
    const completionTokens = Math.ceil(answer.length / CHARS_PER_TOKEN);
    const usedRepos = new Map(findings.excerpts.map((excerpt) => [excerpt.match.repo.name, excerpt.match.repo]));
    return {
      title: titleFor(request.question),
      answer,
      sources: [...usedRepos.keys()].map((name) => ({ type: 'Repository', link: `/${name}`, label: name })),
      suggestedFollowups: suggestFollowups(findings),
      stats: {
        ...zeroStats(),
        time_millis: Date.now() - started,
        tool_calls: run.toolCalls,
        total_input_tokens: inputTokens,
        prompt_tokens: inputTokens,
        completion_tokens: completionTokens,
        total_tokens: inputTokens + completionTokens,
      },
    };
  }
}

/** The state of one answer in progress. */
class AnswerRun {
  toolCalls = 0;
  charsRead = 0;
  private readonly git: GitCallOptions;

  constructor(
    private readonly options: AnswererOptions,
    private readonly request: AnswerRequest,
    private readonly spawnTurns: SpawnTurns,
    private readonly heads: HeadCommits,
  ) {
    this.git = { signal: request.signal, timeoutMs: options.gitTimeoutMs ?? GIT_TIMEOUT_MS };
  }

  /** Pauses for the configured pace, then records a turn; throws once the question is cancelled. */
  async step(reasoning: string): Promise<void> {
    this.request.signal.throwIfAborted();
    if (this.options.paceMs > 0) await sleep(this.options.paceMs, undefined, { signal: this.request.signal });
    await this.request.report(reasoning);
    this.request.signal.throwIfAborted();
  }

  async investigate(): Promise<Findings> {
    const repositories = [...this.options.repositories];
    const findings: Findings = {
      terms: this.searchTerms(),
      searched: repositories,
      excerpts: [],
      otherFiles: [],
      totalFiles: 0,
      notes: [],
      instanceUrl: this.options.instanceUrl,
    };
    if (findings.terms.length === 0) {
      await this.step('The question names nothing to search for');
      return findings;
    }
    const quoted = findings.terms.map((term) => `\`${term}\``).join(', ');
    await this.step(`Searching ${plural(repositories.length, 'repository', 'repositories')} for ${quoted}…`);

    const matches: FileMatch[] = [];
    for (const repo of repositories) {
      matches.push(...(await this.searchRepository(repo, findings.terms, findings.notes)));
    }
    const ranked = rankMatches(matches);
    findings.totalFiles = ranked.length;
    if (ranked.length === 0) {
      await this.step('No file mentions these terms');
      return findings;
    }
    const toRead = ranked.slice(0, FILES_QUOTED);
    const best = toRead.length === ranked.length ? (toRead.length === 1 ? 'it' : 'them') : `the top ${toRead.length}`;
    await this.step(`Found matches in ${plural(ranked.length, 'file')}; reading ${best}`);
    const texts = await this.readFiles(toRead);
    for (const match of toRead) {
      const excerpt = await this.readExcerpt(match, texts.get(match));
      if (excerpt) findings.excerpts.push(excerpt);
    }
    findings.otherFiles = ranked.slice(FILES_QUOTED, FILES_QUOTED + FILES_LISTED);
    return findings;
  }

  private searchTerms(): string[] {
    const own = extractSearchTerms(this.request.question);
    if (own.length > 0) return own;
    for (const earlier of [...this.request.earlierQuestions].reverse()) {
      const terms = extractSearchTerms(earlier);
      if (terms.length > 0) return terms;
    }
    return [];
  }

  private async searchRepository(repo: ServedRepository, terms: readonly string[], notes: string[]): Promise<FileMatch[]> {
    try {
      this.toolCalls++;
      const commit = await this.heads.resolve(repo, this.request.signal);
      if (!commit) {
        notes.push(`${repo.name} has no commits yet, so it was not searched`);
        return [];
      }
      this.toolCalls++;
      await this.spawnTurns.take(this.request.signal);
      const outcome = await grepRepository(repo, commit, terms, this.git);
      this.charsRead += outcome.bytesRead;
      if (outcome.truncated) notes.push(`the search of ${repo.name} stopped early because it matched too much`);
      return outcome.matches;
    } catch (error) {
      if (!(error instanceof GitError) || error.kind === 'aborted') throw error;
      notes.push(`${repo.name} could not be searched (${error.message})`);
      await this.step(`Could not search ${repo.name}: ${error.message}`);
      return [];
    }
  }

  /**
   * The lines of the files to quote, with one git process per repository; a file missing from the
   * result (not text, too long for the batch, or the batch failed) is read on its own.
   */
  private async readFiles(matches: readonly FileMatch[]): Promise<Map<FileMatch, string[]>> {
    const texts = new Map<FileMatch, string[]>();
    const byCommit = new Map<string, FileMatch[]>();
    for (const match of matches) {
      const key = `${match.repo.dir}\0${match.commit}`;
      byCommit.set(key, [...(byCommit.get(key) ?? []), match]);
    }
    for (const group of byCommit.values()) {
      const first = group[0];
      try {
        this.toolCalls++;
        await this.spawnTurns.take(this.request.signal);
        const files = await readTextFiles(first.repo, first.commit, group.map((match) => match.path), this.git);
        for (const match of group) {
          const lines = files.get(match.path);
          if (lines) texts.set(match, lines);
        }
      } catch (error) {
        if (!(error instanceof GitError) || error.kind === 'aborted') throw error;
      }
    }
    return texts;
  }

  private async readExcerpt(match: FileMatch, prefetched: string[] | undefined): Promise<ReadExcerpt | undefined> {
    const firstLine = match.lines[0]?.line ?? 1;
    const lastLine = match.lines[match.lines.length - 1]?.line ?? firstLine;
    await this.step(`Reading ${match.path} lines ${firstLine}–${lastLine} in ${match.repo.name}`);
    if (prefetched) {
      this.charsRead += prefetched.reduce((sum, line) => sum + line.length + 1, 0);
      return { match, windows: excerptWindows(match, prefetched.length), fileLines: prefetched };
    }
    try {
      this.toolCalls++;
      await this.spawnTurns.take(this.request.signal);
      const text = await readBlob(match, this.git);
      this.charsRead += text.length;
      const fileLines = splitLines(text);
      return { match, windows: excerptWindows(match, fileLines.length), fileLines };
    } catch (error) {
      if (!(error instanceof GitError) || error.kind === 'aborted') throw error;
      await this.step(`Could not read ${match.path}: ${error.message}`);
      return undefined;
    }
  }
}
