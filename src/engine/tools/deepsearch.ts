/**
 * `deepsearch`: asks the engine's answerer a question as the calling user (a real conversation,
 * visible in their list afterwards) and waits, bounded, for the answer. `deepsearch_read` (2026):
 * a conversation's questions and answers by its link or read token, for whoever may read it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { isFinished, MAX_QUESTION_LENGTH, type WireConversation, type WireQuestion } from '../../contract/legacyWire';
import { HttpError } from '../http/http';
import { echo } from '../http/echo';
import { ToolError, type ToolContext, type ToolOutput } from '../repo/context';

const POLL_MS = 100;

export interface DeepSearchResult {
  conversation_id: number;
  question_id: number;
  answer?: string;
  title?: string;
  link?: string;
  suggested_followups?: string[];
  error?: { title: string; kind: string; message: string; details?: string };
}

export async function deepSearch(context: ToolContext, args: { question: string }): Promise<ToolOutput<DeepSearchResult>> {
  const question = args.question.trim();
  if (question === '') throw new ToolError('question is empty: ask a question about the code, such as "Where is the configuration parsed?".');
  if (question.length > MAX_QUESTION_LENGTH) {
    throw new ToolError(`The question is ${question.length} characters long; the limit is ${MAX_QUESTION_LENGTH}. Shorten it or quote less code.`);
  }
  let created: WireConversation;
  try {
    created = await context.deepSearch.create(context.user, question);
  } catch (error) {
    // A full data folder (507): nothing was created; the message says so and what to do.
    if (error instanceof HttpError && error.status === 507) throw new ToolError(error.message);
    throw error;
  }
  const questionId = created.questions[0]?.id;
  if (questionId === undefined) throw new Error('the new conversation has no question');
  const deadline = Date.now() + context.deepSearchWaitMs;
  let conversation: WireConversation = created;
  let current = findQuestion(conversation, questionId);
  while (!isFinished(current)) {
    if (Date.now() >= deadline) return stillRunning(conversation, questionId, context.deepSearchWaitMs);
    try {
      await sleep(POLL_MS, undefined, { signal: context.signal });
    } catch {
      throw new ToolError(`The request was cancelled; conversation ${conversation.id} goes on being answered and can be read at ${conversation.share_url}.`);
    }
    try {
      conversation = context.deepSearch.get(context.user, conversation.id);
    } catch (error) {
      if (error instanceof HttpError && error.status === 404) throw new ToolError(`Conversation ${conversation.id} was deleted while its answer was awaited.`);
      throw error;
    }
    current = findQuestion(conversation, questionId);
  }
  return finished(conversation, current);
}

function findQuestion(conversation: WireConversation, questionId: number): WireQuestion {
  const question = conversation.questions.find((candidate) => candidate.id === questionId);
  if (!question)
    throw new ToolError(`Conversation ${conversation.id} no longer has question ${questionId}: it was changed or deleted while the answer was awaited.`);
  return question;
}

function finished(conversation: WireConversation, question: WireQuestion): ToolOutput<DeepSearchResult> {
  const result: DeepSearchResult = { conversation_id: conversation.id, question_id: question.id, link: conversation.share_url };
  const error = question.error;
  if (error || question.status === 'failed' || question.status === 'canceled') {
    const cancelled = question.status === 'canceled' || error?.kind === 'Cancelled';
    result.error = {
      title: error?.title ?? (cancelled ? 'Cancelled' : 'The question could not be answered'),
      kind: error?.kind ?? (cancelled ? 'Cancelled' : 'InternalError'),
      message: error?.message ?? (cancelled ? 'The question was cancelled before it was answered.' : 'The engine could not answer this question.'),
    };
    if (error?.details) result.error.details = error.details;
    return {
      text: `The deep search did not produce an answer: ${result.error.title} (${result.error.kind}): ${result.error.message}\nConversation: ${result.link}`,
      structured: result,
    };
  }
  if (question.answer !== undefined) result.answer = question.answer;
  if (question.title !== undefined) result.title = question.title;
  if (question.suggested_followups) result.suggested_followups = [...question.suggested_followups];
  const followups = result.suggested_followups?.length ? `\n\nFollow-up questions:\n${result.suggested_followups.map((text) => `- ${text}`).join('\n')}` : '';
  return { text: `# ${result.title ?? 'Answer'}\n\n${result.answer ?? ''}${followups}\n\nConversation: ${result.link}`, structured: result };
}

function stillRunning(conversation: WireConversation, questionId: number, waitedMs: number): ToolOutput<DeepSearchResult> {
  const seconds = Math.round(waitedMs / 1000);
  const result: DeepSearchResult = {
    conversation_id: conversation.id,
    question_id: questionId,
    link: conversation.share_url,
    error: {
      title: 'Still processing',
      kind: 'Timeout',
      message: `No answer after ${seconds} s; the question goes on being answered. Read it later at the link, or poll conversation ${conversation.id} through the conversation API.`,
    },
  };
  return { text: `The answer is not ready after ${seconds} s. It goes on being answered: ${conversation.share_url}`, structured: result };
}

export interface DeepSearchReadArgs {
  identifier: string;
}

export interface ReadQuestion {
  question_id: number;
  question: string;
  /** `completed`, `processing`, `failed`, `canceled`… as the conversation API says. */
  status: string;
  title?: string;
  answer?: string;
  error?: { title: string; kind: string; message: string };
}

export interface DeepSearchReadResult {
  conversation_id: number;
  link?: string;
  /** True while a question is still being answered: read again later. */
  processing: boolean;
  questions: ReadQuestion[];
}

/** Read tokens are UUIDs on the engine; other servers' are of the same alphabet. */
const READ_TOKEN = /^[A-Za-z0-9_-]{8,200}$/;
const CONVERSATION_PATH = /^\/deepsearch\/(?:shared\/)?([^/]+)\/?$/;

/** The read token in an identifier: the token itself, or a `/deepsearch/<token>` or `/deepsearch/shared/<token>` link. */
export function readTokenOf(identifier: string, instanceUrl: string): string {
  const value = identifier.trim();
  const hint = 'pass the conversation link (such as ' + `${instanceUrl}/deepsearch/<read token>` + ', as deepsearch returns it) or its read token';
  if (value === '') throw new ToolError(`identifier is empty: ${hint}.`);
  if (READ_TOKEN.test(value)) return value;
  let url: URL;
  try {
    url = new URL(value, instanceUrl);
  } catch {
    throw new ToolError(`identifier ${echo(value)} is neither a conversation link nor a read token: ${hint}.`);
  }
  const match = CONVERSATION_PATH.exec(url.pathname);
  let token: string | undefined;
  try {
    token = match?.[1] === undefined ? undefined : decodeURIComponent(match[1]);
  } catch {
    token = undefined;
  }
  if (token === undefined || !READ_TOKEN.test(token)) {
    throw new ToolError(`identifier ${echo(value)} is not a conversation link: ${hint}.`);
  }
  return token;
}

export async function deepSearchRead(context: ToolContext, args: DeepSearchReadArgs): Promise<ToolOutput<DeepSearchReadResult>> {
  const token = readTokenOf(args.identifier, context.instanceUrl);
  const conversation = context.deepSearch.findShared?.(token, context.user.id);
  if (!conversation) {
    throw new ToolError(
      `No conversation you can read at ${echo(args.identifier.trim())}: it was deleted, its link was replaced, or it belongs to another user and sharing is off. ` +
        'Use the link deepsearch returned, or ask the question again.',
    );
  }
  const questions = conversation.questions.map((question): ReadQuestion => {
    const read: ReadQuestion = { question_id: question.id, question: question.question, status: question.status };
    if (question.title !== undefined) read.title = question.title;
    if (question.answer !== undefined && question.answer !== '') read.answer = question.answer;
    const failed = question.error ?? (question.status === 'failed' || question.status === 'canceled' || question.status === 'cancelled' ? {} : undefined);
    if (failed) {
      const cancelled = question.status === 'canceled' || question.status === 'cancelled' || failed.kind === 'Cancelled';
      read.error = {
        title: failed.title ?? (cancelled ? 'Cancelled' : 'The question could not be answered'),
        kind: failed.kind ?? (cancelled ? 'Cancelled' : 'InternalError'),
        message: failed.message ?? (cancelled ? 'The question was cancelled before it was answered.' : 'The engine could not answer this question.'),
      };
    }
    return read;
  });
  const processing = !conversation.questions.every(isFinished);
  const result: DeepSearchReadResult = { conversation_id: conversation.id, processing, questions };
  if (conversation.share_url !== undefined) result.link = conversation.share_url;
  const sections = questions.map((question, index) => {
    const heading = `## Question ${index + 1}: ${question.question}`;
    if (question.status === 'processing' || question.status === 'pending')
      return `${heading}\n\n(Still being answered: read the conversation again in a little while.)`;
    if (question.error) return `${heading}\n\nNo answer: ${question.error.title} (${question.error.kind}): ${question.error.message}`;
    return `${heading}\n\n${question.title ? `### ${question.title}\n\n` : ''}${question.answer ?? '(No answer was recorded.)'}`;
  });
  const lead = `Conversation ${conversation.id}${result.link ? ` (${result.link})` : ''}: ${questions.length} question${questions.length === 1 ? '' : 's'}${processing ? ', still being answered' : ''}.`;
  return { text: [lead, ...sections].join('\n\n'), structured: result };
}
