/**
 * Deep Search for VS Code's agent, as language-model tools: `deep_search` asks and waits for the
 * answer however long it takes (no 50-second cap as on the instance's own tool; cancelling the
 * tool call cancels the question on the instance), after the user confirms spending credits;
 * `deep_search_read_conversation` reads an existing conversation (by link or id) as context.
 * Results carry the answer and its sources as links on the instance, never a token.
 */
import * as vscode from 'vscode';
import { answerForAgent, conversationForAgent, unansweredText } from '../../conversations/answerText';
import { readTokenFromInput } from '../../conversations/readToken';
import type { ConversationStore } from '../../conversations/conversationStore';
import { untilAnswered } from '../../conversations/questionWatch';
import type { Session } from '../auth/session';

export const ASK_TOOL = 'deep_search';
export const READ_TOOL = 'deep_search_read_conversation';
const MAX_QUESTION_CHARACTERS = 20_000;

interface AskInput {
  question: string;
}

interface ReadInput {
  conversation: string;
}

export function registerAgentTools(session: Session, store: ConversationStore): vscode.Disposable[] {
  return [vscode.lm.registerTool<AskInput>(ASK_TOOL, new AskTool(session, store)), vscode.lm.registerTool<ReadInput>(READ_TOOL, new ReadTool(session, store))];
}

class AskTool implements vscode.LanguageModelTool<AskInput> {
  constructor(
    private readonly session: Session,
    private readonly store: ConversationStore,
  ) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<AskInput>): vscode.PreparedToolInvocation {
    const question = questionOf(options.input);
    const where = this.store.instanceUrl ? new URL(this.store.instanceUrl).host : vscode.l10n.t('your instance');
    const message = new vscode.MarkdownString(
      vscode.l10n.t('Deep Search answers from the code on {0}. An answer can take minutes and uses your Deep Search credits.', where),
    );
    message.appendMarkdown('\n\n');
    message.appendText(question.slice(0, 1_000));
    return {
      invocationMessage: vscode.l10n.t('Asking Deep Search: {0}', shorten(question)),
      confirmationMessages: { title: vscode.l10n.t('Ask Deep Search?'), message },
    };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<AskInput>, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    const question = questionOf(options.input);
    const instanceUrl = await signedInInstance(this.session, this.store);
    const conversation = await this.store.ask(question);
    const asked = conversation.questions[conversation.questions.length - 1];
    if (!asked) throw new Error(vscode.l10n.t('The instance answered without the question.'));
    const abort = new AbortController();
    const cancelling = token.onCancellationRequested(() => abort.abort());
    let finished;
    try {
      finished = await untilAnswered(this.store, conversation.id, asked.id, { signal: abort.signal });
    } catch (error) {
      if (!token.isCancellationRequested) throw error;
      await this.store.cancel(conversation.id, asked.id).catch(() => undefined);
      throw new Error(vscode.l10n.t('Cancelled: the question was cancelled on the instance (conversation {0}).', conversation.id));
    } finally {
      cancelling.dispose();
    }
    if (finished.state !== 'completed')
      throw new Error(vscode.l10n.t('Deep Search did not answer (conversation {0}): {1}', conversation.id, unansweredText(finished)));
    const text = `${answerForAgent(finished, instanceUrl)}\n\n${vscode.l10n.t('(Deep Search conversation {0}: read it again with {1}.)', conversation.id, READ_TOOL)}`;
    return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
  }
}

class ReadTool implements vscode.LanguageModelTool<ReadInput> {
  constructor(
    private readonly session: Session,
    private readonly store: ConversationStore,
  ) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<ReadInput>): vscode.PreparedToolInvocation {
    return { invocationMessage: vscode.l10n.t('Reading Deep Search conversation {0}', shorten(String(options.input.conversation ?? ''))) };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<ReadInput>): Promise<vscode.LanguageModelToolResult> {
    const instanceUrl = await signedInInstance(this.session, this.store);
    const input = String(options.input.conversation ?? '')
      .trim()
      .slice(0, 2_000);
    const readToken = readTokenFromInput(input);
    const id = readToken ? undefined : conversationIdOf(input);
    if (!readToken && id === undefined) {
      throw new Error(vscode.l10n.t('"{0}" names no conversation: give its number, or its share link (…/deepsearch/<id>).', shorten(input)));
    }
    const conversation = readToken ? await this.store.openShared(readToken) : await this.store.fetch(id ?? 0);
    return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(conversationForAgent(conversation, instanceUrl))]);
  }
}

/** A conversation number, alone or as the last path segment of a link (…/deepsearch/42). */
function conversationIdOf(input: string): number | undefined {
  const last = /(?:^|\/)(\d{1,15})\/?(?:[?#].*)?$/.exec(input)?.[1];
  const id = last === undefined ? NaN : Number(last);
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

function questionOf(input: AskInput): string {
  const question = typeof input?.question === 'string' ? input.question.trim() : '';
  if (!question) throw new Error(vscode.l10n.t('Give the question to ask Deep Search (input "question").'));
  if (question.length > MAX_QUESTION_CHARACTERS)
    throw new Error(vscode.l10n.t('The question is longer than {0} characters: shorten it.', MAX_QUESTION_CHARACTERS));
  return question;
}

async function signedInInstance(session: Session, store: ConversationStore): Promise<string> {
  await session.whenRestored();
  if (!session.current || !store.instanceUrl)
    throw new Error(vscode.l10n.t('Deep Search is not signed in: run "Deep Search: Sign In" (or "Use Local Engine") first.'));
  return store.instanceUrl;
}

function shorten(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
