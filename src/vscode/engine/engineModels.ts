/**
 * The local engine's model, from VS Code's language models (`vscode.lm`: Copilot or any installed
 * provider): the setting `deepSearch.localEngine.model` names it (`off` by default), "Choose Model
 * for the Local Engine" picks it from what VS Code offers, and each turn the engine asks for runs
 * here, in the extension host, with VS Code's own consent and credentials — the engine sees only
 * the replies. A chosen model that is not available is said once; the engine then answers alone.
 */
import * as vscode from 'vscode';
import type { InvestigationLimits, ModelDescription, ModelMessage, ModelToolCall, ModelTurn, ModelTurnRequest } from '../../contract/modelWire';
import { Disposables } from '../disposables';
import type { EngineModelRunner } from './engineProcess';
import { SECTION } from '../settings';

const MODEL_SETTING = 'localEngine.model';
const OFF = 'off';
/** A reply kept at most, as the engine's contract bounds it. */
const MAX_REPLY_CHARS = 512 * 1024;
const MAX_TOOL_CALLS = 64;

/** The setting's value for a model: `<vendor>/<id>`. */
export function modelSettingValue(model: { vendor: string; id: string }): string {
  return `${model.vendor}/${model.id}`;
}

function chosen(): { vendor: string; id: string } | undefined {
  const value = vscode.workspace.getConfiguration(SECTION).get<string>(MODEL_SETTING, OFF).trim();
  const slash = value.indexOf('/');
  if (value === '' || value === OFF || slash <= 0) return undefined;
  return { vendor: value.slice(0, slash), id: value.slice(slash + 1) };
}

export function investigationLimitSettings(): Partial<InvestigationLimits> {
  const config = vscode.workspace.getConfiguration(SECTION);
  return {
    maxSteps: config.get<number>('localEngine.modelMaxSteps'),
    maxTokens: config.get<number>('localEngine.modelMaxTokens'),
    timeoutMs: (config.get<number>('localEngine.modelTimeoutSeconds') ?? 300) * 1000,
  };
}

function labelOf(model: vscode.LanguageModelChat): string {
  return model.vendor === 'copilot' ? `${model.name} (Copilot)` : `${model.name} (${model.vendor})`;
}

export class EngineModels extends Disposables implements EngineModelRunner {
  private readonly changeEmitter = this.register(new vscode.EventEmitter<void>());
  /** The model, the limits or what VS Code offers changed: tell the engine again. */
  readonly onDidChange = this.changeEmitter.event;
  /** Settings values already said to be unavailable (said once each). */
  private readonly saidUnavailable = new Set<string>();

  constructor(private readonly log: vscode.LogOutputChannel) {
    super();
    this.register(
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration(`${SECTION}.localEngine`)) this.changeEmitter.fire();
      }),
    );
    this.register(vscode.lm.onDidChangeChatModels(() => this.changeEmitter.fire()));
  }

  /** The chosen model as the engine knows it, or undefined (none chosen, or not available: said once). */
  async describe(): Promise<ModelDescription | undefined> {
    const wanted = chosen();
    if (!wanted) return undefined;
    const model = await this.select(wanted);
    if (model) return { label: labelOf(model) };
    const value = modelSettingValue(wanted);
    if (!this.saidUnavailable.has(value)) {
      this.saidUnavailable.add(value);
      this.log.warn(`The model ${value} chosen for the local engine is not available; the engine answers on its own.`);
      const choose = vscode.l10n.t('Choose Model');
      void vscode.window
        .showWarningMessage(
          vscode.l10n.t('The model "{0}" chosen for the local engine is not available in VS Code, so the engine answers on its own.', value),
          choose,
        )
        .then((picked) => (picked === choose ? vscode.commands.executeCommand('deepSearch.chooseEngineModel') : undefined));
    }
    return undefined;
  }

  /** The quick pick of VS Code's models (and Off); stores the choice in the user's settings. */
  async choose(): Promise<void> {
    const models = await vscode.lm.selectChatModels();
    const current = vscode.workspace.getConfiguration(SECTION).get<string>(MODEL_SETTING, OFF);
    type Item = vscode.QuickPickItem & { value: string };
    const items: Item[] = [
      { label: vscode.l10n.t('Off'), description: vscode.l10n.t('the engine answers on its own, with no model'), value: OFF },
      ...models.map((model) => ({
        label: model.name,
        description: model.vendor === 'copilot' ? 'Copilot' : model.vendor,
        detail: vscode.l10n.t('{0} input tokens', model.maxInputTokens.toLocaleString()),
        value: modelSettingValue(model),
      })),
    ];
    for (const item of items) if (item.value === current) item.picked = true;
    const picked = await vscode.window.showQuickPick(items, {
      title: vscode.l10n.t('Model for the Local Engine'),
      placeHolder:
        models.length === 0
          ? vscode.l10n.t('VS Code offers no language model: install or sign in to a model provider (such as GitHub Copilot), then try again')
          : vscode.l10n.t('The question and the code the model reads go to the model’s provider'),
    });
    if (!picked) return;
    await vscode.workspace.getConfiguration(SECTION).update(MODEL_SETTING, picked.value, vscode.ConfigurationTarget.Global);
    this.saidUnavailable.delete(picked.value);
  }

  /** One turn of the engine's investigation on the chosen model. */
  async turn(request: ModelTurnRequest, signal: AbortSignal): Promise<ModelTurn> {
    const wanted = chosen();
    const model = wanted && (await this.select(wanted));
    if (!model) throw new Error(vscode.l10n.t('The model chosen for the local engine is no longer available in VS Code.'));
    const cancel = new vscode.CancellationTokenSource();
    const onAbort = (): void => cancel.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const messages = toChatMessages(request);
      const response = await model.sendRequest(
        messages,
        {
          justification: vscode.l10n.t(
            'Deep Search’s local engine asks the model to investigate your question with its code tools, over your own repositories.',
          ),
          ...(request.tools.length > 0
            ? { tools: request.tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema })) }
            : {}),
        },
        cancel.token,
      );
      let text = '';
      const toolCalls: ModelToolCall[] = [];
      for await (const part of response.stream) {
        if (part instanceof vscode.LanguageModelTextPart) {
          if (text.length < MAX_REPLY_CHARS) text += part.value.slice(0, MAX_REPLY_CHARS - text.length);
        } else if (part instanceof vscode.LanguageModelToolCallPart && toolCalls.length < MAX_TOOL_CALLS) {
          toolCalls.push({
            id: part.callId.slice(0, 512),
            name: part.name.slice(0, 256),
            arguments: JSON.stringify(part.input ?? {}).slice(0, MAX_REPLY_CHARS),
          });
        }
      }
      // VS Code reports no usage: its own count of the tokens sent and received.
      const counted = await Promise.all([
        ...messages.map((message) => model.countTokens(message, cancel.token)),
        model.countTokens(text + JSON.stringify(toolCalls), cancel.token),
      ]);
      const outputTokens = counted.pop() ?? 0;
      return { text, toolCalls, usage: { inputTokens: counted.reduce((sum, count) => sum + count, 0), outputTokens } };
    } catch (error) {
      throw new Error(explain(error, labelOf(model)));
    } finally {
      signal.removeEventListener('abort', onAbort);
      cancel.dispose();
    }
  }

  private async select(wanted: { vendor: string; id: string }): Promise<vscode.LanguageModelChat | undefined> {
    const models = await vscode.lm.selectChatModels({ vendor: wanted.vendor, id: wanted.id });
    return models[0];
  }
}

/**
 * The engine's conversation as VS Code's messages: the instructions first (VS Code's models take
 * no system message), a turn's tool calls in the assistant's message, their results together in
 * the next user message.
 */
function toChatMessages(request: ModelTurnRequest): vscode.LanguageModelChatMessage[] {
  const messages: vscode.LanguageModelChatMessage[] = [vscode.LanguageModelChatMessage.User(request.instructions)];
  let results: vscode.LanguageModelToolResultPart[] = [];
  const flush = (): void => {
    if (results.length > 0) messages.push(vscode.LanguageModelChatMessage.User(results));
    results = [];
  };
  for (const message of request.messages as readonly ModelMessage[]) {
    if (message.role === 'tool') {
      results.push(new vscode.LanguageModelToolResultPart(message.callId, [new vscode.LanguageModelTextPart(message.text)]));
      continue;
    }
    flush();
    if (message.role === 'user') messages.push(vscode.LanguageModelChatMessage.User(message.text));
    else {
      const parts: Array<vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart> = message.text
        ? [new vscode.LanguageModelTextPart(message.text)]
        : [];
      for (const call of message.toolCalls) parts.push(new vscode.LanguageModelToolCallPart(call.id, call.name, parseInput(call.arguments)));
      messages.push(vscode.LanguageModelChatMessage.Assistant(parts));
    }
  }
  flush();
  return messages;
}

function parseInput(text: string): object {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? value : {};
  } catch {
    return {};
  }
}

/** A model's failure in words: VS Code's reasons (no consent, blocked, gone) with what to do. */
function explain(error: unknown, label: string): string {
  if (error instanceof vscode.LanguageModelError) {
    if (error.code === vscode.LanguageModelError.NoPermissions.name) {
      return vscode.l10n.t(
        '{0} may not be used by Deep Search: allow it when VS Code asks (or in the Language Models settings), or choose another model',
        label,
      );
    }
    if (error.code === vscode.LanguageModelError.Blocked.name) return vscode.l10n.t('{0} refused the request ({1})', label, error.message);
    if (error.code === vscode.LanguageModelError.NotFound.name) return vscode.l10n.t('{0} is no longer available in VS Code', label);
    return vscode.l10n.t('{0} failed: {1}', label, error.message);
  }
  return vscode.l10n.t('{0} failed: {1}', label, error instanceof Error ? error.message : String(error));
}
