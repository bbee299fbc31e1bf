/**
 * The model the extension host runs for the engine (VS Code's, chosen by the user): each turn goes
 * to the host as a `modelTurn` message over the IPC channel and comes back as a `modelReply`; a
 * turn the engine no longer wants is withdrawn with `modelCancel`. The engine never sees the
 * model's credentials, only its replies.
 */
import type { FromEngineMessage } from '../../contract/engineProcess';
import type { ModelDescription, ModelTurn, ModelTurnRequest } from '../../contract/modelWire';
import { ModelError, type ChatModel } from './chatModel';

interface Pending {
  /** The model the turn went to. */
  label: string;
  resolve(turn: ModelTurn): void;
  reject(error: unknown): void;
}

export class ModelBroker {
  private description: ModelDescription | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(
    /** Sends a message to the host; false when the channel is gone. */
    private readonly send: (message: FromEngineMessage) => boolean,
    description?: ModelDescription,
  ) {
    this.description = description;
  }

  /** The host's model now, or none (the user chose none, or none is available). */
  current(): ChatModel | undefined {
    const description = this.description;
    if (!description) return undefined;
    return { label: description.label, turn: (request, signal) => this.turn(description.label, request, signal) };
  }

  /** The host chose another model, or none. Turns under way finish on the one they started with. */
  choose(description: ModelDescription | undefined): void {
    this.description = description;
  }

  /** The host's reply to a turn (a late one, after a cancel, is dropped). */
  reply(id: number, turn: ModelTurn | undefined, error: string | undefined): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    if (turn) pending.resolve(turn);
    else pending.reject(editorFailure(pending.label, error ?? 'the editor returned no reply from the model'));
  }

  /** The host is gone: every turn waiting for it fails. */
  disconnected(): void {
    for (const [id, pending] of this.pending) {
      this.pending.delete(id);
      pending.reject(editorFailure(pending.label, 'the editor that runs the model is gone'));
    }
  }

  private turn(label: string, request: ModelTurnRequest, signal: AbortSignal): Promise<ModelTurn> {
    signal.throwIfAborted();
    const id = this.nextId++;
    return new Promise<ModelTurn>((resolve, reject) => {
      const onAbort = (): void => {
        if (!this.pending.delete(id)) return;
        this.send({ type: 'modelCancel', id });
        reject(signal.reason);
      };
      const settle =
        <T>(finish: (value: T) => void) =>
        (value: T): void => {
          signal.removeEventListener('abort', onAbort);
          finish(value);
        };
      this.pending.set(id, { label, resolve: settle(resolve), reject: settle(reject) });
      signal.addEventListener('abort', onAbort, { once: true });
      if (!this.send({ type: 'modelTurn', id, request })) {
        this.pending.delete(id);
        signal.removeEventListener('abort', onAbort);
        reject(editorFailure(label, 'the editor that runs the model is gone'));
      }
    });
  }
}

/** The host's words for a failure say why (no consent, blocked, a usage limit), after the model's name. */
function editorFailure(label: string, reason: string): ModelError {
  return new ModelError('editor', { subject: label, what: 'could not finish this answer', advice: reason.replace(/\.$/, '') });
}
