/**
 * Every command the extension contributes, registered in one place (a test checks that this list
 * and package.json agree). Commands take a conversation id, a tree node, or nothing (then ask).
 * What the conversation panel also does (share, browser, export, delete, open an answer, ask) are
 * functions of the dependencies, exported: the panel calls them directly, so their failures reach
 * its own handling; the command wrapper here shows a palette command's failure.
 */
import * as vscode from 'vscode';
import type { ConversationStore } from '../conversations/conversationStore';
import { conversationLabel } from '../model/conversationLabel';
import { formatRelativeTime } from './hostFormat';
import { errorMessage, isDeepSearchError } from '../api/errors';
import { answerMarkdown, conversationMarkdown } from '../conversations/markdownExport';
import { latestQuestion, type Conversation } from '../model/conversation';
import { readTokenFromInput } from '../conversations/readToken';
import { selectionQuestion } from '../conversations/selectionQuestion';
import { OPEN_LINK_COMMAND } from './chat/chatParticipant';
import { codeContextOf } from './conversations/codeContext';
import type { ConversationPanels } from './conversations/conversationPanels';
import { conversationIdArgument, textArgument, textFields, uriArgument } from './commandArguments';
import type { ConversationTree } from './conversations/conversationTree';
import type { EngineModels } from './engine/engineModels';
import type { Session } from './auth/session';
import { signIn, signOut, type SignInParts } from './auth/signIn';
import type { SourceLinkOpener } from './conversations/sourceLinks';
import type { WorkspaceRepositories } from './workspace/workspaceRepositories';
import type { CodeLocations } from './tools/codeLocations';
import type { HistoryCommands } from './tools/history';
import type { CrossRepositoryNavigation } from './tools/navigation';
import { openRemoteFile } from './tools/remoteBrowser';
import { searchCode, type SearchCodeArguments } from './tools/searchCode';
import type { ToolAccess } from './tools/toolAccess';
import { showAskBox, type MentionSources } from './conversations/askBox';
import type { RemoteFile } from '../api/tools/remotePath';

export interface CommandDependencies {
  context: vscode.ExtensionContext;
  log: vscode.LogOutputChannel;
  session: Session;
  /** What signing in uses (the vault, the loaders, the redirects). */
  signIn: SignInParts;
  store: ConversationStore;
  panels: ConversationPanels;
  tree: ConversationTree;
  links: SourceLinkOpener;
  repositories: WorkspaceRepositories;
  toolAccess: ToolAccess;
  locations: CodeLocations;
  navigation: CrossRepositoryNavigation;
  history: HistoryCommands;
  /** VS Code's model the local engine investigates with. */
  engineModels: EngineModels;
  /** A question that could not be sent, offered again by the next Ask so it is never lost (one per window). */
  unsent: { question?: string };
}

const SHARE_WARNING_KEY = 'deepSearch.shareWarningAcknowledged';
/** The longest text a conversation search sends. */
const MAX_SEARCH_LENGTH = 200;

/** What finding a conversation a command is about needs. */
type ConversationDependencies = Pick<CommandDependencies, 'store' | 'session' | 'signIn'>;
/** What Copy Share Link needs: the conversation, and where the user said not to be warned again. */
type ShareDependencies = Pick<CommandDependencies, 'store' | 'session' | 'signIn' | 'context'>;
/** What deleting needs: the conversation, and its panel to close. */
type DeleteDependencies = Pick<CommandDependencies, 'store' | 'session' | 'signIn' | 'panels'>;

export function registerCommands(deps: CommandDependencies): vscode.Disposable[] {
  const { session, store, panels, tree } = deps;
  // Handlers take `unknown`: each entry point passes arguments of its own (see commandArguments.ts).
  const handlers: Record<string, (...args: unknown[]) => unknown> = {
    'deepSearch.ask': (question) => ask(deps, textArgument(question)),
    // The links of answers shown in VS Code's Chat: the panel's opener (local checkout, remote file, browser).
    [OPEN_LINK_COMMAND]: (href) => (typeof href === 'string' ? deps.links.open(href) : undefined),
    'deepSearch.askAboutSelection': (first) => askAboutSelection(deps, textArgument(first), uriArgument(first)),
    'deepSearch.signIn': (given) => signIn(deps.signIn, textFields(given, ['instanceUrl', 'token'])),
    'deepSearch.signOut': () => signOut(deps.signIn),
    'deepSearch.useLocalEngine': () =>
      vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Starting the local Deep Search engine…') }, () =>
        session.useLocalEngine(),
      ),
    'deepSearch.chooseEngineModel': () => deps.engineModels.choose(),
    'deepSearch.openConversation': async (arg) => {
      const id = await conversationId(deps, arg);
      if (id !== undefined) panels.open(id);
    },
    'deepSearch.openSharedConversation': (input) => openShared(deps, textArgument(input)),
    'deepSearch.cancelQuestion': (arg) => cancel(deps, arg),
    'deepSearch.deleteConversation': (arg) => deleteConversation(deps, arg),
    'deepSearch.refresh': () => tree.reload(),
    'deepSearch.searchConversations': (query) => searchConversations(deps, textArgument(query)),
    'deepSearch.copyShareLink': (arg) => copyShareLink(deps, arg),
    'deepSearch.openInBrowser': (arg) => openInBrowser(deps, arg),
    'deepSearch.exportMarkdown': (arg) => exportMarkdown(deps, arg),
    'deepSearch.openAnswerAsMarkdown': (arg) => openAnswerAsMarkdown(deps, arg ?? deps.panels.activeId()),
    'deepSearch.showStarredOnly': () => setStarredOnly(deps, true),
    'deepSearch.showAll': () => setStarredOnly(deps, false),
    'deepSearch.loadMore': () => store.loadMore(),
    // The tools in the editor; each returns what it found or opened, for callers and tests.
    'deepSearch.openRemoteFile': signedIn(deps, (file) => openRemoteFile(deps.toolAccess, remoteFileArgument(file))),
    'deepSearch.goToDefinitionInAllRepositories': signedIn(deps, () => deps.navigation.show('definition')),
    'deepSearch.findReferencesInAllRepositories': signedIn(deps, () => deps.navigation.show('references')),
    'deepSearch.searchCode': signedIn(deps, (given) => searchCode(deps.toolAccess, deps.locations, searchCodeArgument(given))),
    'deepSearch.searchCommits': signedIn(deps, (query) => deps.history.searchCommits(textArgument(query))),
    'deepSearch.searchDiffs': signedIn(deps, (query) => deps.history.searchDiffs(textArgument(query))),
    'deepSearch.compareRevisions': signedIn(deps, (given) => deps.history.compareRevisions(textFields(given, ['repo', 'base', 'head']))),
    'deepSearch.findContributorRepositories': signedIn(deps, (author) => deps.history.contributorRepositories(textArgument(author))),
  };
  // The palette's (and menus') callers show nothing of a failure: it is shown here, once.
  return Object.entries(handlers).map(([id, handler]) =>
    vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      try {
        return await handler(...args);
      } catch (error) {
        const message = errorMessage(error);
        deps.log.error(`${id}: ${message}`);
        void vscode.window.showErrorMessage(message);
        return undefined;
      }
    }),
  );
}

/** Asks a question typed in an input box (or given by a caller); opens its panel at once. */
async function ask(deps: CommandDependencies, given?: string, draft = deps.unsent.question ?? ''): Promise<number | undefined> {
  if (!(await ensureSignedIn(deps))) return undefined;
  const question =
    given ??
    (await showAskBox({
      title: vscode.l10n.t('Ask Deep Search'),
      placeholder: vscode.l10n.t('Ask about code in your repositories; @ names a repository or file to search'),
      value: draft,
      sources: mentionSources(deps),
    }));
  if (question === undefined) return undefined;
  if (!question.trim()) throw new Error(vscode.l10n.t('Type a question to ask.'));
  return send(deps, question.trim());
}

/** Longest question put in a page address (`?q=`); a longer one is cut there, and kept whole for Edit and Ask Again. */
const MAX_QUESTION_IN_URL = 4_000;

/**
 * Opens `url` in the browser exactly as written. A `vscode.Uri` decodes its query and the workbench
 * writes it out again decoded (`encodeURI(uri.toString(true))`), so an `&`, `#` or `?` of a question
 * would break its `q=`. The extension host hands a string to the workbench untouched (its
 * `openExternal` accepts one at run time, though typed as Uri), unless the workbench must rewrite
 * the address (a loopback server seen through a remote's port forwarding): that rewriting is done
 * here first (`asExternalUri`), so the string needs none.
 */
async function openExactUrl(url: string): Promise<boolean> {
  const parsed = new URL(url);
  const external = await vscode.env.asExternalUri(vscode.Uri.parse(`${parsed.protocol}//${parsed.host}/`, true));
  const base = external.toString(true).replace(/\/$/, '');
  return vscode.env.openExternal(`${base}${parsed.pathname}${parsed.search}${parsed.hash}` as unknown as vscode.Uri);
}

/** The instance's page that starts a new question with `question` filled in (`/deepsearch?q=`). */
function newQuestionPage(instanceUrl: string | undefined, question: string): string | undefined {
  if (!instanceUrl) return undefined;
  return `${instanceUrl}/deepsearch?q=${encodeURIComponent(question.slice(0, MAX_QUESTION_IN_URL))}`;
}

/** What the Ask box offers after an `@`: the workspace's repositories and files, and the instance's repositories. */
function mentionSources(deps: CommandDependencies): MentionSources {
  return {
    workspaceRepositories: () => deps.repositories.names(),
    instanceRepositories: async (query, signal) => {
      if (!query || !(await deps.toolAccess.has('list_repos'))) return [];
      const page = await (await deps.toolAccess.ready()).listRepositories(query, { limit: 8 }, signal);
      return page.repositories.map((repository) => repository.name);
    },
    workspaceFiles: async (query, signal) => {
      if (!query) return [];
      const cancel = new vscode.CancellationTokenSource();
      signal.addEventListener('abort', () => cancel.cancel(), { once: true });
      try {
        const found = await vscode.workspace.findFiles(`**/*${query}*`, undefined, 8, cancel.token);
        return found.map((uri) => vscode.workspace.asRelativePath(uri, false));
      } finally {
        cancel.dispose();
      }
    },
  };
}

/** Ask, with `draft` in the question box (e.g. a question to narrow down). */
export function askWithDraft(deps: CommandDependencies, draft: string): Promise<number | undefined> {
  return ask(deps, undefined, draft);
}

/** Sends once; on failure offers to edit and send again, with the text kept (never auto-retried). */
async function send(deps: CommandDependencies, question: string): Promise<number | undefined> {
  try {
    const conversation = await deps.store.ask(question);
    deps.unsent.question = undefined;
    deps.panels.open(conversation.id);
    return conversation.id;
  } catch (error) {
    deps.unsent.question = question;
    const edit = vscode.l10n.t('Edit and Ask Again');
    const reason = errorMessage(error);
    // After a timeout or a dropped connection the question may have reached the instance anyway:
    // asking again could ask it twice (and spend credits twice), so point at the list first.
    const uncertain = isDeepSearchError(error) && ['timeout', 'network', 'server', 'invalidResponse'].includes(error.kind);
    // A 507 is certain: the instance had no room for the question, so nothing of it was kept there.
    const notSaved = isDeepSearchError(error) && error.kind === 'insufficientStorage';
    const message = uncertain
      ? vscode.l10n.t('Deep Search may not have received the question ({0}). Check the Conversations list before asking again.', reason)
      : notSaved
        ? vscode.l10n.t('The question was not saved: {0} Your question is kept: choose "Edit and Ask Again" once there is space.', reason)
        : vscode.l10n.t('Deep Search could not ask the question: {0}', reason);
    deps.log.error(message);
    const check = vscode.l10n.t('Show Conversations');
    // The instance's own page, the question filled in: where it may go through when the API did not.
    const inBrowser = vscode.l10n.t('Continue in Browser');
    const page = newQuestionPage(deps.store.instanceUrl, question);
    const choice = await vscode.window.showErrorMessage(message, ...(uncertain ? [check, edit] : [edit]), ...(page ? [inBrowser] : []));
    if (choice === check) {
      await vscode.commands.executeCommand('deepSearch.conversations.focus');
      await deps.tree.reload();
    }
    if (choice === edit) return ask(deps, undefined, question);
    if (choice === inBrowser && page) await openExactUrl(page);
    return undefined;
  }
}

/** `resource`: the file the editor's context menu was opened on (the active editor otherwise). */
async function askAboutSelection(deps: CommandDependencies, givenPrompt?: string, resource?: vscode.Uri): Promise<number | undefined> {
  const editor = selectionEditor(resource);
  if (!editor || editor.selection.isEmpty) {
    throw new Error(vscode.l10n.t('Select some code in an editor first, then ask about it.'));
  }
  if (!(await ensureSignedIn(deps))) return undefined;
  const { selection } = editor;
  const prompt =
    givenPrompt ??
    (await vscode.window.showInputBox({
      title: vscode.l10n.t('Ask Deep Search About Selection'),
      prompt: vscode.l10n.t('What do you want to know about the selected code? (optional)'),
      placeHolder: vscode.l10n.t('Leave empty to ask for an explanation'),
      ignoreFocusOut: true,
    }));
  if (prompt === undefined) return undefined;
  const excerpt = await codeContextOf(editor.document, selection, deps.repositories);
  const question = selectionQuestion({ ...excerpt, prompt });
  return send(deps, question);
}

/** The editor showing `document` (the active one first), or the active editor when none is named. */
function selectionEditor(document: vscode.Uri | undefined): vscode.TextEditor | undefined {
  const active = vscode.window.activeTextEditor;
  if (!document || active?.document.uri.toString() === document.toString()) return active;
  return vscode.window.visibleTextEditors.find((editor) => editor.document.uri.toString() === document.toString()) ?? active;
}

function remoteFileArgument(value: unknown): Partial<RemoteFile> | undefined {
  const file = textFields(value, ['repo', 'revision', 'path']);
  return Object.keys(file).length ? file : undefined;
}

function searchCodeArgument(value: unknown): SearchCodeArguments {
  const { query, mode } = textFields(value, ['query', 'mode']);
  return { query, mode: mode === 'keyword' || mode === 'natural' ? mode : undefined };
}

async function openShared(deps: CommandDependencies, given?: string): Promise<number | undefined> {
  if (!(await ensureSignedIn(deps))) return undefined;
  const input =
    given ??
    (await vscode.window.showInputBox({
      title: vscode.l10n.t('Open Shared Conversation'),
      prompt: vscode.l10n.t('Paste a share link or a read token'),
      placeHolder: 'https://sourcegraph.example.com/deepsearch/1c9f…',
      ignoreFocusOut: true,
      validateInput: (value) => (readTokenFromInput(value) ? undefined : vscode.l10n.t('That is neither a share link nor a read token (a UUID).')),
    }));
  if (input === undefined) return undefined;
  const readToken = readTokenFromInput(input);
  if (!readToken) throw new Error(vscode.l10n.t('That is neither a share link nor a read token (a UUID).'));
  const conversation = await deps.store.openShared(readToken);
  deps.panels.open(conversation.id);
  return conversation.id;
}

async function cancel(deps: CommandDependencies, arg: unknown): Promise<void> {
  const id = await conversationId(deps, arg, (conversation) => latestQuestion(conversation)?.state === 'processing');
  if (id === undefined) return;
  const conversation = await deps.store.load(id);
  const running = conversation.questions.filter((question) => question.state === 'processing' || question.state === 'pending');
  if (running.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Nothing to cancel: "{0}" is not running.', conversationLabel(conversation)));
    return;
  }
  for (const question of running) await deps.store.cancel(id, question.id);
}

/**
 * Deletes after the user confirms; closes its panel. Rejects when the instance does not delete it
 * (the caller shows why). `arg`: a conversation id or tree node, else the user picks one.
 */
export async function deleteConversation(deps: DeleteDependencies, arg: unknown): Promise<boolean> {
  const id = await conversationId(deps, arg);
  if (id === undefined) return false;
  const conversation = await deps.store.load(id);
  const remove = vscode.l10n.t('Delete');
  const choice = await vscode.window.showWarningMessage(
    vscode.l10n.t('Delete the conversation "{0}"?', conversationLabel(conversation)),
    { modal: true, detail: vscode.l10n.t('It is removed from the instance for good, including its answers.') },
    remove,
  );
  if (choice !== remove) return false;
  await deps.store.delete(id);
  deps.panels.close(id);
  return true;
}

/** Copies the conversation's share link after warning who can read it; rejects when there is none (the caller shows why). */
export async function copyShareLink(deps: ShareDependencies, arg: unknown): Promise<void> {
  const conversation = await requireConversation(deps, arg);
  if (!conversation) return;
  const url = await shareLink(deps, conversation);
  if (!deps.context.globalState.get<boolean>(SHARE_WARNING_KEY)) {
    const copy = vscode.l10n.t('Copy Link');
    const always = vscode.l10n.t("Copy, Don't Warn Again");
    const choice = await vscode.window.showWarningMessage(
      vscode.l10n.t('Anyone on the instance with this link can read the whole conversation.'),
      {
        modal: true,
        detail: vscode.l10n.t(
          'Shared views do not check repository permissions: people who open the link also see code quoted from repositories they cannot access.',
        ),
      },
      copy,
      always,
    );
    if (choice === undefined) return;
    if (choice === always) await deps.context.globalState.update(SHARE_WARNING_KEY, true);
  }
  await vscode.env.clipboard.writeText(url);
  void vscode.window.showInformationMessage(vscode.l10n.t('Share link copied.'));
}

/** Opens the conversation on the instance's web page; rejects when it has no page there (the caller shows why). */
export async function openInBrowser(deps: ConversationDependencies, arg: unknown): Promise<void> {
  const conversation = await requireConversation(deps, arg);
  // Its own page where the server names one (7.x), else its share link.
  if (conversation) await vscode.env.openExternal(vscode.Uri.parse(conversation.webUrl ?? (await shareLink(deps, conversation)), true));
}

/** Opens the whole conversation as a Markdown document; rejects when it cannot be loaded (the caller shows why). */
export async function exportMarkdown(deps: ConversationDependencies, arg: unknown): Promise<void> {
  const conversation = await requireConversation(deps, arg);
  if (!conversation) return;
  const content = conversationMarkdown(conversation, deps.store.instanceUrl ?? '');
  const document = await vscode.workspace.openTextDocument({ language: 'markdown', content });
  await vscode.window.showTextDocument(document, { preview: false });
}

/**
 * Opens an answer as a Markdown document (question, answer, citations, sources) in an editor, where
 * VS Code's own screen-reader support and Accessible View apply: the question given, else the
 * conversation's latest answer.
 */
export async function openAnswerAsMarkdown(deps: ConversationDependencies, arg: unknown, questionId?: number): Promise<void> {
  const conversation = await requireConversation(deps, arg);
  if (!conversation) return;
  const answered = conversation.questions.filter((question) => question.state === 'completed');
  const question = questionId === undefined ? answered.at(-1) : answered.find((candidate) => candidate.id === questionId);
  if (!question) {
    void vscode.window.showInformationMessage(vscode.l10n.t('This conversation has no answer yet to open.'));
    return;
  }
  const document = await vscode.workspace.openTextDocument({ language: 'markdown', content: answerMarkdown(question, deps.store.instanceUrl ?? '') });
  await vscode.window.showTextDocument(document, { preview: false });
}

/** Finds conversations by the text of their questions and answers (7.x instances) and opens the one picked. */
async function searchConversations(deps: CommandDependencies, given?: string): Promise<number | undefined> {
  if (!(await ensureSignedIn(deps))) return undefined;
  const query =
    given ??
    (await vscode.window.showInputBox({
      title: vscode.l10n.t('Search Conversations'),
      prompt: vscode.l10n.t('Words to find in your questions and their answers'),
      ignoreFocusOut: true,
      validateInput: (input) => (input.trim().length > MAX_SEARCH_LENGTH ? vscode.l10n.t('At most {0} characters.', MAX_SEARCH_LENGTH) : undefined),
    }));
  if (!query?.trim()) return undefined;
  const found = await vscode.window.withProgress({ location: { viewId: 'deepSearch.conversations' } }, () =>
    deps.store.search(query.trim().slice(0, MAX_SEARCH_LENGTH)),
  );
  if (found.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('No conversation mentions "{0}".', query.trim()));
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    found.map((conversation) => ({ label: conversationLabel(conversation), description: formatRelativeTime(conversation.updatedAt), id: conversation.id })),
    { title: vscode.l10n.t('Conversations that mention "{0}"', query.trim()), matchOnDescription: true },
  );
  if (!picked) return undefined;
  deps.panels.open(picked.id);
  return picked.id;
}

async function setStarredOnly(deps: CommandDependencies, starredOnly: boolean): Promise<void> {
  await vscode.commands.executeCommand('setContext', 'deepSearch.starredOnly', starredOnly);
  await deps.store.setStarredOnly(starredOnly);
}

async function shareLink(deps: ConversationDependencies, conversation: Conversation): Promise<string> {
  const url = await deps.store.shareLink(conversation.id);
  if (!url) throw new Error(vscode.l10n.t('The instance did not give this conversation a share link.'));
  return url;
}

async function requireConversation(deps: ConversationDependencies, arg: unknown): Promise<Conversation | undefined> {
  const id = await conversationId(deps, arg);
  return id === undefined ? undefined : deps.store.load(id);
}

/** The conversation a command is about: its argument, else one the user picks. */
async function conversationId(
  deps: ConversationDependencies,
  arg: unknown,
  eligible: (conversation: Conversation) => boolean = () => true,
): Promise<number | undefined> {
  const given = conversationIdArgument(arg);
  if (given !== undefined) return given;
  if (!(await ensureSignedIn(deps))) return undefined;
  if (!deps.store.isListLoaded) await deps.store.refreshList();
  const items = deps.store.listed.filter(eligible).map((conversation) => ({
    label: conversationLabel(conversation),
    description: latestQuestion(conversation)?.state,
    id: conversation.id,
  }));
  if (items.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('No conversation to choose from.'));
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Choose a conversation'), matchOnDescription: true });
  return picked?.id;
}

/** A command that needs a connection: offers to sign in first when there is none. */
function signedIn<A extends unknown[], R>(deps: CommandDependencies, run: (...args: A) => Promise<R>): (...args: A) => Promise<R | undefined> {
  return async (...args) => ((await ensureSignedIn(deps)) ? run(...args) : undefined);
}

/** Offers to sign in (or use the local engine) when nobody is signed in. */
async function ensureSignedIn(deps: Pick<CommandDependencies, 'session' | 'signIn'>): Promise<boolean> {
  await deps.session.whenRestored();
  if (deps.session.current) return true;
  const signInLabel = vscode.l10n.t('Sign In');
  const local = vscode.l10n.t('Use Local Engine');
  const choice = await vscode.window.showInformationMessage(
    vscode.l10n.t('Deep Search needs an instance to ask: sign in, or answer from this workspace with the local engine.'),
    signInLabel,
    local,
  );
  if (choice === signInLabel) return signIn(deps.signIn);
  if (choice === local) {
    await vscode.commands.executeCommand('deepSearch.useLocalEngine');
    return deps.session.current !== undefined;
  }
  return false;
}
