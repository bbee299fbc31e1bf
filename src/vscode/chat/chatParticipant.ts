/**
 * `@deepsearch` in VS Code's Chat: a question there is a Deep Search conversation like any other
 * (asked through the one ConversationStore, so the tree, the status bar and the panel see it too).
 * A chat thread keeps its conversation: later turns follow up in it (remembered in each turn's
 * result metadata); `/new` starts another, `/open` shows it in the panel. While the answer comes,
 * the agent's reasoning shows as progress with the time taken; cancelling the chat request cancels
 * the question on the instance. The answer's links and sources open the local checkout where there
 * is one, else the remote file (the panel's link opener, through `deepSearch.openLink`).
 */
import * as vscode from 'vscode';
import { boundedAnswer, listedSources, progressLine, rewriteLinks, unansweredText } from '../../conversations/answerText';
import { errorMessage, isDeepSearchError } from '../../api/errors';
import { formatDuration } from '../../format';
import type { ConversationStore } from '../../conversations/conversationStore';
import type { Question } from '../../model/conversation';
import { untilAnswered } from '../../conversations/questionWatch';
import { questionWithCode } from '../../conversations/selectionQuestion';
import { codeContextOf } from '../conversations/codeContext';
import { Disposables } from '../disposables';
import type { Session } from '../auth/session';
import type { SourceLinkOpener } from '../conversations/sourceLinks';
import type { WorkspaceRepositories } from '../workspace/workspaceRepositories';
import { markWalkthroughDone, WALKTHROUGH_DONE } from '../walkthrough';

export const PARTICIPANT_ID = 'deepSearch.chat';
/** What users type after `@` (package.json's chatParticipants name). */
const PARTICIPANT_NAME = 'deepsearch';
/** The command answers' links go through (the panel's opener: local checkout, remote file, browser). */
export const OPEN_LINK_COMMAND = 'deepSearch.openLink';
/** Most references (selections, files) sent with one question. */
const MAX_REFERENCES = 5;
const PROGRESS_EVERY_MS = 5_000;
/** Most links of one answer looked up as references. */
const MAX_REFERENCES_SHOWN = 30;

/** What a turn leaves in its result, for the next turn of the thread and the follow-up provider. */
export interface TurnMetadata {
  conversationId: number;
  questionId: number;
  /** The instance the conversation lives on: another instance's thread starts a new conversation. */
  instanceUrl: string;
  followups: string[];
}

export interface ChatDependencies {
  session: Session;
  store: ConversationStore;
  links: SourceLinkOpener;
  repositories: WorkspaceRepositories;
  openPanel(conversationId: number): Promise<void> | void;
}

export class DeepSearchChat extends Disposables implements vscode.Disposable {
  constructor(private readonly deps: ChatDependencies) {
    super();
    const participant = this.register(
      vscode.chat.createChatParticipant(PARTICIPANT_ID, (request, context, stream, token) => this.handle(request, context, stream, token)),
    );
    participant.iconPath = new vscode.ThemeIcon('search-sparkle');
    participant.followupProvider = { provideFollowups: (result) => followupsOf(result) };
  }

  /** The participant's handler (tests drive it with a recording stream). */
  async handle(
    request: vscode.ChatRequest,
    context: vscode.ChatContext,
    stream: vscode.ChatResponseStream,
    token: vscode.CancellationToken,
  ): Promise<vscode.ChatResult> {
    const { session, store } = this.deps;
    await session.whenRestored();
    const instanceUrl = store.instanceUrl;
    if (!session.current || !instanceUrl) return signInFirst(stream, vscode.l10n.t('Sign in to Deep Search (or use the local engine) to ask questions here.'));
    const earlier = request.command === 'new' ? undefined : threadConversation(context, instanceUrl);
    if (request.command === 'open') {
      if (!earlier) {
        stream.markdown(vscode.l10n.t('This chat has no Deep Search conversation yet: ask a question first.'));
        return {};
      }
      await this.deps.openPanel(earlier.conversationId);
      stream.markdown(vscode.l10n.t('Opened conversation {0} in the Deep Search panel.', earlier.conversationId));
      return { metadata: earlier };
    }
    const question = await this.questionOf(request);
    if (!question.trim()) {
      stream.markdown(vscode.l10n.t('Ask a question about your code, for example: *Where is the configuration loaded?*'));
      return {};
    }
    let asked: { conversationId: number; question: Question };
    try {
      stream.progress(earlier ? vscode.l10n.t('Following up in conversation {0}…', earlier.conversationId) : vscode.l10n.t('Asking Deep Search…'));
      const conversation = earlier ? await store.addFollowup(earlier.conversationId, question) : await store.ask(question);
      markWalkthroughDone(WALKTHROUGH_DONE.askedInChat);
      const last = conversation.questions[conversation.questions.length - 1];
      if (!last) throw new Error(vscode.l10n.t('The instance answered without the question.'));
      asked = { conversationId: conversation.id, question: last };
    } catch (error) {
      return failure(stream, error);
    }
    let finished: Question | undefined;
    try {
      finished = await this.follow(asked.conversationId, asked.question, stream, token);
    } catch (error) {
      // Deleted meanwhile, or signed out: said in the chat, not thrown at it.
      return { errorDetails: { message: errorMessage(error) } };
    }
    const metadata: TurnMetadata = {
      conversationId: asked.conversationId,
      questionId: asked.question.id,
      instanceUrl,
      followups: finished?.state === 'completed' ? finished.suggestedFollowups.slice(0, 5).map((text) => text.slice(0, 500)) : [],
    };
    if (!finished) {
      stream.markdown(vscode.l10n.t('Cancelled: the question was cancelled on the instance.'));
      return { metadata };
    }
    if (finished.state !== 'completed') {
      // The question, back in the chat's input to send again when it may help (not for a question too big to answer).
      if (finished.error?.kind !== 'TokenLimitExceeded') {
        stream.button({
          command: 'workbench.action.chat.open',
          arguments: [{ query: `@${PARTICIPANT_NAME} ${request.prompt}`, isPartialQuery: true }],
          title: vscode.l10n.t('Ask Again'),
        });
      }
      stream.button({ command: 'deepSearch.openConversation', arguments: [asked.conversationId], title: vscode.l10n.t('Open in Deep Search') });
      return { metadata, errorDetails: { message: unansweredText(finished) } };
    }
    await this.render(finished, instanceUrl, stream);
    return { metadata };
  }

  /**
   * Waits for the answer, showing each reasoning turn and the time taken; undefined when the chat
   * request was cancelled (the question is then cancelled on the instance).
   */
  private async follow(
    conversationId: number,
    question: Question,
    stream: vscode.ChatResponseStream,
    token: vscode.CancellationToken,
  ): Promise<Question | undefined> {
    const started = Date.now();
    let last = vscode.l10n.t('Deep Search is working');
    const show = () => stream.progress(`${last} · ${formatDuration(Date.now() - started)}`);
    const ticker = setInterval(show, PROGRESS_EVERY_MS);
    const abort = new AbortController();
    const cancelling = token.onCancellationRequested(() => abort.abort());
    try {
      return await untilAnswered(this.deps.store, conversationId, question.id, {
        signal: abort.signal,
        onTurn: (turn) => {
          const line = progressLine(turn);
          if (!line) return;
          last = line;
          show();
        },
      });
    } catch (error) {
      if (!token.isCancellationRequested) throw error;
      await this.deps.store.cancel(conversationId, question.id).catch(() => undefined);
      return undefined;
    } finally {
      clearInterval(ticker);
      cancelling.dispose();
    }
  }

  /**
   * The answer, its links through the panel's opener; its sources listed; and every file or
   * repository it links to as a reference that opens in the editor (local checkout first).
   */
  private async render(question: Question, instanceUrl: string, stream: vscode.ChatResponseStream): Promise<void> {
    const linked: string[] = [];
    const answer = new vscode.MarkdownString(
      rewriteLinks(boundedAnswer(question.answer), (href) => {
        linked.push(href);
        return openLinkCommand(href);
      }),
    );
    // Only the link opener may run from the answer: no other command, no HTML.
    answer.isTrusted = { enabledCommands: [OPEN_LINK_COMMAND] };
    stream.markdown(answer);
    const sources = listedSources(question, instanceUrl);
    if (sources.length > 0) {
      const list = new vscode.MarkdownString(
        `\n\n**${vscode.l10n.t('Sources')}**\n\n${sources.map((source) => `- [${escapeMarkdown(source.label)}](${openLinkCommand(source.href)})`).join('\n')}`,
      );
      list.isTrusted = { enabledCommands: [OPEN_LINK_COMMAND] };
      stream.markdown(list);
    }
    const seen = new Set<string>();
    for (const href of [...sources.map((source) => source.href), ...linked].slice(0, MAX_REFERENCES_SHOWN)) {
      const location = await this.deps.links.locate(href).catch(() => undefined);
      const key =
        location &&
        (location instanceof vscode.Uri ? location.toString() : `${location.uri.toString()}#${location.range.start.line}-${location.range.end.line}`);
      if (!location || !key || seen.has(key)) continue;
      seen.add(key);
      stream.reference(location);
    }
  }

  /** The prompt, with the code of each attached selection or file (as "Ask About Selection" sends it). */
  private async questionOf(request: vscode.ChatRequest): Promise<string> {
    let prompt = request.prompt;
    const contexts = [];
    // Sorted from the end of the prompt: cutting each one out leaves the others' ranges right.
    for (const reference of request.references.slice(0, MAX_REFERENCES)) {
      const code = await this.codeOf(reference.value);
      if (!code) continue;
      if (reference.range) prompt = prompt.slice(0, reference.range[0]) + prompt.slice(reference.range[1]);
      contexts.unshift(code);
    }
    return contexts.length === 0 ? prompt.trim() : questionWithCode(prompt, contexts);
  }

  private async codeOf(value: unknown): Promise<Awaited<ReturnType<typeof codeContextOf>> | undefined> {
    const where =
      value instanceof vscode.Location
        ? value
        : value instanceof vscode.Uri
          ? new vscode.Location(value, new vscode.Range(0, 0, Number.MAX_SAFE_INTEGER, 0))
          : undefined;
    if (!where) return undefined;
    try {
      const document = await vscode.workspace.openTextDocument(where.uri);
      return await codeContextOf(document, document.validateRange(where.range), this.deps.repositories);
    } catch {
      return undefined;
    }
  }
}

/** The conversation the thread's latest Deep Search turn was in, on this instance. */
function threadConversation(context: vscode.ChatContext, instanceUrl: string): TurnMetadata | undefined {
  for (let index = context.history.length - 1; index >= 0; index--) {
    // Response turns carry a result (request turns do not).
    const metadata = (context.history[index] as { result?: vscode.ChatResult }).result?.metadata as Partial<TurnMetadata> | undefined;
    if (typeof metadata?.conversationId === 'number' && metadata.instanceUrl === instanceUrl) return metadata as TurnMetadata;
  }
  return undefined;
}

function followupsOf(result: vscode.ChatResult): vscode.ChatFollowup[] {
  const followups = (result.metadata as Partial<TurnMetadata> | undefined)?.followups;
  return Array.isArray(followups) ? followups.filter((text): text is string => typeof text === 'string').map((prompt) => ({ prompt, label: prompt })) : [];
}

function openLinkCommand(href: string): string {
  return `command:${OPEN_LINK_COMMAND}?${encodeURIComponent(JSON.stringify([href]))}`;
}

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, (character) => `\\${character}`);
}

function signInFirst(stream: vscode.ChatResponseStream, message: string): vscode.ChatResult {
  stream.button({ command: 'deepSearch.signIn', title: vscode.l10n.t('Sign In') });
  stream.button({ command: 'deepSearch.useLocalEngine', title: vscode.l10n.t('Use Local Engine') });
  return { errorDetails: { message } };
}

/** Asking failed before a question existed: the message, and a way out where one helps. Nothing was asked twice. */
function failure(stream: vscode.ChatResponseStream, error: unknown): vscode.ChatResult {
  if (isDeepSearchError(error) && error.kind === 'unauthorized') return signInFirst(stream, errorMessage(error));
  return { errorDetails: { message: errorMessage(error) } };
}
