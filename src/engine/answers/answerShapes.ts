/**
 * What the conversation service asks of an answerer and what it gets back: the shapes alone, so
 * that the service depends on no answerer (the engine's own, or a model's investigation).
 */
import type { WireSource, WireStats } from '../../contract/legacyWire';

/** An earlier question of the conversation with its answer. */
export interface EarlierExchange {
  question: string;
  answer: string;
}

export interface AnswerRequest {
  question: string;
  /** Earlier questions of the conversation, oldest first; their terms stand in when this one has none. */
  earlierQuestions: readonly string[];
  /** Earlier questions with their answers, oldest first: a model's follow-up carries them as context. */
  earlier?: readonly EarlierExchange[];
  signal: AbortSignal;
  /** Appends a turn describing the current step; resolves once it is stored. */
  report(reasoning: string): Promise<void>;
}

export interface Answer {
  title: string;
  answer: string;
  sources: WireSource[];
  suggestedFollowups: string[];
  stats: WireStats;
}
