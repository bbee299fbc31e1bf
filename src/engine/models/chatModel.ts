/**
 * A language model as the engine's investigation uses it: one turn at a time (the instructions, the
 * conversation so far, the tools it may call), answered with text, tool calls and the tokens used.
 * Two kinds fit: an OpenAI-compatible server (`openaiModel.ts`, the CLI) and VS Code's models,
 * brokered by the extension host (`brokeredModel.ts`); the engine never holds the host's credentials.
 */
import type { InvestigationLimits, ModelTurn, ModelTurnRequest } from '../../contract/modelWire';

export type { InvestigationLimits } from '../../contract/modelWire';
export { isModelError, ModelError, type ModelFailureKind } from './modelFailure';

export interface ChatModel {
  /** How the user knows the model ("llama3.1 at http://127.0.0.1:11434/v1", "GPT-4o (Copilot)"). */
  readonly label: string;
  /** One turn; rejects with a `ModelError` (`modelFailure.ts`) saying what happened, or with the signal's reason. */
  turn(request: ModelTurnRequest, signal: AbortSignal): Promise<ModelTurn>;
}

/** The model the engine answers with now, if any: the user may choose another while it runs. */
export type ModelSource = () => ChatModel | undefined;

export const DEFAULT_INVESTIGATION_LIMITS: InvestigationLimits = { maxSteps: 16, maxTokens: 400_000, timeoutMs: 5 * 60_000 };

/** The bounds every limit is kept within, whoever set it. */
export const INVESTIGATION_LIMIT_RANGES: { [K in keyof InvestigationLimits]: { min: number; max: number } } = {
  maxSteps: { min: 1, max: 100 },
  maxTokens: { min: 1_000, max: 10_000_000 },
  timeoutMs: { min: 1_000, max: 60 * 60_000 },
};

export function boundedLimits(limits: Partial<InvestigationLimits> = {}): InvestigationLimits {
  const bounded = { ...DEFAULT_INVESTIGATION_LIMITS };
  for (const key of Object.keys(INVESTIGATION_LIMIT_RANGES) as (keyof InvestigationLimits)[]) {
    const value = limits[key];
    if (value === undefined || !Number.isFinite(value)) continue;
    const { min, max } = INVESTIGATION_LIMIT_RANGES[key];
    bounded[key] = Math.min(max, Math.max(min, Math.round(value)));
  }
  return bounded;
}
