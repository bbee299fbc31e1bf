/**
 * The conversation service: creates, answers, lists, cancels and deletes conversations in the wire
 * format of the legacy Deep Search API. It owns the in-memory state, persists every change before
 * acknowledging it, and runs one cancellable answer per processing question.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WireConversation, WireQuestion, WireQuestionError } from '../../contract/legacyWire';
import type { Answer, AnswerRequest } from '../answers/answerShapes';
import type { AuthenticatedUser } from '../http/auth';
import { diskFullCode, diskFullHttpError, isDiskFull, UNSAVED_LOG, unsavedQuestionError, type UnsavedStage } from './diskFull';
import { HttpError } from '../http/http';
import { selectPage, type ListQuery } from './listing';
import type { EngineFaults, EngineVariant } from '../options';
import { isFinished, nextTimestamp, unixSeconds, zeroStats, type ConversationRecord, type GeneratedFile, type IdCounters } from './records';
import type { ConversationStorage } from './storage';
import { errorMessage } from '../../contract/errorMessage';

export type ResolvedVariant = Required<EngineVariant>;

export interface ConversationServiceOptions {
  storage: ConversationStorage;
  records: readonly ConversationRecord[];
  counters: IdCounters;
  answer: (request: AnswerRequest) => Promise<Answer>;
  instanceUrl: string;
  sharing: boolean;
  paceMs: number;
  variant: ResolvedVariant;
  faults: EngineFaults;
  log: (line: string) => void;
}

export interface ConversationPage {
  conversations: WireConversation[];
  nextCursor: string | null;
}

interface Run {
  controller: AbortController;
  done: Promise<void>;
}

/** How a question ends when it does not end with an answer. */
type Ending = { kind: 'answered'; answer: Answer } | { kind: 'failed'; error: WireQuestionError } | { kind: 'cancelled' };

export class ConversationService {
  private readonly records = new Map<number, ConversationRecord>();
  private readonly runs = new Map<number, Run>();
  /**
   * Per question id: the question as it was last stored, shown instead of its ending while that
   * ending is being written. An ending (an answer, a failure, a cancellation) is shown only once it
   * is on disk: one that cannot be stored must never have been seen.
   */
  private readonly endingsBeingStored = new Map<number, WireQuestion>();
  private closing = false;

  constructor(private readonly options: ConversationServiceOptions) {
    for (const record of options.records) this.records.set(record.id, record);
  }

  /** Restarts the answer of every question that was still processing when the engine stopped. */
  resumeProcessing(): void {
    for (const record of this.records.values()) {
      for (const question of record.questions) {
        if (!isFinished(question)) this.startRun(record, question, true);
      }
    }
  }

  async create(user: AuthenticatedUser, text: string): Promise<WireConversation> {
    const now = nextTimestamp();
    const id = this.options.counters.nextConversationId++;
    const question = this.newQuestion(id, text, now);
    const record: ConversationRecord = {
      id,
      user_id: user.id,
      read_token: randomUUID(),
      created_at: now,
      updated_at: now,
      starred: false,
      questions: [question],
    };
    const reply = this.render(record, user.id);
    try {
      await this.saveWithCounters(record);
    } catch (error) {
      // Not durable, so not acknowledged and not listed. Should the file have reached the disk after
      // all (a failure past the rename), it goes too: it must not turn up at the next start.
      await this.options.storage.remove(id).catch(() => undefined);
      throw this.storageFailure(error, `conversation ${id}`, 'the conversation was not created', 'ask again');
    }
    this.records.set(id, record);
    this.startRun(record, question, false);
    return reply;
  }

  get(user: AuthenticatedUser, id: number): WireConversation {
    return this.render(this.owned(user, id), user.id);
  }

  /** A file an answer of the user's conversation generated. */
  generatedFile(user: AuthenticatedUser, id: number, name: string): GeneratedFile {
    const file = this.owned(user, id).files?.find((candidate) => candidate.name === name);
    if (!file) throw new HttpError(404, `Conversation ${id} has no file named ${JSON.stringify(name.slice(0, 128))}.`);
    return file;
  }

  getQuestion(user: AuthenticatedUser, id: number, questionId: number): WireQuestion {
    return structuredClone(this.shown(this.questionOf(this.owned(user, id), questionId)));
  }

  list(user: AuthenticatedUser, query: ListQuery): ConversationPage {
    const page = selectPage(this.records.values(), query, user.id, this.options.sharing);
    return { conversations: page.records.map((record) => this.render(record, user.id)), nextCursor: page.nextCursor };
  }

  /** The conversation behind a share link, if `viewerId` (undefined: anonymous) may read it. */
  findShared(readToken: string, viewerId: number | undefined): WireConversation | undefined {
    for (const record of this.records.values()) {
      if (record.read_token !== readToken) continue;
      if (record.user_id === viewerId || this.options.sharing) return this.render(record, viewerId);
    }
    return undefined;
  }

  async addFollowup(user: AuthenticatedUser, id: number, text: string): Promise<WireQuestion | WireConversation> {
    const record = this.owned(user, id);
    const busy = record.questions.find((question) => !isFinished(this.shown(question)));
    if (busy) {
      throw new HttpError(409, `Conversation ${id} is still answering question ${busy.id}: wait until it completes, or cancel it, before asking a follow-up.`);
    }
    const previousUpdate = record.updated_at;
    const now = nextTimestamp(previousUpdate);
    const question = this.newQuestion(id, text, now);
    record.questions.push(question);
    record.updated_at = now;
    const reply = this.options.variant.followupReturns === 'conversation' ? this.render(record, user.id) : structuredClone(question);
    try {
      await this.saveWithCounters(record);
    } catch (error) {
      // The conversation stays as it is on disk.
      record.questions = record.questions.filter((candidate) => candidate !== question);
      if (record.updated_at === now) record.updated_at = previousUpdate;
      throw this.storageFailure(error, `conversation ${id}`, 'the follow-up was not added', 'ask it again');
    }
    this.startRun(record, question, false);
    return reply;
  }

  /** Stops the question's work and ends it as cancelled; a finished question is left as it is. */
  async cancel(user: AuthenticatedUser, id: number, questionId: number): Promise<WireConversation> {
    const record = this.owned(user, id);
    const question = this.questionOf(record, questionId);
    if (this.endingsBeingStored.has(question.id)) {
      // It ended a moment ago and that ending is being written: it stands, so reply once it shows.
      await this.runs.get(question.id)?.done;
    } else if (!isFinished(question)) {
      const [, saved] = await Promise.allSettled([this.stopRun(question.id), this.endAndSave(record, question, { kind: 'cancelled' })]);
      if (saved.status === 'rejected') {
        // The work is stopped, as asked, but the disk still says processing: do not show it cancelled.
        if (isDiskFull(saved.reason)) this.endUnsaved(record, question, 'cancel', saved.reason);
        throw this.storageFailure(
          saved.reason,
          `question ${questionId}`,
          'answering the question stopped but it could not be marked cancelled',
          'ask it again if you still need an answer',
        );
      }
    }
    return this.render(record, user.id);
  }

  async delete(user: AuthenticatedUser, id: number): Promise<void> {
    const record = this.owned(user, id);
    this.records.delete(id);
    await Promise.all(record.questions.map((question) => this.stopRun(question.id)));
    try {
      await this.options.storage.remove(id);
    } catch (error) {
      // Still on disk, so still here (some file systems need space even to delete): put it back.
      if (!this.records.has(id)) {
        this.records.set(id, record);
        for (const question of record.questions) {
          if (!isFinished(question)) this.startRun(record, question, true);
        }
      }
      throw this.storageFailure(error, `conversation ${id}`, `conversation ${id} was not deleted`, 'delete it again');
    }
  }

  async deleteAll(user: AuthenticatedUser): Promise<void> {
    const owned = [...this.records.values()].filter((record) => record.user_id === user.id);
    const results = await Promise.allSettled(owned.map((record) => this.delete(user, record.id)));
    const failed = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
    const first = failed[0]?.reason as unknown;
    if (first instanceof HttpError && first.status === 507) {
      throw diskFullHttpError(`${failed.length} of ${owned.length} conversations were not deleted`, 'delete them again');
    }
    if (failed.length > 0) throw first;
  }

  async rotateReadToken(user: AuthenticatedUser, id: number): Promise<{ read_token: string }> {
    const record = this.owned(user, id);
    const previous = { read_token: record.read_token, updated_at: record.updated_at };
    record.read_token = randomUUID();
    record.updated_at = nextTimestamp(record.updated_at);
    const rotated = { read_token: record.read_token, updated_at: record.updated_at };
    try {
      await this.options.storage.save(record);
    } catch (error) {
      // The disk keeps the old token, so the old share link goes on working.
      if (record.read_token === rotated.read_token) record.read_token = previous.read_token;
      if (record.updated_at === rotated.updated_at) record.updated_at = previous.updated_at;
      throw this.storageFailure(error, `conversation ${id}`, 'the read token was not replaced (the old share link still works)', 'try again');
    }
    return { read_token: record.read_token };
  }

  /** Stops every answer without recording an ending, so they resume at the next start. */
  async shutdown(): Promise<void> {
    this.closing = true;
    await Promise.all([...this.runs.keys()].map((questionId) => this.stopRun(questionId)));
  }

  /** The id counters first, then the record: a record on disk never has an id the counters may hand out again. */
  private async saveWithCounters(record: ConversationRecord): Promise<void> {
    await this.options.storage.saveCounters(this.options.counters);
    await this.options.storage.save(record);
  }

  /** A failed write of a request: a full disk becomes a 507 that says so (logged in one line); anything else is left as it is. */
  private storageFailure(error: unknown, subject: string, outcome: string, retry: string): unknown {
    if (!isDiskFull(error)) return error;
    this.options.log(`storage: the data folder is full (${diskFullCode(error)}): ${subject}: ${outcome}`);
    return diskFullHttpError(outcome, retry);
  }

  private owned(user: AuthenticatedUser, id: number): ConversationRecord {
    const record = this.records.get(id);
    // Someone else's conversation is "not found" too, so ids do not reveal what exists.
    if (!record || record.user_id !== user.id) throw new HttpError(404, `No conversation with id ${id}.`);
    return record;
  }

  private questionOf(record: ConversationRecord, questionId: number): WireQuestion {
    const question = record.questions.find((candidate) => candidate.id === questionId);
    if (!question) throw new HttpError(404, `Conversation ${record.id} has no question with id ${questionId}.`);
    return question;
  }

  private newQuestion(conversationId: number, text: string, now: string): WireQuestion {
    return {
      id: this.options.counters.nextQuestionId++,
      conversation_id: conversationId,
      question: text,
      created_at: now,
      updated_at: now,
      status: 'processing',
      turns: [{ role: 'user', reasoning: text, timestamp: unixSeconds() }],
      stats: zeroStats(),
      suggested_followups: null,
    };
  }

  private render(record: ConversationRecord, viewerId: number | undefined): WireConversation {
    const conversation: WireConversation = {
      id: record.id,
      questions: structuredClone(record.questions.map((question) => this.shown(question))),
      created_at: record.created_at,
      updated_at: record.updated_at,
      user_id: record.user_id,
      read_token: record.read_token,
      share_url: `${this.options.instanceUrl}/deepsearch/${record.read_token}`,
    };
    if (conversation.questions.every(isFinished)) {
      conversation.viewer = { is_owner: record.user_id === viewerId };
      conversation.quota_usage = { total_quota: 0, quota_limit: -1, reset_time: startOfNextMonth() };
    }
    return conversation;
  }

  private startRun(record: ConversationRecord, question: WireQuestion, resumed: boolean): void {
    if (this.closing) return;
    const controller = new AbortController();
    const done = this.answer(record, question, controller.signal, resumed)
      .catch((error: unknown) => this.options.log(`question ${question.id}: could not record its outcome: ${describe(error)}`))
      .finally(() => {
        if (this.runs.get(question.id)?.controller === controller) this.runs.delete(question.id);
      });
    this.runs.set(question.id, { controller, done });
  }

  private async stopRun(questionId: number): Promise<void> {
    const run = this.runs.get(questionId);
    if (!run) return;
    run.controller.abort();
    await run.done;
  }

  private async answer(record: ConversationRecord, question: WireQuestion, signal: AbortSignal, resumed: boolean): Promise<void> {
    // Cancel, delete and shutdown abort the signal; whatever they decided stands, so stop quietly.
    const isCurrent = (): boolean => !signal.aborted && this.records.get(record.id) === record && !isFinished(question);
    try {
      if (resumed) await this.appendTurn(record, question, 'Resuming: the engine restarted while this question was being answered');
      const injected = this.options.faults.question?.(question.question);
      if (injected) {
        await sleep(this.options.paceMs, undefined, { signal });
        if (isCurrent()) await this.finish(record, question, { kind: 'failed', error: injected });
        return;
      }
      const before = record.questions.filter((earlier) => earlier.id < question.id);
      const answer = await this.options.answer({
        question: question.question,
        earlierQuestions: before.map((earlier) => earlier.question),
        earlier: before.flatMap((earlier) =>
          typeof earlier.answer === 'string' && earlier.answer !== '' ? [{ question: earlier.question, answer: earlier.answer }] : [],
        ),
        signal,
        report: (reasoning) => (isCurrent() ? this.appendTurn(record, question, reasoning) : Promise.resolve()),
      });
      if (isCurrent()) await this.finish(record, question, { kind: 'answered', answer });
    } catch (error) {
      if (!isCurrent()) return;
      if (isDiskFull(error)) {
        this.endUnsaved(record, question, 'progress', error);
        return;
      }
      this.options.log(`question ${question.id}: the answerer failed: ${describe(error)}`);
      await this.finish(record, question, {
        kind: 'failed',
        error: {
          title: 'Internal error',
          kind: 'InternalError',
          message: `The engine hit an unexpected error while answering: ${describe(error)}`,
        },
      });
    }
  }

  private async appendTurn(record: ConversationRecord, question: WireQuestion, reasoning: string): Promise<void> {
    (question.turns ??= []).push({ role: 'assistant', reasoning, timestamp: unixSeconds() });
    this.touch(record, question);
    await this.options.storage.save(record);
  }

  private async finish(record: ConversationRecord, question: WireQuestion, ending: Ending): Promise<void> {
    try {
      await this.endAndSave(record, question, ending);
    } catch (error) {
      if (!isDiskFull(error)) throw error;
      this.endUnsaved(record, question, ending.kind === 'answered' ? 'answer' : 'outcome', error);
    }
  }

  /**
   * Ends the question and stores it. Until the write is done, the API goes on showing the question
   * as it was: were the ending shown at once, a client polling in between would take an answer
   * that, should the write fail (a full disk), is then withdrawn and is not on disk.
   */
  private async endAndSave(record: ConversationRecord, question: WireQuestion, ending: Ending): Promise<void> {
    if (!this.endingsBeingStored.has(question.id)) this.endingsBeingStored.set(question.id, structuredClone(question));
    this.end(record, question, ending);
    try {
      await this.options.storage.save(record);
    } finally {
      this.endingsBeingStored.delete(question.id);
    }
  }

  /** The question as the API shows it: as last stored while its ending is being written. */
  private shown(question: WireQuestion): WireQuestion {
    return this.endingsBeingStored.get(question.id) ?? question;
  }

  /**
   * Ends a question whose state could not be written for lack of space: it shows as failed with an
   * error saying so rather than as something stored. The disk keeps its last stored state
   * (processing), so a restart with space answers it again.
   */
  private endUnsaved(record: ConversationRecord, question: WireQuestion, stage: UnsavedStage, error: unknown): void {
    delete question.title;
    delete question.answer;
    delete question.sources;
    question.suggested_followups = null;
    this.end(record, question, { kind: 'failed', error: unsavedQuestionError(stage) });
    this.options.log(
      `question ${question.id}: ${UNSAVED_LOG[stage]} could not be saved: the data folder is full (${diskFullCode(error)}); the question now shows as failed`,
    );
  }

  /** Records how a question ended, in the style the variant asks for. */
  private end(record: ConversationRecord, question: WireQuestion, ending: Ending): void {
    const { variant } = this.options;
    const elapsed = Math.max(0, Date.now() - Date.parse(question.created_at));
    if (ending.kind === 'answered') {
      question.status = 'completed';
      question.title = ending.answer.title;
      question.answer = ending.answer.answer;
      question.sources = ending.answer.sources;
      question.suggested_followups = ending.answer.suggestedFollowups;
      question.stats = ending.answer.stats;
    } else if (ending.kind === 'failed') {
      question.status = variant.failureStyle === 'status' ? 'failed' : 'completed';
      question.error = {
        ...ending.error,
        title: ending.error.title ?? 'The question could not be answered',
        kind: ending.error.kind ?? 'InternalError',
        message: ending.error.message ?? 'The engine could not answer this question.',
      };
      question.stats = { ...zeroStats(), time_millis: elapsed };
    } else if (variant.cancelStyle === 'status') {
      question.status = 'canceled';
      question.stats = { ...zeroStats(), time_millis: elapsed };
    } else {
      question.status = 'completed';
      question.error = { title: 'Cancelled', kind: 'Cancelled', message: 'The question was cancelled before it was answered.' };
      question.stats = { ...zeroStats(), time_millis: elapsed };
    }
    this.touch(record, question);
  }

  private touch(record: ConversationRecord, question: WireQuestion): void {
    const now = nextTimestamp(record.updated_at);
    question.updated_at = now;
    record.updated_at = now;
  }
}

function startOfNextMonth(): string {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString().replace('.000Z', 'Z');
}

function describe(error: unknown): string {
  return errorMessage(error);
}
