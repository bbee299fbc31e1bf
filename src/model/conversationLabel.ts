/**
 * The one rule a conversation is called by, wherever it is named (the list, the panel's tab and
 * header, dialogs, exports): its own title where the server gives one, else its first question's
 * title, else that question's text; on one line and cut to a length.
 */
import * as l10n from '@vscode/l10n';
import type { Conversation, Question } from './conversation';

/** How long a label may be: lists, pickers and dialogs show one line. */
export const MAX_LABEL_LENGTH = 120;

export interface LabelOptions {
  /** Longest label, the ellipsis included. Default `MAX_LABEL_LENGTH`. */
  maxLength?: number;
  /** What a conversation with nothing to go by is called. Default "Conversation <id>". */
  fallback?: string;
}

export function conversationLabel(
  conversation: Pick<Conversation, 'id' | 'title'> & { questions: Iterable<Pick<Question, 'id' | 'title' | 'text'>> },
  options: LabelOptions = {},
): string {
  let first: Pick<Question, 'id' | 'title' | 'text'> | undefined;
  for (const question of conversation.questions) if (!first || question.id < first.id) first = question;
  const said = (conversation.title || first?.title || first?.text || '').replace(/\s+/g, ' ').trim();
  const label = said || options.fallback || l10n.t('Conversation {0}', conversation.id);
  const maxLength = Math.max(2, options.maxLength ?? MAX_LABEL_LENGTH);
  return label.length > maxLength ? `${label.slice(0, maxLength - 1).trimEnd()}…` : label;
}
