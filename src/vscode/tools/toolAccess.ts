/**
 * The current connection's tools for every editor feature, and the one place that tells the user
 * about tool failures: an instance without a tool server is announced once per connection (the
 * first time any feature needs it), its commands leave the palette, and the features fall back
 * (links to the browser).
 */
import * as vscode from 'vscode';
import { DeepSearchError, isDeepSearchError } from '../../api/errors';
import type { CodeTools } from '../../api/tools/codeTools';
import { isToolServerMissing, type ToolName } from '../../api/tools/toolServer';
import type { Session } from '../session';

/** Context key that hides the tool commands when the instance has no tool server. */
const MISSING_CONTEXT = 'deepSearch.noToolServer';

export class ToolAccess implements vscode.Disposable {
  private announcedFor: CodeTools | undefined;
  private readonly subscription: vscode.Disposable;
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  /** Fires when the connection (and so the tool server) changes. */
  readonly onDidChange = this.changeEmitter.event;

  constructor(
    private readonly session: Session,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.subscription = session.onDidChange(() => {
      void vscode.commands.executeCommand('setContext', MISSING_CONTEXT, false);
      this.changeEmitter.fire();
    });
  }

  /** The current connection's tools; throws a message that says to sign in when there is none. */
  get tools(): CodeTools {
    const tools = this.session.current?.tools;
    if (!tools) {
      throw new DeepSearchError('configuration', vscode.l10n.t('Sign in to a Deep Search instance (or use the local engine) to search and read code across repositories.'));
    }
    return tools;
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
      else this.log.warn(`Tool server check failed: ${error instanceof Error ? error.message : String(error)}`);
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
    const message = error instanceof Error ? error.message : String(error);
    this.log.error(message);
    void vscode.window.showErrorMessage(message);
  }

  dispose(): void {
    this.subscription.dispose();
    this.changeEmitter.dispose();
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
