/**
 * The extension's object graph, built and registered once at activation, whichever host it runs in:
 * what differs (the network, the workspace's repositories, the local engine) comes from the entry
 * point, src/extension.ts on Node or src/extensionWeb.ts in VS Code for the Web. Nothing else
 * happens here; network work starts only when a view, panel or command needs it.
 */
import * as l10n from '@vscode/l10n';
import * as vscode from 'vscode';
import { ConversationStore } from '../conversations/conversationStore';
import { errorMessage, isDeepSearchError } from '../api/errors';
import { DeepSearchAuthProvider } from './auth/authProvider';
import {
  askWithDraft,
  copyShareLink,
  deleteConversation,
  exportMarkdown,
  openAnswerAsMarkdown,
  openInBrowser,
  registerCommands,
  type CommandDependencies,
} from './commands';
import { ConversationPanels } from './conversations/conversationPanels';
import { ConversationTree, VIEW_ID } from './conversations/conversationTree';
import { RunningIndicator } from './conversations/runningIndicator';
import { Session, type LocalEngine } from './auth/session';
import { CredentialVault } from './auth/credentialVault';
import { LackingToolsMemento } from './auth/lackingToolsMemento';
import { OAuthTransport, type NetworkAccess } from './auth/networkBundle';
import { OAuthRedirects } from './auth/oauthRedirect';
import type { SignInParts } from './auth/signIn';
import type { EngineModels } from './engine/engineModels';
import { connectionSettingsChange, pollSettings } from './settings';
import { SourceLinkOpener } from './conversations/sourceLinks';
import { GeneratedFiles } from './conversations/generatedFiles';
import { WorkspaceRepositories, type RepositoryFinder } from './workspace/workspaceRepositories';
import { CodeLocations } from './tools/codeLocations';
import { HistoryCommands } from './tools/history';
import { DeepSearchMcpServers, MCP_PROVIDER_ID } from './tools/mcpServers';
import { CrossRepositoryNavigation } from './tools/navigation';
import { REMOTE_SCHEME, RemoteFileSystem } from './tools/remoteFiles';
import { registerAgentTools } from './chat/agentTools';
import { DeepSearchChat } from './chat/chatParticipant';
import { ToolAccess } from './tools/toolAccess';

/** What tests inside the extension host may reach (returned from activate). */
export interface DeepSearchExtensionApi {
  store: ConversationStore;
  session: Session;
  /** What signing in uses (the vault, the network, where browser sign-ins come back). */
  signIn: SignInParts;
  panels: ConversationPanels;
  tree: ConversationTree;
  links: SourceLinkOpener;
  mcpServers: DeepSearchMcpServers;
  /** `@deepsearch` in VS Code's Chat (its handler, for tests that drive it). */
  chat: DeepSearchChat;
  localEngine: LocalEngineHost;
  /** Milliseconds spent in `activate()` (also in the output channel). */
  activationMs: number;
}

/** The local engine as the extension holds it: a process on Node, a stand-in that says why not on the web. */
export type LocalEngineHost = LocalEngine & vscode.Disposable & { readonly models: EngineModels; pid(): Promise<number | undefined> };

/** What differs between the hosts VS Code runs extensions in, given by the entry point. */
export interface HostPlatform {
  /** The client code and what carries its requests (undici with the proxy settings, or fetch). */
  network: NetworkAccess;
  /** How the workspace's repositories are found (git clones, or a virtual workspace's repository). */
  repositories: RepositoryFinder;
  localEngine(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): LocalEngineHost;
}

/** Builds the object graph and registers it, for either entry point (extension.ts, extensionWeb.ts). */
export function activateExtension(context: vscode.ExtensionContext, platform: HostPlatform): DeepSearchExtensionApi {
  const started = performance.now();
  // Shared formatting (src/format.ts) speaks through @vscode/l10n: give it VS Code's translations.
  if (vscode.l10n.bundle) l10n.config({ contents: vscode.l10n.bundle });
  // Messages only: the client's errors never carry the token, and nothing else is logged.
  const log = vscode.window.createOutputChannel(vscode.l10n.t('Deep Search'), { log: true });
  const localEngine = platform.localEngine(context, log);
  // The session and the sign-in get the same vault, state and network: neither reaches them through the other.
  const { network } = platform;
  const vault = new CredentialVault(context.secrets);
  const oauthServers = new OAuthTransport(network);
  // Loopback only where the host can listen on 127.0.0.1 (not VS Code for the Web's web worker).
  const redirects = new OAuthRedirects(context.extension.id, network.listenOnLoopback !== undefined);
  const session = new Session({ vault, state: context.globalState, network, oauthServers, localEngine });
  const lackingTools = new LackingToolsMemento(context.globalState);
  const signInParts: SignInParts = { session, vault, lackingTools, network, oauthServers, redirects };
  /** What identifies the current connection's conversations (ids are unique per instance only). */
  const instanceKey = () => {
    const connection = session.current;
    return connection && (connection.kind === 'local' ? 'local' : connection.instanceUrl);
  };
  const runningKey = () => {
    const instance = instanceKey();
    return instance && `deepSearch.running:${instance}`;
  };
  const askToSignInAgain = signInAgainPrompt();
  const store = new ConversationStore({
    ...pollSettings(),
    onPollError: (id, error) => {
      log.warn(`Refreshing conversation ${id} failed: ${errorMessage(error)}`);
      if (isDeepSearchError(error) && error.kind === 'unauthorized') void askToSignInAgain(error.message);
    },
    memento: {
      load: () => {
        const key = runningKey();
        return key ? context.globalState.get<number[]>(key, []) : [];
      },
      save: (ids) => {
        const key = runningKey();
        if (key) void context.globalState.update(key, ids);
      },
    },
  });
  const repositories = new WorkspaceRepositories(platform.repositories);
  const toolAccess = new ToolAccess(session, lackingTools, log);
  const locations = new CodeLocations(repositories);
  const generatedFiles = new GeneratedFiles(() => session.current?.client, context.storageUri ?? context.globalStorageUri);
  const links = new SourceLinkOpener(repositories, locations, toolAccess, () => store.instanceUrl);
  const remoteFiles = new RemoteFileSystem(toolAccess);
  const navigation = new CrossRepositoryNavigation(toolAccess, locations, log);
  const history = new HistoryCommands(toolAccess, repositories);
  const mcpServers = new DeepSearchMcpServers(session);
  const tree = new ConversationTree(store);
  // The panel calls the commands' functions, not the commands: a failure reaches the panel, which says what failed.
  const panels: ConversationPanels = new ConversationPanels({
    extensionUri: context.extensionUri,
    store,
    log,
    actions: {
      openLink: (href) => links.open(href),
      previewCitation: (href) => links.preview(href),
      copyShareLink: (id) => copyShareLink(commandDependencies, id),
      openInBrowser: (id) => openInBrowser(commandDependencies, id),
      exportMarkdown: (id) => exportMarkdown(commandDependencies, id),
      openAnswerAsMarkdown: (id, questionId) => openAnswerAsMarkdown(commandDependencies, id, questionId),
      askWithDraft: (draft) => askWithDraft(commandDependencies, draft),
      generatedFile: (href, action) => (action === 'open' ? generatedFiles.open(href) : generatedFiles.saveAs(href)),
      deleteConversation: (id) => deleteConversation(commandDependencies, id),
    },
    instances: {
      current: instanceKey,
      recorded: (id) => context.workspaceState.get<string>(`deepSearch.panelInstance:${id}`),
      record: (id, instance) => void context.workspaceState.update(`deepSearch.panelInstance:${id}`, instance),
    },
  });

  const chat = new DeepSearchChat({ session, store, links, repositories, openPanel: (id) => panels.open(id) });
  const treeView = vscode.window.createTreeView(VIEW_ID, { treeDataProvider: tree, showCollapseAll: false });
  const commandDependencies: CommandDependencies = {
    context,
    log,
    session,
    signIn: signInParts,
    store,
    panels,
    tree,
    links,
    repositories,
    toolAccess,
    locations,
    navigation,
    history,
    engineModels: localEngine.models,
    unsent: {},
  };
  context.subscriptions.push(
    log,
    localEngine,
    session,
    oauthServers,
    redirects,
    { dispose: () => store.dispose() },
    repositories,
    toolAccess,
    remoteFiles,
    vscode.workspace.registerFileSystemProvider(REMOTE_SCHEME, remoteFiles, { isReadonly: true, isCaseSensitive: true }),
    ...navigation.registerProviders(),
    mcpServers,
    vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, mcpServers),
    tree,
    panels,
    new DeepSearchAuthProvider(session, signInParts),
    chat,
    ...registerAgentTools(session, store),
    new RunningIndicator(
      store,
      (id) => panels.isVisible(id),
      (id) => panels.open(id),
    ),
    treeView,
    // Conversations asked elsewhere (another window, the web) appear when the view is shown again.
    treeView.onDidChangeVisibility(({ visible }) => {
      if (visible && store.isListLoaded) void tree.reload();
    }),
    session.onDidChange((connection) => store.setClient(connection?.client, { sameAccount: connection?.sameAccount })),
    vscode.workspace.onDidChangeConfiguration((event) => {
      const change = connectionSettingsChange(event);
      if (change.network || change.instanceUrl) void session.settingsChanged(change);
      if (event.affectsConfiguration('deepSearch.pollInterval')) store.setPollIntervals(pollSettings());
    }),
    ...registerCommands(commandDependencies),
  );
  void vscode.commands.executeCommand('setContext', 'deepSearch.signedIn', false);
  // Not awaited: reconnecting (or starting the local engine) must not hold up activation.
  void session.restore();
  const activationMs = performance.now() - started;
  log.info(`Activated in ${activationMs.toFixed(1)} ms.`);
  return { store, session, signIn: signInParts, panels, tree, links, mcpServers, chat, localEngine, activationMs };
}

/** The token stopped working (revoked, expired) while questions were being followed: says so, one prompt at a time. */
function signInAgainPrompt(): (message: string) => Promise<void> {
  let asking = false;
  return async (message) => {
    if (asking) return;
    asking = true;
    try {
      const signIn = vscode.l10n.t('Sign In');
      if ((await vscode.window.showWarningMessage(message, signIn)) === signIn) await vscode.commands.executeCommand('deepSearch.signIn');
    } finally {
      asking = false;
    }
  };
}
