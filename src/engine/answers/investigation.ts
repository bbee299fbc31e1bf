/**
 * An investigation by the user's model, the way Deep Search investigates: the model calls the
 * engine's own tools (the code its tool server runs, `tools/toolCalls.ts`) turn after turn, each
 * call shown as a turn of the question, until it writes the answer. Bounded by steps, tokens and
 * time; a call it already made is not run again, and a model that only repeats itself is stopped.
 * The answer's links are then checked against the repositories (`citations.ts`): each one names
 * a file that exists and lines that hold what it quotes, or is repaired or removed. Sources are the
 * files the investigation read. A failure is an `InvestigationFailure`, which says what happened,
 * for the answerer to answer on its own.
 */
import type { WireSource, WireStats } from '../../contract/legacyWire';
import type { ModelMessage, ModelTool, ModelToolCall, ModelTurn } from '../../contract/modelWire';
import { zeroStats } from '../../contract/legacyWire';
import { isModelError, type ChatModel, type InvestigationLimits } from '../models/chatModel';
import { failureSentence } from '../models/modelFailure';
import { ToolError, type ToolContext } from '../repo/context';
import { problems } from '../tools/jsonSchema';
import { findRepository, normalizeRepoPath } from '../repo/paths';
import { toolTable, type ServedTool, type ToolArguments } from '../tools/toolCalls';
import type { Answer, EarlierExchange } from './answerShapes';
import { blobUrl, titleFor } from './answerWriter';
import { citationReader } from './citationReader';
import { checkCitations } from './citations';
import { describeCall, instructionsFor, takeFollowups, WRITE_NOW } from './investigationPrompt';

/** The tools the model may call: the tool server's, less those that ask Deep Search itself. */
const LEFT_OUT = ['deepsearch', 'deepsearch_read'];
/** A tool result the model reads, at most (the rest is cut, and the model told how to narrow). */
const MAX_RESULT_CHARS = 12_000;
/** The conversation a turn sends, at most (every text, call and argument): past it, the oldest results are left out. */
const MAX_HISTORY_CHARS = 240_000;
/** The arguments of one call, at most: longer ones are refused (and not carried in the history). */
const MAX_ARGUMENT_CHARS = 16 * 1024;
/** Tool calls of one turn that run; the others are answered with an error. */
const MAX_CALLS_PER_TURN = 8;
/** Turns in a row that only repeat earlier calls before the model counts as looping. */
const MAX_STALE_TURNS = 2;
/** Tokens one turn may write. */
const MAX_OUTPUT_TOKENS = 4_096;
/** The answer a model writes, at most. */
const MAX_ANSWER_CHARS = 200_000;
/** Earlier exchanges of the conversation a follow-up carries, and the characters of each answer. */
const EARLIER_EXCHANGES = 4;
const EARLIER_ANSWER_CHARS = 6_000;
/** Characters of a model's interim text shown as a turn. */
const THOUGHT_CHARS = 300;
const MAX_SOURCES = 50;

export interface InvestigationRequest {
  question: string;
  earlier: readonly EarlierExchange[];
  signal: AbortSignal;
  report(reasoning: string): Promise<void>;
}

/**
 * Why the model's investigation ended without an answer: a sentence that names the model and what
 * happened (no final stop), for the answer's first line.
 */
export class InvestigationFailure extends Error {
  constructor(
    message: string,
    /** What the model used before it failed (its tokens, the tools it called). */
    readonly spent: { inputTokens: number; outputTokens: number; toolCalls: number },
  ) {
    super(message);
    this.name = 'InvestigationFailure';
  }
}

export interface InvestigationOptions {
  model: ChatModel;
  limits: InvestigationLimits;
  /** Tools an admin disabled (2026 names): the model does not get them either. */
  disabledTools?: readonly string[];
  log?: (line: string) => void;
}

export async function investigate(options: InvestigationOptions, context: ToolContext, request: InvestigationRequest): Promise<Answer> {
  const started = Date.now();
  const deadline = AbortSignal.timeout(options.limits.timeoutMs);
  const signal = AbortSignal.any([request.signal, deadline]);
  const run = new Investigation(options, { ...context, signal }, request);
  try {
    const written = await run.loop(signal);
    await request.report('Checking the citations against the repositories');
    const { answer, followups } = takeFollowups(written.slice(0, MAX_ANSWER_CHARS));
    if (answer === '') throw run.failure('it wrote no answer');
    const checking = performance.now();
    // Within the investigation's deadline: a check that cannot finish in time leaves no unchecked link.
    const checked = await checkCitations(answer, context.instanceUrl, citationReader({ ...context, signal }));
    run.logTimes(Date.now() - started, { ...checked, ms: performance.now() - checking });
    return {
      title: titleFor(request.question),
      answer: checked.markdown,
      sources: run.sources(),
      suggestedFollowups: followups,
      stats: run.stats(Date.now() - started),
    };
  } catch (error) {
    request.signal.throwIfAborted();
    const seconds = Math.round(options.limits.timeoutMs / 1000);
    if (deadline.aborted)
      throw run.waitingForModel
        ? run.failed(`${options.model.label} sent no answer in ${seconds} s, the time a question may take`)
        : run.failure(`the investigation took longer than ${seconds} s`);
    // Recognised by its kind, not its class: the model client may be a bundle of its own.
    if (isModelError(error)) throw run.failed(failureSentence(error, run.toolCallsMade));
    throw error;
  }
}

class Investigation {
  private readonly tools: Map<string, ServedTool>;
  private readonly offered: ModelTool[];
  private readonly messages: ModelMessage[] = [];
  private readonly usage = { inputTokens: 0, outputTokens: 0 };
  private toolCalls = 0;
  private turns = 0;
  /** Whether the investigation is waiting for the model now (a deadline then is the model's). */
  waitingForModel = false;
  /** Time spent waiting for the model and in the tools; the rest is the engine's own. */
  private readonly spentMs = { model: 0, tools: 0 };
  /** Calls made, by their name and arguments, with the step that made them. */
  private readonly made = new Map<string, number>();
  /** Calls refused (unknown tool, arguments that are not JSON or do not fit), by name and text, with the step. */
  private readonly refused = new Map<string, number>();
  /** The call behind each tool result, to forget it when its result is left out for room. */
  private readonly callOfResult = new Map<ModelMessage, string>();
  /** Files read, in the order first read. */
  private readonly read = new Map<string, { repo: string; path: string }>();

  constructor(
    private readonly options: InvestigationOptions,
    private readonly context: ToolContext,
    private readonly request: InvestigationRequest,
  ) {
    this.tools = toolTable('all', new Set([...LEFT_OUT, ...(options.disabledTools ?? [])]), options.log ?? ((): void => undefined));
    this.offered = [...this.tools.values()].map(({ listed }) => ({
      name: listed.name,
      description: listed.description,
      inputSchema: listed.inputSchema as unknown as Record<string, unknown>,
    }));
    for (const exchange of request.earlier.slice(-EARLIER_EXCHANGES)) {
      this.messages.push({ role: 'user', text: exchange.question });
      this.messages.push({ role: 'assistant', text: cut(exchange.answer, EARLIER_ANSWER_CHARS, 'the rest of this earlier answer is left out'), toolCalls: [] });
    }
    this.messages.push({ role: 'user', text: request.question });
  }

  get toolCallsMade(): number {
    return this.toolCalls;
  }

  /** The model could not finish, for a reason of the investigation's (`why`). */
  failure(why: string): InvestigationFailure {
    return this.failed(`${this.options.model.label} could not finish this answer: ${why}`);
  }

  /** The investigation ended with this sentence, keeping what was spent. */
  failed(sentence: string): InvestigationFailure {
    return new InvestigationFailure(sentence, { ...this.usage, toolCalls: this.toolCalls });
  }

  /** Turns until the model answers in words; its last text is the answer. */
  async loop(signal: AbortSignal): Promise<string> {
    const { limits, model } = this.options;
    const repositories = this.context.repositories.map((repo) => repo.name);
    const instructions = instructionsFor(repositories, this.context.instanceUrl);
    await this.request.report(`Investigating with ${model.label}`);
    let stale = 0;
    for (let step = 1; ; step++) {
      const last = step > limits.maxSteps;
      if (last) this.messages.push({ role: 'user', text: WRITE_NOW });
      this.fitHistory();
      const asked = performance.now();
      this.waitingForModel = true;
      const turn = await model.turn({ instructions, messages: this.messages, tools: last ? [] : this.offered, maxOutputTokens: MAX_OUTPUT_TOKENS }, signal);
      this.waitingForModel = false;
      this.spentMs.model += performance.now() - asked;
      this.turns++;
      this.count(turn);
      if (turn.toolCalls.length === 0 || last) return turn.text;
      if (this.usage.inputTokens + this.usage.outputTokens > limits.maxTokens) {
        throw this.failure(`it used more than its budget of ${limits.maxTokens.toLocaleString('en-US')} tokens before it answered`);
      }
      const thought = turn.text.replace(/\s+/g, ' ').trim();
      if (thought !== '') await this.request.report(cut(thought, THOUGHT_CHARS, ''));
      // Calls that are not run are carried without their arguments: the history holds what the model may build on.
      const carried = turn.toolCalls.map((call, index) =>
        index < MAX_CALLS_PER_TURN && call.arguments.length <= MAX_ARGUMENT_CHARS ? call : { ...call, arguments: '{}' },
      );
      this.messages.push({ role: 'assistant', text: turn.text, toolCalls: carried });
      let fresh = 0;
      for (const [index, call] of turn.toolCalls.entries()) {
        signal.throwIfAborted();
        const result =
          index < MAX_CALLS_PER_TURN
            ? await this.call(call, step)
            : {
                text: `Not run: at most ${MAX_CALLS_PER_TURN} tool calls are made per turn. Make it again in the next turn if you still need it.`,
                fresh: false,
              };
        if (result.fresh) fresh++;
        const message: ModelMessage = { role: 'tool', callId: call.id, name: call.name, text: result.text };
        if (result.key !== undefined) this.callOfResult.set(message, result.key);
        this.messages.push(message);
      }
      stale = fresh === 0 ? stale + 1 : 0;
      if (stale >= MAX_STALE_TURNS) throw this.failure('it kept repeating tool calls it had already made');
    }
  }

  /**
   * Runs one call (unless it was made before), shown as a turn and counted only once its arguments
   * pass; its result as the model reads it. A call refused again as it was before is no progress.
   */
  private async call(call: ModelToolCall, step: number): Promise<{ text: string; fresh: boolean; key?: string }> {
    const name = call.name.slice(0, 200);
    const refuse = (why: string): { text: string; fresh: boolean } => {
      const key = `${name}\0${call.arguments.slice(0, MAX_ARGUMENT_CHARS + 1)}`;
      const before = this.refused.get(key);
      if (before !== undefined)
        return { text: `${why} This is the call refused at step ${before}, made again unchanged: change it, or write the answer.`, fresh: false };
      this.refused.set(key, step);
      return { text: why, fresh: true };
    };
    const tool = this.tools.get(name);
    if (!tool) return refuse(`There is no tool named ${JSON.stringify(name.slice(0, 80))}: use one of ${[...this.tools.keys()].join(', ')}.`);
    if (call.arguments.length > MAX_ARGUMENT_CHARS)
      return refuse(`The arguments of ${name} are longer than ${MAX_ARGUMENT_CHARS / 1024} KB: call it again with shorter ones.`);
    let args: ToolArguments;
    try {
      const parsed: unknown = JSON.parse(call.arguments || '{}');
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not a JSON object');
      args = parsed as ToolArguments;
    } catch (error) {
      return refuse(
        `The arguments of ${name} are not a JSON object (${error instanceof Error ? error.message : String(error)}): call it again with valid JSON arguments.`,
      );
    }
    const wrong = problems(tool.listed.inputSchema, args);
    if (wrong.length > 0) return refuse(`The arguments of ${name} do not fit its schema: ${wrong.join('; ')}. Call it again with arguments that do.`);
    const key = `${name}\0${stableJson(args)}`;
    const before = this.made.get(key);
    if (before !== undefined)
      return { text: `This exact call was already made (step ${before}); its result is above. Make a different call, or write the answer.`, fresh: false };
    this.made.set(key, step);
    await this.request.report(describeCall(name, args));
    this.toolCalls++;
    const called = performance.now();
    const result = await tool.call(args, this.context);
    this.spentMs.tools += performance.now() - called;
    this.context.searchIndexes?.buildWanted();
    if (!result.ok) return { text: cut(`Error: ${result.failure.message}`, MAX_RESULT_CHARS, ''), fresh: true, key };
    for (const file of result.filesRead) this.remember(file.repo, file.path);
    return {
      text: cut([result.text, ...result.notes].join('\n\n'), MAX_RESULT_CHARS, 'narrow the request (a line range, a filter) to see the rest'),
      fresh: true,
      key,
    };
  }

  /** A file read, by the repository's own name and the normalised path (as the model spelled them, they may differ). */
  private remember(repo: string, path: string): void {
    let source: { repo: string; path: string };
    try {
      source = { repo: findRepository(this.context, repo).name, path: normalizeRepoPath(path) };
    } catch (error) {
      if (error instanceof ToolError) return;
      throw error;
    }
    const key = `${source.repo}\0${source.path}`;
    if (source.path !== '' && !this.read.has(key) && this.read.size < MAX_SOURCES) this.read.set(key, source);
  }

  private count(turn: ModelTurn): void {
    this.usage.inputTokens += Math.max(0, turn.usage.inputTokens);
    this.usage.outputTokens += Math.max(0, turn.usage.outputTokens);
  }

  /** One line per answer in the engine's log: where its time went (the engine's own share is the overhead it adds). */
  logTimes(totalMs: number, citations: { checked: number; repaired: number; removed: number; ms: number }): void {
    const { model, tools } = this.spentMs;
    const own = Math.max(0, totalMs - model - tools - citations.ms);
    this.options.log?.(
      `investigation: ${this.turns} model turns, ${this.toolCalls} tool calls, ${citations.checked} links checked (${citations.repaired} repaired, ${citations.removed} removed); ` +
        `model ${model.toFixed(0)} ms, tools ${tools.toFixed(0)} ms, links ${citations.ms.toFixed(0)} ms, engine ${own.toFixed(1)} ms`,
    );
  }

  /**
   * Leaves out the oldest tool results, then the oldest interim texts and calls' arguments (the
   * question stays), until everything a turn sends fits. A call whose result was left out is
   * forgotten, so that the model may make it again, as it is told.
   */
  private fitHistory(): void {
    let size = this.messages.reduce((total, message) => total + sizeOf(message), 0);
    const shorten = (message: ModelMessage, shorter: () => void): void => {
      const before = sizeOf(message);
      shorter();
      size -= before - sizeOf(message);
    };
    for (const message of this.messages) {
      if (size <= MAX_HISTORY_CHARS) return;
      if (message.role !== 'tool' || message.text.length < 200) continue;
      shorten(message, () => {
        message.text = `(This result of ${message.name} was left out to make room: make the call again if you still need it.)`;
      });
      const key = this.callOfResult.get(message);
      if (key !== undefined) this.made.delete(key);
      this.callOfResult.delete(message);
    }
    for (const message of this.messages.slice(0, -1)) {
      if (size <= MAX_HISTORY_CHARS) return;
      if (message.role !== 'assistant' || sizeOf(message) < 200) continue;
      shorten(message, () => {
        message.text = message.text === '' ? '' : '(Left out to make room.)';
        message.toolCalls = message.toolCalls.map((call) => ({ ...call, arguments: '{}' }));
      });
    }
  }

  /** As the answer's own links are written, relative to the instance. */
  sources(): WireSource[] {
    return [...this.read.values()].map(({ repo, path }) => ({ type: 'File', link: blobUrl('', repo, path), label: path, metadata: { repoName: repo } }));
  }

  stats(timeMillis: number): WireStats {
    const { inputTokens, outputTokens } = this.usage;
    return {
      ...zeroStats(),
      time_millis: timeMillis,
      tool_calls: this.toolCalls,
      total_input_tokens: inputTokens,
      prompt_tokens: inputTokens,
      completion_tokens: outputTokens,
      total_tokens: inputTokens + outputTokens,
    };
  }
}

/** What a message adds to a turn's request: its text, and each call's name and arguments. */
function sizeOf(message: ModelMessage): number {
  if (message.role !== 'assistant') return message.text.length + (message.role === 'tool' ? message.name.length + message.callId.length : 0);
  return message.text.length + message.toolCalls.reduce((total, call) => total + call.id.length + call.name.length + call.arguments.length, 0);
}

function cut(text: string, max: number, advice: string): string {
  if (text.length <= max) return text;
  const rest = text.length - max;
  return `${text.slice(0, max)}… (${rest.toLocaleString('en-US')} more characters${advice ? `: ${advice}` : ''})`;
}

/** JSON with keys in order, so that the same call written twice is known as one. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
