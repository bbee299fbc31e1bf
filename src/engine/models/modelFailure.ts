/**
 * What went wrong with a model, by kind, in words a user can act on (never a key or a token).
 *
 * A model client may be a bundle of its own (`dist/openaiModel.js`), so its errors reach the
 * investigation from another copy of this module: they are recognised by their `modelFailure`
 * field (`isModelError`), never by `instanceof`, which only matches a class of the same bundle.
 */

export type ModelFailureKind =
  /** The server refused the key (401, 403). */
  | 'key-refused'
  /** Nothing listens at the server's address, or the name does not resolve. */
  | 'not-running'
  /** The server answered with an error status (500, 400, …). */
  | 'server-error'
  /** The server does not know the model (404). */
  | 'unknown-model'
  /** The server is rate-limiting or out of quota (429). */
  | 'rate-limited'
  /** No answer within the time allowed. */
  | 'no-answer'
  /** A reply that is not a chat completion (HTML, a broken event stream, a connection cut mid-reply). */
  | 'unreadable-reply'
  /** A reply past the bounds of one turn (its text, its calls or its bytes). */
  | 'reply-too-large'
  /** The model in the editor failed (VS Code's models: consent, blocked, gone, quota). */
  | 'editor';

/**
 * A model failure as a sentence in three parts, so that the investigation can say how far it got:
 * "{subject} {what}[ after N tool calls][ ({detail})][: {advice}]".
 */
export interface ModelFailureWords {
  /** Who failed: "The model server at 127.0.0.1:11434", "GPT-4o (Copilot)". */
  subject: string;
  /** What it did: "refused the key (401)", "answered 500". */
  what: string;
  /** The server's own words, already bounded and scrubbed of secrets. */
  detail?: string;
  /** What to do: "check $OPENAI_API_KEY". */
  advice?: string;
}

/** The fields that cross bundles (and the engine's IPC channel): what `isModelError` reads. */
export interface ModelFailure extends ModelFailureWords {
  readonly modelFailure: ModelFailureKind;
}

export class ModelError extends Error implements ModelFailure {
  readonly modelFailure: ModelFailureKind;
  readonly subject: string;
  readonly what: string;
  readonly detail?: string;
  readonly advice?: string;

  constructor(kind: ModelFailureKind, words: ModelFailureWords) {
    super(failureSentence(words, 0));
    this.name = 'ModelError';
    this.modelFailure = kind;
    this.subject = words.subject;
    this.what = words.what;
    if (words.detail !== undefined) this.detail = words.detail;
    if (words.advice !== undefined) this.advice = words.advice;
  }
}

const KINDS: ReadonlySet<string> = new Set<ModelFailureKind>([
  'key-refused',
  'not-running',
  'server-error',
  'unknown-model',
  'rate-limited',
  'no-answer',
  'unreadable-reply',
  'reply-too-large',
  'editor',
]);

/** A model failure from any bundle's copy of `ModelError`. */
export function isModelError(error: unknown): error is Error & ModelFailure {
  if (!(error instanceof Error)) return false;
  const { modelFailure, subject, what } = error as Partial<ModelFailure>;
  return typeof modelFailure === 'string' && KINDS.has(modelFailure) && typeof subject === 'string' && typeof what === 'string';
}

/**
 * The failure as one sentence (no final stop), saying how many tool calls came before it. Words
 * with no subject are a whole sentence already (the editor's, which names its model).
 */
export function failureSentence(words: ModelFailureWords, toolCalls: number): string {
  if (words.subject === '') return words.what;
  const after = toolCalls > 0 ? ` after ${toolCalls === 1 ? 'one tool call' : `${toolCalls} tool calls`}` : '';
  const detail = words.detail ? ` (${words.detail})` : '';
  const advice = words.advice ? `: ${words.advice}` : '';
  return `${words.subject} ${words.what}${after}${detail}${advice}`;
}
