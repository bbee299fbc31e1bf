/**
 * One turn of a language model, as the engine's investigation asks for it and as a model answers:
 * the shapes every model path shares (an OpenAI-compatible server, VS Code's models brokered by the
 * extension host over the engine's IPC channel). Tool calls carry their arguments as the JSON text
 * the model wrote; the engine checks them against the tool's schema, as its tool server does.
 */

export type ModelMessage =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; toolCalls: ModelToolCall[] }
  /** The result of one tool call, as the model reads it. */
  | { role: 'tool'; callId: string; name: string; text: string };

export interface ModelToolCall {
  id: string;
  name: string;
  /** The arguments as the model wrote them (JSON text, possibly invalid). */
  arguments: string;
}

export interface ModelTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface ModelTurnRequest {
  /** What the model is and how it answers (a system message where the model has one). */
  instructions: string;
  messages: ModelMessage[];
  /** Empty: the model must answer in words (the last turn). */
  tools: ModelTool[];
  maxOutputTokens: number;
}

export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface ModelTurn {
  text: string;
  toolCalls: ModelToolCall[];
  usage: ModelUsage;
}

/** A model the engine may use, as the host describes it: a name the user recognises. */
export interface ModelDescription {
  label: string;
}

/** How far one investigation may go. */
export interface InvestigationLimits {
  /** Model turns that may call tools; one more turn, without tools, writes the answer. */
  maxSteps: number;
  /** Tokens in and out over every turn. */
  maxTokens: number;
  /** The whole investigation, model and tools. */
  timeoutMs: number;
}

export function isModelDescription(value: unknown): value is ModelDescription {
  return typeof value === 'object' && value !== null && isString((value as ModelDescription).label, 300);
}

export function isInvestigationLimits(value: unknown): value is Partial<InvestigationLimits> {
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(value).every(([key, limit]) => ['maxSteps', 'maxTokens', 'timeoutMs'].includes(key) && (limit === undefined || Number.isFinite(limit)));
}

/** Bounds of one bounded value: a model reply is outside input like any other. */
const MAX_TEXT = 512 * 1024;
const MAX_CALLS = 64;

function isString(value: unknown, max = MAX_TEXT): value is string {
  return typeof value === 'string' && value.length <= max;
}

function isToolCall(value: unknown): value is ModelToolCall {
  if (typeof value !== 'object' || value === null) return false;
  const call = value as Record<string, unknown>;
  return isString(call.id, 512) && isString(call.name, 256) && isString(call.arguments);
}

export function isModelTurn(value: unknown): value is ModelTurn {
  if (typeof value !== 'object' || value === null) return false;
  const turn = value as Record<string, unknown>;
  const usage = turn.usage as Record<string, unknown> | null | undefined;
  return (
    isString(turn.text) &&
    Array.isArray(turn.toolCalls) &&
    turn.toolCalls.length <= MAX_CALLS &&
    turn.toolCalls.every(isToolCall) &&
    typeof usage === 'object' &&
    usage !== null &&
    Number.isFinite(usage.inputTokens) &&
    Number.isFinite(usage.outputTokens)
  );
}

function isMessage(value: unknown): value is ModelMessage {
  if (typeof value !== 'object' || value === null) return false;
  const message = value as Record<string, unknown>;
  switch (message.role) {
    case 'user':
      return isString(message.text, 4 * MAX_TEXT);
    case 'assistant':
      return isString(message.text) && Array.isArray(message.toolCalls) && message.toolCalls.every(isToolCall);
    case 'tool':
      return isString(message.callId, 512) && isString(message.name, 256) && isString(message.text, 4 * MAX_TEXT);
    default:
      return false;
  }
}

export function isModelTurnRequest(value: unknown): value is ModelTurnRequest {
  if (typeof value !== 'object' || value === null) return false;
  const request = value as Record<string, unknown>;
  return (
    isString(request.instructions) &&
    Array.isArray(request.messages) &&
    request.messages.every(isMessage) &&
    Array.isArray(request.tools) &&
    request.tools.every(
      (tool: unknown) => typeof tool === 'object' && tool !== null && isString((tool as ModelTool).name, 256) && isString((tool as ModelTool).description),
    ) &&
    typeof request.maxOutputTokens === 'number'
  );
}
