/**
 * The current connection's tools for every editor feature, and the one place that tells the user
 * about tool failures: an instance without a tool server is announced once per connection (the
 * first time any feature needs it), its commands leave the palette, and the features fall back
 * (links to the browser). The tool server is looked for as soon as a connection is made, so that a
 * command whose tool the instance lacks (an older server, a tool an admin turned off) leaves the
 * palette and menus before anyone tries it.
 */
import * as vscode from 'vscode';
import { DeepSearchError, errorMessage, isDeepSearchError } from '../../api/errors';
import type { CodeTools } from '../../api/tools/codeTools';
import { isToolServerMissing, TOOL_FEATURES, TOOL_NAMES, type ToolName, type ToolServer } from '../../api/tools/toolServer';
import { Disposables } from '../disposables';
import type { Session } from '../auth/session';
import type { LackingToolsMemento } from '../auth/lackingToolsMemento';

/** Context key that hides the tool commands when the instance has no tool server. */
const MISSING_CONTEXT = 'deepSearch.noToolServer';
/** Context key prefix: `deepSearch.lacks.<tool>` is true when the instance's tool server lacks that tool. */
const LACKS_CONTEXT = 'deepSearch.lacks.';

export class ToolAccess extends Disposables implements vscode.Disposable {
  private announcedFor: CodeTools | undefined;
  private stopWatchingDiscovery: (() => void) | undefined;
  /** Per connection: the fallbacks already explained (each is said once). */
  private readonly explained = new WeakMap<CodeTools, Set<string>>();
  private readonly changeEmitter = this.register(new vscode.EventEmitter<void>());
  /** Fires when the connection (and so the tool server) changes. */
  readonly onDidChange = this.changeEmitter.event;

  constructor(
    private readonly session: Session,
    private readonly lackingTools: LackingToolsMemento,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this.register({ dispose: () => this.stopWatchingDiscovery?.() });
    this.register(
      session.onDidChange(() => {
        this.watchDiscovery();
        this.changeEmitter.fire();
      }),
    );
    this.watchDiscovery();
  }

  /**
   * Shows the current connection's tools in the context keys (all offered until its tool server is
   * found), and looks for that server now: a failure here is only logged, since the features that
   * need the server say what went wrong when they are used.
   */
  private watchDiscovery(): void {
    this.stopWatchingDiscovery?.();
    this.stopWatchingDiscovery = undefined;
    const tools = this.session.current?.tools;
    this.showAvailability(tools?.client.discovered);
    if (!tools) return;
    this.stopWatchingDiscovery = tools.client.onDidDiscover((found) => {
      if (this.session.current?.tools === tools) this.showAvailability(found);
    });
    tools.client.server().catch((error: unknown) => {
      if (!isToolServerMissing(error)) this.log.warn(`Tool server check failed: ${errorMessage(error)}`);
    });
  }

  private showAvailability(found: ToolServer | 'missing' | undefined): void {
    void vscode.commands.executeCommand('setContext', MISSING_CONTEXT, found === 'missing');
    const lacking = found && found !== 'missing' ? TOOL_NAMES.filter((tool) => !found.names.has(tool)) : [];
    for (const tool of TOOL_NAMES) void vscode.commands.executeCommand('setContext', `${LACKS_CONTEXT}${tool}`, lacking.includes(tool));
    if (found && found !== 'missing') {
      this.log.info(`Tool server: ${found.url}, ${found.names.size} of ${TOOL_NAMES.length} tools${lacking.length ? `; lacks ${lacking.join(', ')}` : ''}.`);
      this.sayLacking(lacking);
    }
  }

  /**
   * Says which features the instance lacks, once: when that differs from what was last said about
   * this instance (at sign-in, or a start when an administrator turned a tool off), not at every start.
   */
  private sayLacking(lacking: readonly ToolName[]): void {
    const connection = this.session.current;
    if (!connection || connection.kind !== 'instance') return;
    if (this.lackingTools.said(connection.instanceUrl) === lacking.join(',')) return;
    void this.lackingTools.remember(connection.instanceUrl, lacking);
    if (lacking.length === 0) return;
    const message = vscode.l10n.t(
      '{0} does not offer {1} (an older server, or an administrator turned them off): Deep Search leaves them out.',
      this.instanceHost,
      lacking.map((tool) => TOOL_FEATURES[tool]).join(', '),
    );
    void vscode.window.showInformationMessage(message);
  }

  /**
   * Says once per connection that a feature works another way here (e.g. definitions found by
   * keyword search because the instance lacks go_to_definition). `key` names the fallback.
   */
  explainFallback(key: string, message: string): void {
    const tools = this.session.current?.tools;
    if (!tools) return;
    const said = this.explained.get(tools) ?? new Set<string>();
    this.explained.set(tools, said);
    if (said.has(key)) return;
    said.add(key);
    this.log.info(message);
    void vscode.window.showInformationMessage(message);
  }

  /** The current connection's tools; throws a message that says to sign in when there is none. */
  get tools(): CodeTools {
    const tools = this.session.current?.tools;
    if (!tools) {
      throw new DeepSearchError(
        'configuration',
        vscode.l10n.t('Sign in to a Deep Search instance (or use the local engine) to search and read code across repositories.'),
      );
    }
    return tools;
  }

  /** The current instance's host (`sourcegraph.example.com`), for messages. */
  get instanceHost(): string {
    const url = this.session.current?.instanceUrl;
    return url ? new URL(url).host : '';
  }

  /** The tools once the connection of the last session is restored (for files reopened at startup). */
  async ready(): Promise<CodeTools> {
    await this.session.whenRestored();
    return this.tools;
  }

  /**
   * Whether the current connection offers a tool. An instance without a tool server is announced
   * (once per connection): the feature asking falls back, and this is where the user learns why.
   */
  async has(tool: ToolName): Promise<boolean> {
    const tools = this.session.current?.tools;
    if (!tools) return false;
    try {
      return (await tools.client.server()).names.has(tool);
    } catch (error) {
      if (isToolServerMissing(error)) this.announceMissing(tools, error.message);
      else this.log.warn(`Tool server check failed: ${errorMessage(error)}`);
      return false;
    }
  }

  /**
   * Runs a tool task with cancellable progress in the notification area (`title` says what runs),
   * and reports a failure: the missing tool server once, cancellation never, anything else as it is.
   */
  async run<T>(title: string, task: (tools: CodeTools, signal: AbortSignal) => Promise<T>): Promise<T | undefined> {
    const tools = this.tools;
    return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (_progress, token) => {
      const controller = new AbortController();
      const listener = token.onCancellationRequested(() => controller.abort());
      try {
        return await task(tools, controller.signal);
      } catch (error) {
        await this.report(error, tools);
        return undefined;
      } finally {
        listener.dispose();
      }
    });
  }

  /** Tells the user about a failure of a tool feature (cancellations are not failures). */
  async report(error: unknown, tools = this.session.current?.tools): Promise<void> {
    if (isDeepSearchError(error) && error.kind === 'canceled') return;
    if (isToolServerMissing(error) && tools) {
      this.announceMissing(tools, error.message);
      return;
    }
    const message = errorMessage(error);
    this.log.error(message);
    void vscode.window.showErrorMessage(message);
  }

  /** Once per connection: the instance has no tool server at all. */
  private announceMissing(tools: CodeTools, message: string): void {
    void vscode.commands.executeCommand('setContext', MISSING_CONTEXT, true);
    if (this.announcedFor === tools) return;
    this.announcedFor = tools;
    this.log.warn(message);
    void vscode.window.showInformationMessage(message);
  }
}
