/**
 * What the engine stores about a conversation: its wire questions as served, plus the owner and the
 * read token. `service.ts` turns a record into a `WireConversation` for each requester.
 */
import type { WireQuestion } from '../../contract/legacyWire';

export interface ConversationRecord {
  id: number;
  user_id: number;
  read_token: string;
  created_at: string;
  updated_at: string;
  starred: boolean;
  questions: WireQuestion[];
  /** Files the answers generated (a table as CSV, data as JSON, a drawing as SVG), served to the owner. */
  files?: GeneratedFile[];
}

/** A file an answer generated; its answer links to it (`/deepsearch/files/<conversation>/<name>`). */
export interface GeneratedFile {
  name: string;
  content_type: string;
  text: string;
}

const GENERATED_FILE_NAME = /^[\w][\w.-]{0,127}$/;

export interface IdCounters {
  nextConversationId: number;
  nextQuestionId: number;
}

export { zeroStats } from '../../contract/legacyWire';

/** True once a question will not change any more (answered, failed or cancelled). */
export { isFinished } from '../../contract/legacyWire';

/** A timestamp strictly after `previous`, so `updated_at` visibly advances on every change. */
export function nextTimestamp(previous?: string): string {
  const now = Date.now();
  const floor = previous ? Date.parse(previous) + 1 : 0;
  return new Date(Math.max(now, Number.isNaN(floor) ? 0 : floor)).toISOString();
}

export function unixSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** Checks the parts of a stored record the engine relies on, so a hand-edited file cannot crash it. */
export function isConversationRecord(value: unknown): value is ConversationRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Partial<ConversationRecord>;
  return (
    Number.isInteger(record.id) &&
    Number.isInteger(record.user_id) &&
    typeof record.read_token === 'string' &&
    typeof record.created_at === 'string' &&
    typeof record.updated_at === 'string' &&
    Array.isArray(record.questions) &&
    record.questions.every(
      (question) =>
        typeof question === 'object' &&
        question !== null &&
        Number.isInteger(question.id) &&
        typeof question.question === 'string' &&
        typeof question.status === 'string',
    ) &&
    (record.files === undefined ||
      (Array.isArray(record.files) &&
        record.files.every(
          (file) =>
            typeof file === 'object' &&
            file !== null &&
            typeof file.name === 'string' &&
            GENERATED_FILE_NAME.test(file.name) &&
            typeof file.content_type === 'string' &&
            typeof file.text === 'string',
        )))
  );
}
