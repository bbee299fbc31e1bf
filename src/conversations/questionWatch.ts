/**
 * Waits for a question to be answered, however long it takes, for callers that are not a panel
 * (the chat participant, the agent's tool): the store polls it as if a panel were watching, each
 * new reasoning turn is reported as it arrives, and the wait ends when the question finishes or
 * the caller gives up. No `vscode` import.
 */
import * as l10n from '@vscode/l10n';
import { canceledError } from '../api/errors';
import type { ConversationStore } from './conversationStore';
import { isFinished, type Question, type Turn } from '../model/conversation';

export interface AnswerWatch {
  /** A reasoning turn the question did not have before (each once, in order). */
  onTurn?(turn: Turn): void;
  /** Aborts the wait (not the question: the caller cancels it on the server if it wants). */
  signal?: AbortSignal;
}

/** The question once it is completed, failed or cancelled; rejects when `signal` aborts or the conversation is gone. */
export function untilAnswered(store: ConversationStore, conversationId: number, questionId: number, watch: AnswerWatch = {}): Promise<Question> {
  return new Promise((resolve, reject) => {
    let turnsSeen = 0;
    const watching = store.watch(conversationId);
    const finish = (settle: () => void) => {
      watching.dispose();
      changes.dispose();
      watch.signal?.removeEventListener('abort', onAbort);
      settle();
    };
    const look = (): void => {
      const question = store.get(conversationId)?.questions.find((candidate) => candidate.id === questionId);
      if (!question) return;
      for (; turnsSeen < question.turns.length; turnsSeen++) watch.onTurn?.(question.turns[turnsSeen]);
      if (isFinished(question)) finish(() => resolve(question));
    };
    const changes = store.onDidChange((change) => {
      if (change.reset || change.removed.includes(conversationId)) {
        finish(() => reject(new Error(l10n.t('The conversation is no longer there: it was deleted, or you signed out.'))));
        return;
      }
      if (change.changed.includes(conversationId)) look();
    });
    const onAbort = () => finish(() => reject(canceledError()));
    if (watch.signal?.aborted) return onAbort();
    watch.signal?.addEventListener('abort', onAbort, { once: true });
    look();
  });
}
