/**
 * Answers a question from the served repositories with the search the tools use: the question's
 * words become the terms of natural-language search (`tools/nls.ts`: stems and whole identifiers,
 * BM25, the same indexes and greps), the best files are read for their best chunks, and an answer
 * is written that leads with them, each step reported as a turn. Cancellable throughout.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { WireSource, WireStats } from '../../contract/legacyWire';
import type { AuthenticatedUser } from '../auth';
import { plural } from '../plural';
import type { ServedRepository } from '../repos';
import { parseQuery } from '../search/query';
import { queryTerms, type CorpusStats, type SearchTermSpec } from '../search/ranking';
import type { SearchIndexes } from '../search/searchIndex';
import { extractSearchTerms } from '../search/searchTerms';
import { Slots } from '../slots';
import { ToolError } from '../toolError';
import type { DeepSearchBackend, ToolContext } from '../tools/context';
import { rankFiles, readRankedFile, type RankedFile } from '../tools/nls';
import { findDefinitions, suggestFollowups, titleFor, writeAnswer, type Findings, type FoundFile, type ReadExcerpt } from './answerWriter';
import { zeroStats } from './records';

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
  /** The engine's search indexes, shared with its tools; without them, every search is a git grep. */
  searchIndexes?: SearchIndexes;
  /** Answers worked on at once; the rest wait, saying so in a turn. Default `DEFAULT_ANSWER_SLOTS`. */
  maxConcurrentAnswers?: number;
}

/** Enough to keep two cores busy while the others wait in order. */
export const DEFAULT_ANSWER_SLOTS = 4;

const FILES_QUOTED = 3;
const FILES_LISTED = 7;
const CHUNKS_QUOTED = 3;
/**
 * How long an answer waits for a repository's search index being built before it greps instead: a
 * grep of every term over a large tree, for every answer of a burst, costs more than the wait.
 */
const INDEX_WAIT_MS = 60_000;
/** Lines quoted from one place at most (a run of matching lines, such as generated code, is cut). */
const MAX_EXCERPT_LINES = 30;
const CHARS_PER_TOKEN = 4;

/** Who the answerer's searches run as (they read only what every user of the engine may read). */
const ANSWERER: AuthenticatedUser = { id: 0, name: 'answerer' };

/** The answerer searches; it never asks Deep Search itself. */
const NO_DEEP_SEARCH: DeepSearchBackend = {
  create: () => Promise.reject(new ToolError('The answerer does not start conversations.')),
  get: () => {
    throw new ToolError('The answerer does not read conversations.');
  },
};

export class Answerer {
  private readonly slots: Slots;
  /** Whether git has PCRE, learnt once for every answer (as the tools learn it). */
  private readonly pcre = { available: undefined as boolean | undefined };

  constructor(private readonly options: AnswererOptions) {
    this.slots = new Slots(options.maxConcurrentAnswers ?? DEFAULT_ANSWER_SLOTS);
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
    const context: ToolContext = {
      repositories: this.options.repositories,
      user: ANSWERER,
      instanceUrl: this.options.instanceUrl,
      signal: request.signal,
      deepSearch: NO_DEEP_SEARCH,
      deepSearchWaitMs: 0,
      pcre: this.pcre,
      ...(this.options.searchIndexes ? { searchIndexes: this.options.searchIndexes } : {}),
    };
    const run = new AnswerRun(this.options, request, context);
    const findings = await run.investigate();
    await run.step('Writing the answer');
    const answer = writeAnswer(findings);
    const inputTokens = Math.ceil(run.charsRead / CHARS_PER_TOKEN);
    const completionTokens = Math.ceil(answer.length / CHARS_PER_TOKEN);
    const usedRepos = new Map(findings.excerpts.map((excerpt) => [excerpt.file.repo.name, excerpt.file.repo]));
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

  constructor(
    private readonly options: AnswererOptions,
    private readonly request: AnswerRequest,
    private readonly context: ToolContext,
  ) {}

  /** Pauses for the configured pace, then records a turn; throws once the question is cancelled. */
  async step(reasoning: string): Promise<void> {
    this.request.signal.throwIfAborted();
    if (this.options.paceMs > 0) await sleep(this.options.paceMs, undefined, { signal: this.request.signal });
    await this.request.report(reasoning);
    this.request.signal.throwIfAborted();
  }

  async investigate(): Promise<Findings> {
    const repositories = [...this.options.repositories];
    const question = this.questionToSearch();
    // Shown in the answer: the names and distinctive words of the question. Searched: every word,
    // as natural-language search takes a query (stems and whole identifiers, common words dropped).
    const terms = termsOf(question);
    const named = extractSearchTerms(question);
    const words = named.length > 0 || terms.length === 0 ? named : terms.map((term) => term.text);
    const findings: Findings = {
      terms: words,
      searched: repositories,
      excerpts: [],
      otherFiles: [],
      totalFiles: 0,
      notes: [],
      instanceUrl: this.options.instanceUrl,
    };
    if (terms.length === 0) {
      await this.step('The question names nothing to search for');
      return findings;
    }
    const quoted = words.map((word) => `\`${word}\``).join(', ');
    await this.step(`Searching ${plural(repositories.length, 'repository', 'repositories')} for ${quoted}…`);

    let ranked: Awaited<ReturnType<typeof rankFiles>>;
    try {
      this.toolCalls++;
      ranked = await rankFiles(this.context, parseQuery(''), terms, {
        limit: FILES_QUOTED + FILES_LISTED,
        waitForIndexes: {
          maxWaitMs: INDEX_WAIT_MS,
          waiting: (names) => this.step(`Waiting for the search index of ${names.join(', ')} to be built`),
        },
      });
    } catch (error) {
      // Nothing searchable (no repository with commits, folders gone): said in the answer, not a failure.
      if (!(error instanceof ToolError) || this.request.signal.aborted) throw error;
      findings.notes.push(error.message.replace(/\.$/, ''));
      await this.step('Nothing could be searched');
      return findings;
    }
    for (const note of ranked.notes) {
      findings.notes.push(note.replace(/\.$/, ''));
      await this.step(note);
    }
    findings.totalFiles = ranked.total;
    if (ranked.total === 0) {
      await this.step('No file mentions these terms');
      return findings;
    }
    const toRead = ranked.files.slice(0, FILES_QUOTED);
    const best = toRead.length === ranked.total ? (toRead.length === 1 ? 'it' : 'them') : `the top ${toRead.length}`;
    await this.step(`Found matches in ${plural(ranked.total, 'file')}; reading ${best}`);
    for (const file of toRead) {
      const excerpt = await this.readExcerpt(file, terms, words, ranked.stats);
      if (excerpt) findings.excerpts.push(excerpt);
    }
    // A file declaring a name the question asks about leads (in ranking order otherwise): the
    // answer starts where the thing is defined, not where a short file mentions it.
    const asked = new Set(words.map((word) => word.toLowerCase()));
    const declaring = new Set(findDefinitions(findings.excerpts).flatMap((definition) => (asked.has(definition.name.toLowerCase()) ? [definition.file] : [])));
    findings.excerpts.sort((a, b) => Number(declaring.has(b.file)) - Number(declaring.has(a.file)));
    findings.otherFiles = ranked.files.slice(FILES_QUOTED, FILES_QUOTED + FILES_LISTED).map((file) => foundFile(file, terms, words));
    return findings;
  }

  /** The question, or the latest earlier one that names something (for a follow-up such as "why?"). */
  private questionToSearch(): string {
    const { question, earlierQuestions } = this.request;
    if (termsOf(question).length > 0) return question;
    return [...earlierQuestions].reverse().find((earlier) => termsOf(earlier).length > 0) ?? question;
  }

  private async readExcerpt(file: RankedFile, terms: readonly SearchTermSpec[], words: readonly string[], stats: CorpusStats): Promise<ReadExcerpt | undefined> {
    this.toolCalls++;
    const read = await readRankedFile(this.context, file, terms, stats, CHUNKS_QUOTED);
    const { lines } = read;
    if (lines.length === 0 || read.windows.length === 0) {
      await this.step(`Could not read ${file.document.path} in ${file.target.repo.name}`);
      return undefined;
    }
    this.charsRead += lines.reduce((sum, line) => sum + line.length + 1, 0);
    const windows = read.windows.map((window) => ({ start: window.start, end: Math.min(window.end, window.start + MAX_EXCERPT_LINES - 1) }));
    const found = foundFile(file, terms, words, windows[0]?.start);
    const first = windows[0]?.start ?? 1;
    const last = windows[windows.length - 1]?.end ?? first;
    await this.step(`Reading ${file.document.path} lines ${first}–${last} in ${file.target.repo.name}`);
    return { file: found, windows, fileLines: lines };
  }
}

/** The search terms of a question, as natural-language search takes a query. */
function termsOf(question: string): SearchTermSpec[] {
  return queryTerms(question.split(/\s+/).filter(Boolean));
}

/** An identifier without case or underscores: `parse_config` and `parseConfig` are one name. */
function squashed(word: string): string {
  return word.toLowerCase().replaceAll('_', '');
}

/**
 * A ranked file as the answer describes it: its matching lines per term, each term labelled with
 * the question's word it came from (`poll` → `poller`), so the answer speaks the question's words.
 */
function foundFile(file: RankedFile, terms: readonly SearchTermSpec[], words: readonly string[], line?: number): FoundFile {
  const termHits = new Map<string, number>();
  for (const term of terms) {
    const count = file.document.termFrequencies.get(term.text);
    if (!count) continue;
    const label =
      words.find((word) => word.toLowerCase() === term.text) ??
      words.find((word) => squashed(word) === squashed(term.text)) ??
      words.find((word) => word.toLowerCase().startsWith(term.text)) ??
      term.text;
    termHits.set(label, Math.max(termHits.get(label) ?? 0, count));
  }
  return { repo: file.target.repo, path: file.document.path, termHits, ...(line !== undefined ? { line } : {}) };
}
