/**
 * "Nothing lost" for the engine API figure: once the load has stopped, waits until every
 * acknowledged question has finished, then checks that every acknowledged conversation exists with
 * all its questions, each completed with an answer, and appears in its owner's paged list.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import type { WireConversation } from '../../src/contract/legacyWire';
import { callApi, type CreatedConversation } from './engineApiClients';

export interface VerifyTarget {
  dispatcher: Dispatcher;
  apiUrl: string;
  tokens: readonly string[];
  created: readonly CreatedConversation[];
}

export interface LossReport {
  conversations: number;
  questions: number;
  /** Conversations with anything missing: the conversation, a question, an answer or its list entry. */
  lostConversations: number;
  /** Acknowledged questions that are missing or not completed with an answer. */
  lostQuestions: number;
  /** Acknowledged conversations missing from their owner's list. */
  unlisted: number;
  /** The first few problems, described. */
  problems: string[];
}

const CONCURRENCY = 8;
const LIST_PAGE = 100;
const TIMEOUT_MS = 10_000;
const MAX_PROBLEMS = 10;

/** Polls every unfinished conversation until none is processing or `deadline` (epoch ms) passes; resolves with how many still are. */
export async function waitUntilAllFinished(target: VerifyTarget, deadline: number): Promise<number> {
  let unfinished = [...target.created];
  for (;;) {
    const stillRunning: CreatedConversation[] = [];
    await forEachLimited(unfinished, CONCURRENCY, async (entry) => {
      const reply = await fetchConversation(target, entry).catch(() => undefined);
      if (!reply || reply.questions.some((question) => question.status === 'processing' || question.status === 'pending')) {
        stillRunning.push(entry);
      }
    });
    unfinished = stillRunning;
    if (unfinished.length === 0 || Date.now() >= deadline) return unfinished.length;
    await sleep(250);
  }
}

/** Checks every acknowledged conversation and question against what the engine serves now. */
export async function findLosses(target: VerifyTarget): Promise<LossReport> {
  const report: LossReport = {
    conversations: target.created.length,
    questions: target.created.reduce((sum, entry) => sum + entry.questionIds.length, 0),
    lostConversations: 0,
    lostQuestions: 0,
    unlisted: 0,
    problems: [],
  };
  const lost = new Set<number>();
  const problem = (entry: CreatedConversation, text: string): void => {
    lost.add(entry.id);
    if (report.problems.length < MAX_PROBLEMS) report.problems.push(`conversation ${entry.id}: ${text}`);
  };

  await forEachLimited(target.created, CONCURRENCY, async (entry) => {
    let conversation: WireConversation | undefined;
    try {
      conversation = await fetchConversation(target, entry);
    } catch (error) {
      report.lostQuestions += entry.questionIds.length;
      problem(entry, error instanceof Error ? error.message : String(error));
      return;
    }
    for (const questionId of entry.questionIds) {
      const question = conversation.questions.find((candidate) => candidate.id === questionId);
      const unanswered = !question
        ? 'is missing'
        : question.status !== 'completed' || question.error || !question.answer
          ? `ended ${question.status}${question.error ? ` (${question.error.kind ?? 'error'})` : ' without an answer'}`
          : undefined;
      if (unanswered) {
        report.lostQuestions++;
        problem(entry, `question ${questionId} ${unanswered}`);
      }
    }
  });

  for (let user = 0; user < target.tokens.length; user++) {
    const listed = await listAll(target, user);
    for (const entry of target.created.filter((candidate) => candidate.user === user)) {
      if (listed.has(entry.id)) continue;
      report.unlisted++;
      problem(entry, "is not in its owner's list");
    }
  }
  report.lostConversations = lost.size;
  return report;
}

async function fetchConversation(target: VerifyTarget, entry: CreatedConversation): Promise<WireConversation> {
  const reply = await callApi<WireConversation>(target.dispatcher, target.apiUrl, tokenOf(target, entry.user), 'GET', `/${entry.id}`, {
    timeoutMs: TIMEOUT_MS,
  });
  if (reply.status !== 200 || !reply.json) throw new Error(`GET answered ${reply.status}: ${reply.text.slice(0, 200)}`);
  return reply.json;
}

/** Every conversation id in the user's list, following the cursor page by page. */
async function listAll(target: VerifyTarget, user: number): Promise<Set<number>> {
  const ids = new Set<number>();
  let after: number | undefined;
  for (let pages = 0; pages < 10_000; pages++) {
    const path = `/?page_first=${LIST_PAGE}&sort=-updated_at${after === undefined ? '' : `&page_after=${after}`}`;
    const reply = await callApi<WireConversation[]>(target.dispatcher, target.apiUrl, tokenOf(target, user), 'GET', path, {
      timeoutMs: TIMEOUT_MS,
    });
    if (reply.status !== 200 || !Array.isArray(reply.json)) {
      throw new Error(`listing user ${user + 1}'s conversations answered ${reply.status}: ${reply.text.slice(0, 200)}`);
    }
    for (const conversation of reply.json) ids.add(conversation.id);
    const last = reply.json[reply.json.length - 1];
    if (reply.json.length < LIST_PAGE || !last) return ids;
    after = last.id;
  }
  throw new Error(`listing user ${user + 1}'s conversations did not end after 10,000 pages`);
}

function tokenOf(target: VerifyTarget, user: number): string {
  const token = target.tokens[user];
  if (token === undefined) throw new Error(`no token for user ${user}`);
  return token;
}

async function forEachLimited<T>(items: readonly T[], limit: number, body: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++];
      await body(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}
