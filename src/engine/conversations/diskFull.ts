/**
 * What the engine says when its data folder has no space left (ENOSPC: the disk is full; EDQUOT:
 * the user's disk quota is used up). A request whose write fails this way answers 507 Insufficient
 * Storage and changes nothing; a question whose progress or answer cannot be written ends failed
 * with an error saying so, instead of showing something that is not stored.
 */
import type { WireQuestionError } from '../../contract/legacyWire';
import { HttpError } from '../http/http';

const NO_SPACE_CODES = new Set(['ENOSPC', 'EDQUOT']);

/** True when a write failed because the data folder's disk (or the user's quota there) is full. */
export function isDiskFull(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && NO_SPACE_CODES.has(code);
}

/** The errno code for the log ("ENOSPC", "EDQUOT"). */
export function diskFullCode(error: unknown): string {
  return (error as NodeJS.ErrnoException | undefined)?.code ?? 'ENOSPC';
}

const FULL = "The engine's data folder has no space left (its disk, or your disk quota there, is full)";

/**
 * The 507 for a request that could not be stored. `outcome` says what did not happen ("the
 * conversation was not created"), `retry` what to do once there is space ("ask again").
 */
export function diskFullHttpError(outcome: string, retry: string): HttpError {
  return new HttpError(507, `${FULL}: ${outcome}, and nothing was saved for this request. Free space on that disk, then ${retry}.`);
}

/** Which write of a running question found the disk full. */
export type UnsavedStage = 'progress' | 'answer' | 'outcome' | 'cancel';

const UNSAVED: Record<UnsavedStage, { title: string; what: string }> = {
  progress: { title: 'The question could not be saved', what: "so this question's progress could not be saved and answering it stopped" },
  answer: { title: 'The answer could not be saved', what: 'so the answer that was found could not be saved' },
  outcome: { title: 'The question could not be saved', what: 'so how this question ended could not be saved' },
  cancel: { title: 'The question could not be saved', what: 'so its cancellation could not be saved (answering it stopped)' },
};

/** What the log says was lost, per stage. */
export const UNSAVED_LOG: Record<UnsavedStage, string> = {
  progress: 'its progress',
  answer: 'its answer',
  outcome: 'its outcome',
  cancel: 'its cancellation',
};

/** The error a question ends with when what it reached could not be stored. */
export function unsavedQuestionError(stage: UnsavedStage): WireQuestionError {
  return {
    title: UNSAVED[stage].title,
    kind: 'InsufficientStorage',
    message: `${FULL}, ${UNSAVED[stage].what}. Free space on that disk, then ask again.`,
  };
}
