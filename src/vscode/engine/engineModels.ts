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
import { floodFailure, modelFailure, ModelTurnFailure, type ProviderError } from './modelFailure';

const MODEL_SETTING = 'localEngine.model';
const OFF = 'off';
/** A reply read at most, as the engine's contract bounds it: past these, the request is cancelled. */
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

  /**
   * One turn of the engine's investigation on the chosen model. A failure rejects with a
   * `ModelTurnFailure` in words; a reply past the bounds is not read further, and the provider's
   * request is cancelled, as it is when the engine withdraws the turn (`signal`).
   */
  async turn(request: ModelTurnRequest, signal: AbortSignal): Promise<ModelTurn> {
    const wanted = chosen();
    const model = wanted && (await this.select(wanted));
    if (!model) throw modelFailure({ code: 'NotFound', message: '' });
    const cancel = new vscode.CancellationTokenSource();
    // A provider that ignores the cancel would keep the turn waiting: the turn ends at the abort anyway.
    let onAbort = (): void => undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => {
        cancel.cancel();
        reject(signal.reason);
      };
    });
    aborted.catch(() => undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      signal.throwIfAborted();
      const messages = toChatMessages(request);
      const reading = (async () => {
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
        const { text, toolCalls } = await readReply(response.stream, signal);
        // VS Code reports no usage: its own count of the tokens sent and received.
        const counted = await Promise.all([
          ...messages.map((message) => model.countTokens(message, cancel.token)),
          model.countTokens(text + JSON.stringify(toolCalls), cancel.token),
        ]);
        const outputTokens = counted.pop() ?? 0;
        return { text, toolCalls, usage: { inputTokens: counted.reduce((sum, count) => sum + count, 0), outputTokens } };
      })();
      return await Promise.race([reading, aborted]);
    } catch (error) {
      // Whatever ended the turn, the provider's request is over: a flood stops streaming at once.
      cancel.cancel();
      if (signal.aborted) throw signal.reason;
      const failure = error instanceof ModelTurnFailure ? error : modelFailure(providerError(error));
      this.log.warn(`A turn on ${labelOf(model)} failed (${failure.kind}): ${failure.message}`);
      throw failure;
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

/** What a provider's error carries, whether VS Code's `LanguageModelError` or anything thrown. */
function providerError(error: unknown): ProviderError {
  if (error instanceof vscode.LanguageModelError) return { code: error.code, message: error.message, cause: error.cause };
  if (error instanceof Error) return { message: error.message, cause: error.cause };
  return { message: String(error) };
}

/**
 * The reply's text and tool calls, read as they stream in; past the bounds (a flood), reading stops
 * at once with a `ModelTurnFailure`, so that the reply never sits in memory whole.
 */
async function readReply(stream: AsyncIterable<unknown>, signal: AbortSignal): Promise<{ text: string; toolCalls: ModelToolCall[] }> {
  let text = '';
  const toolCalls: ModelToolCall[] = [];
  for await (const part of stream) {
    signal.throwIfAborted();
    if (part instanceof vscode.LanguageModelTextPart) {
      text += part.value;
      if (text.length > MAX_REPLY_CHARS) throw floodFailure({ chars: MAX_REPLY_CHARS });
    } else if (part instanceof vscode.LanguageModelToolCallPart) {
      if (toolCalls.length === MAX_TOOL_CALLS) throw floodFailure({ toolCalls: MAX_TOOL_CALLS });
      toolCalls.push({
        id: part.callId.slice(0, 512),
        name: part.name.slice(0, 256),
        arguments: JSON.stringify(part.input ?? {}).slice(0, MAX_REPLY_CHARS),
      });
    }
  }
  return { text, toolCalls };
}
