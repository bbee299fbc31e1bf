/**
 * Answers a question from the served repositories: the question's names, member forms and words
 * (`question.ts`) are searched with the stack natural-language search uses, the candidate files read
 * and parsed, and the definition that answers found (`retrieval.ts`); how it is reached comes from a
 * search for its name (`reach.ts`); the answer leads with it (`answerWriter.ts`). Each step is a turn;
 * cancellable throughout. Without a model: the stats count files read and searches run, no tokens.
 * With the user's model, the model investigates instead (`investigation.ts`); when it cannot finish,
 * this answer is given, its first line saying why.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { WireSource } from '../../contract/legacyWire';
import type { AuthenticatedUser } from '../http/auth';
import { LEADING_KINDS } from '../code/fileKinds';
import { zeroStats } from '../../contract/legacyWire';
import { plural } from '../messages/plural';
import type { ServedRepository } from '../git/repos';
import { mentionScope } from './mentions';
import type { SearchIndexes } from '../search/searchIndex';
import { Slots } from '../runtime/slots';
import { ToolError } from '../messages/toolError';
import { ANSWER_TOOL_NAMES } from '../messages/toolNames';
import type { DeepSearchBackend, ToolContext } from '../repo/context';
import { blobUrl, suggestFollowups, titleFor, writeAnswer, type Findings } from './answerWriter';
import { analyseQuestion, squashName, type QuestionAnalysis } from '../repo/question';
import { findReach } from './reach';
import { retrieve, type AnswerSpan } from '../repo/retrieval';
import { codeOf, type TermWeights } from '../repo/spanRanking';
import type { SymbolTables } from '../code/symbolTable';
import { RepoCaches } from '../repo/repoCaches';
import { RegexWorker } from '../search/regex';
import { ProcessLauncher } from '../git/processLauncher';
import { errorMessage } from '../../contract/errorMessage';
import { DEFAULT_INVESTIGATION_LIMITS, type InvestigationLimits, type ModelSource } from '../models/chatModel';
import type { Answer, AnswerRequest } from './answerShapes';
import { investigate, InvestigationFailure } from './investigation';

export interface AnswererOptions {
  repositories: readonly ServedRepository[];
  /** Absolute base of links in answers, e.g. `http://127.0.0.1:3370`. */
  instanceUrl: string;
  paceMs: number;
  /** The engine's search indexes, shared with its tools; without them, every search is a git grep. */
  searchIndexes?: SearchIndexes;
  /** Each commit's definitions, shared with the tools; without them, only the files a search ranks first are parsed. */
  symbolTables?: SymbolTables;
  /** What reading repositories keeps, shared with the tools; without: the answerer's own. */
  caches?: RepoCaches;
  /** The engine's regular-expression worker, shared with the tools; without: the answerer's own (an idle worker keeps nothing alive). */
  regex?: RegexWorker;
  /** The engine's process launcher, shared with the tools; without: the answerer's own (an idle one keeps nothing alive). */
  launcher?: ProcessLauncher;
  /** Answers worked on at once; the rest wait, saying so in a turn. Default `DEFAULT_ANSWER_SLOTS`. */
  maxConcurrentAnswers?: number;
  /** The user's model, if one is chosen: it investigates, and the engine's own answer is the fallback. */
  model?: ModelSource;
  /** How far a model's investigation may go, read as each question starts. Default `DEFAULT_INVESTIGATION_LIMITS`. */
  investigationLimits?: () => InvestigationLimits;
  /** Tools an admin disabled (2026 names): a model does not get them either. */
  disabledTools?: readonly string[];
  log?: (line: string) => void;
}

/** Enough to keep two cores busy while the others wait in order. */
export const DEFAULT_ANSWER_SLOTS = 4;

/** Spans quoted after the lead, at most. */
const ALSO_QUOTED = 2;
/** A span is quoted after the lead when it scores at least this share of the lead's. */
const ALSO_SHARE = 0.6;
/**
 * How long an answer waits for a repository's search index being built before it greps instead: a
 * grep of every term over a large tree, for every answer of a burst, costs more than the wait.
 */
const INDEX_WAIT_MS = 60_000;

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

  private readonly caches: RepoCaches;
  private readonly regex: RegexWorker;
  private readonly launcher: ProcessLauncher;

  constructor(private readonly options: AnswererOptions) {
    this.caches = options.caches ?? new RepoCaches();
    this.regex = options.regex ?? new RegexWorker();
    this.launcher = options.launcher ?? new ProcessLauncher();
    this.slots = new Slots(options.maxConcurrentAnswers ?? DEFAULT_ANSWER_SLOTS);
  }

  async answer(request: AnswerRequest): Promise<Answer> {
    const queued = (ahead: number): void => {
      const place = ahead === 0 ? 'next to start' : `behind ${plural(ahead, 'other question')}`;
      request
        .report(`Queued ${place}: at most ${plural(this.slots.limit, 'answer')} ${this.slots.limit === 1 ? 'is' : 'are'} worked on at once`)
        .catch(() => undefined);
    };
    return this.slots.run(() => this.work(request), request.signal, queued);
  }

  /** The tools' context of one answer: the repositories its question's @-mentions name (all when none). */
  private contextFor(signal: AbortSignal, question: string): ToolContext {
    return {
      repositories: mentionScope(question, this.options.repositories).repositories,
      user: ANSWERER,
      instanceUrl: this.options.instanceUrl,
      signal,
      deepSearch: NO_DEEP_SEARCH,
      deepSearchWaitMs: 0,
      pcre: this.pcre,
      caches: this.caches,
      regex: this.regex,
      launcher: this.launcher,
      toolName: ANSWER_TOOL_NAMES,
      ...(this.options.searchIndexes ? { searchIndexes: this.options.searchIndexes } : {}),
      ...(this.options.symbolTables ? { symbolTables: this.options.symbolTables } : {}),
    };
  }

  private async work(request: AnswerRequest): Promise<Answer> {
    const started = Date.now();
    const context = this.contextFor(request.signal, request.question);
    const model = this.options.model?.();
    let fallback: { note: string; spent: InvestigationFailure['spent'] } | undefined;
    if (model) {
      try {
        return await investigate(
          {
            model,
            limits: this.options.investigationLimits?.() ?? DEFAULT_INVESTIGATION_LIMITS,
            disabledTools: this.options.disabledTools ?? [],
            log: this.options.log,
          },
          context,
          { question: request.question, earlier: request.earlier ?? [], signal: request.signal, report: (reasoning) => request.report(reasoning) },
        );
      } catch (error) {
        request.signal.throwIfAborted();
        if (!(error instanceof InvestigationFailure))
          this.options.log?.(
            `answer: the investigation with ${model.label} failed: ${error instanceof Error && error.stack ? error.stack : errorMessage(error)}`,
          );
        const why =
          error instanceof InvestigationFailure
            ? error.message
            : `${model.label} could not finish this answer: the investigation hit an unexpected error (${errorMessage(error)})`;
        fallback = {
          note: `${why}. This is the engine's own answer, from its search.`,
          spent: error instanceof InvestigationFailure ? error.spent : { inputTokens: 0, outputTokens: 0, toolCalls: 0 },
        };
        await request.report(`${why}: answering from the engine's own search`);
      }
    }
    const run = new AnswerRun(this.options, request, context);
    const findings = await run.investigate();
    await run.step('Writing the answer');
    const answer = writeAnswer(findings);
    const spent = fallback?.spent ?? { inputTokens: 0, outputTokens: 0, toolCalls: 0 };
    return {
      title: titleFor(request.question),
      answer: fallback ? `> ${fallback.note}\n\n${answer}` : answer,
      sources: sourcesOf(findings),
      suggestedFollowups: suggestFollowups(findings),
      // Without a model, no tokens to count, only what the engine did; after one that failed, what it used too.
      stats: {
        ...zeroStats(),
        time_millis: Date.now() - started,
        tool_calls: run.toolCalls + spent.toolCalls,
        total_input_tokens: spent.inputTokens,
        prompt_tokens: spent.inputTokens,
        completion_tokens: spent.outputTokens,
        total_tokens: spent.inputTokens + spent.outputTokens,
      },
    };
  }
}

/** The files the answer quotes and links, by the link form of the instance's sources. */
function sourcesOf(findings: Findings): WireSource[] {
  const spans = [findings.lead, ...findings.also, ...findings.candidates].filter((span): span is AnswerSpan => span !== undefined);
  const seen = new Set<string>();
  const sources: WireSource[] = [];
  for (const { file } of spans) {
    // As the answer's own links are written (a space, `#` or `)` in a path encoded), relative to the instance.
    const link = blobUrl('', file.target.repo.name, file.path);
    if (seen.has(link)) continue;
    seen.add(link);
    sources.push({ type: 'File', link, label: file.path, metadata: { repoName: file.target.repo.name, revision: file.target.commit } });
  }
  return sources;
}

/** The state of one answer in progress. */
class AnswerRun {
  toolCalls = 0;

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
    // What the question's @-mentions name is all that is searched.
    const scope = mentionScope(this.request.question, this.options.repositories);
    const repositories = scope.repositories;
    const question = this.questionToSearch(scope.text);
    const findings: Findings = {
      question,
      searched: repositories,
      also: [],
      candidates: [],
      related: [],
      knownNames: new Set(),
      totalFiles: 0,
      notes: [],
      instanceUrl: this.options.instanceUrl,
    };
    if (question.terms.length === 0) {
      await this.step('The question names nothing to search for');
      return findings;
    }
    const quoted = question.shown.map((word) => `\`${word}\``).join(', ');
    if (scope.named.length > 0) await this.step(`Searching only what the question names: ${scope.named.map((name) => `@${name}`).join(', ')}`);
    await this.step(`Searching ${plural(repositories.length, 'repository', 'repositories')} for ${quoted}…`);
    let retrieved: Awaited<ReturnType<typeof retrieve>>;
    try {
      this.toolCalls++;
      retrieved = await retrieve(this.context, question, {
        ...(scope.query ? { query: scope.query } : {}),
        waitForSymbols: true,
        waitForIndexes: {
          maxWaitMs: INDEX_WAIT_MS,
          waiting: (names) => this.step(`Waiting for the search index of ${names.join(', ')} to be built`),
        },
        reading: async (files) => {
          this.toolCalls += files.length;
          const named = files
            .slice(0, 3)
            .map(({ path }) => oneLine(path))
            .join(', ');
          await this.step(`Reading ${plural(files.length, 'candidate file')} and their definitions: ${named}${files.length > 3 ? ', …' : ''}`);
        },
      });
    } catch (error) {
      // Nothing searchable (no repository with commits, folders gone): said in the answer, not a failure.
      if (!(error instanceof ToolError) || this.request.signal.aborted) throw error;
      findings.notes.push(error.message.replace(/\.$/, ''));
      await this.step('Nothing could be searched');
      return findings;
    }
    for (const note of retrieved.notes) {
      findings.notes.push(note.replace(/\.$/, ''));
      await this.step(note);
    }
    findings.totalFiles = retrieved.total;
    if (retrieved.total === 0) {
      await this.step('No file mentions these terms');
      return findings;
    }
    const leading = retrieved.spans.filter((span) => LEADING_KINDS.has(span.file.kind));
    const lead = leading[0] ?? retrieved.spans[0];
    if (!lead) return findings;
    findings.lead = lead;
    await this.step(
      lead.definition ? `Found \`${lead.definition.name}\` in ${oneLine(lead.file.path)}` : `Found the closest lines in ${oneLine(lead.file.path)}`,
    );
    // A short wrapper's work is in what it calls: that comes first after it.
    const delegate = delegateOf(lead, retrieved.spans);
    findings.also = delegate
      ? [delegate, ...nearLead(leading, lead).filter((span) => !overlaps(span, delegate))].slice(0, ALSO_QUOTED)
      : nearLead(leading, lead);
    // When the lead is not clearly ahead, the next guesses are named too (each from a file not cited yet).
    if (!clearlyAhead(lead, leading, retrieved.unanimous, question, retrieved.weights)) findings.candidates = secondGuesses(leading, [lead, ...findings.also]);
    findings.related = retrieved.files.filter((file) => !LEADING_KINDS.has(file.kind));
    findings.knownNames = new Set(retrieved.files.flatMap((file) => (file.definitions ?? []).map((definition) => definition.name)));
    if (lead.definition) {
      await this.step(`Looking for what uses \`${lead.definition.name}\``);
      this.toolCalls++;
      findings.reach = await findReach(this.context, lead.file.target, lead.file.path, lead.definition).catch((error: unknown) => {
        if (this.request.signal.aborted || !(error instanceof ToolError)) throw error;
        return undefined;
      });
    }
    return findings;
  }

  /** The question, or the latest earlier one that names something (for a follow-up such as "why?"). */
  private questionToSearch(question: string): QuestionAnalysis {
    const { earlierQuestions } = this.request;
    const asked = analyseQuestion(question);
    if (asked.terms.length > 0) return asked;
    for (const earlier of [...earlierQuestions].reverse()) {
      const analysis = analyseQuestion(earlier);
      if (analysis.terms.length > 0) return analysis;
    }
    return asked;
  }
}

/** Lines of a definition that only hands its work on (`call() { return this.do_call() }`). */
const WRAPPER_LINES = 8;

/**
 * The definition of the lead's own file that a short lead calls (its delegate), as a span: the
 * ranked one where it was ranked (with its best lines), else the definition whole.
 */
function delegateOf(lead: AnswerSpan, spans: readonly AnswerSpan[]): AnswerSpan | undefined {
  const { definition, file } = lead;
  if (!definition || lead.end - lead.start + 1 > WRAPPER_LINES || !file.definitions) return undefined;
  const called = new Set<string>();
  for (let line = lead.start; line <= lead.end; line++) {
    for (const match of codeOf(file.lines[line - 1] ?? '').matchAll(/(?<![\w$])([A-Za-z_$][\w$]*)\s*\(/g))
      if (match[1] && match[1] !== definition.name) called.add(match[1]);
  }
  const target = file.definitions.find(
    (candidate) =>
      candidate !== definition &&
      called.has(candidate.name) &&
      (candidate.kind === 'function' || candidate.kind === 'method') &&
      candidate.line <= file.lines.length,
  );
  if (!target) return undefined;
  const ranked = spans.find((span) => span.file === file && span.definition === target);
  if (ranked) return ranked;
  const end = Math.min(file.lines.length, Math.max(target.line, target.endLine));
  return { file, definition: target, start: target.line, end, bestLine: target.nameLine, score: lead.score, termsHeld: [], named: false };
}

function overlaps(a: AnswerSpan, b: AnswerSpan): boolean {
  return a.file === b.file && a.start <= b.end && b.start <= a.end;
}

/** A path as a turn shows it: on one line (git allows line breaks in names). */
function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]/g, ' ');
}

/** Second guesses named at most. */
const SECOND_GUESSES = 4;
/** The lead is clearly ahead when the best span of another file scores under this share of it (and every ranking agrees). */
const CLEARLY_AHEAD_SHARE = 0.5;

/** The share of the weight of what a question asks besides the name it names that the named lead holds, for it to be the whole answer. */
const ANSWERS_THE_REST = 0.5;

/**
 * Whether the lead needs no second guess: the question names it and asks nothing of it that its
 * lines do not hold (how `res.render` finds the template file: `res.render` hands that on), or
 * every ranking puts it first and nothing else comes near.
 */
function clearlyAhead(lead: AnswerSpan, leading: readonly AnswerSpan[], unanimous: boolean, question: QuestionAnalysis, weights: TermWeights): boolean {
  if (lead.named) return !question.asksHow || holdsTheRest(lead, question, weights);
  const next = leading.find((span) => span.file !== lead.file);
  return unanimous && (next === undefined || next.score < lead.score * CLEARLY_AHEAD_SHARE);
}

/** Whether the lead's lines hold most of the weight of the question's terms that are not the names it names. */
function holdsTheRest(lead: AnswerSpan, question: QuestionAnalysis, weights: TermWeights): boolean {
  const named = [...question.names, ...question.members.map(({ owner }) => owner)].map(squashName);
  const rest = question.terms.map((term) => term.text).filter((term) => !named.some((name) => name.includes(term.replaceAll('_', ''))));
  const total = rest.reduce((sum, term) => sum + (weights.get(term) ?? 0), 0);
  if (total === 0) return true;
  const held = rest.filter((term) => lead.termsHeld.includes(term)).reduce((sum, term) => sum + (weights.get(term) ?? 0), 0);
  return held >= ANSWERS_THE_REST * total;
}

/** The best span of each further file, in the answer's order, up to `SECOND_GUESSES`. */
function secondGuesses(leading: readonly AnswerSpan[], cited: readonly AnswerSpan[]): AnswerSpan[] {
  const files = new Set(cited.map((span) => span.file));
  const guesses: AnswerSpan[] = [];
  for (const span of leading) {
    if (guesses.length === SECOND_GUESSES) break;
    if (files.has(span.file)) continue;
    files.add(span.file);
    guesses.push(span);
  }
  return guesses;
}

/**
 * The next spans that score near the lead (in its file or another), none overlapping one already
 * chosen: an answer is often two definitions (the method and the helper it calls).
 */
function nearLead(spans: readonly AnswerSpan[], lead: AnswerSpan): AnswerSpan[] {
  const chosen: AnswerSpan[] = [lead];
  for (const span of spans) {
    if (chosen.length > ALSO_QUOTED) break;
    // In the fused order, a span near the lead's score may come after one that is not.
    if (span.score < lead.score * ALSO_SHARE) continue;
    if (chosen.some((known) => known.file === span.file && known.start <= span.end && span.start <= known.end)) continue;
    chosen.push(span);
  }
  return chosen.slice(1);
}
