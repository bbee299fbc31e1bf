/**
 * Whether a text asks a question or describes code (a ticket or a spec pasted whole: sentences that
 * say what the code does), and the text without its frame. A frame is a leading question that asks
 * for the code matching what follows ("Which function matches the following description? …",
 * "Where is the code that does this:"): it says nothing of the code, only how the rest is to be
 * read, so it is told by the question's grammar (a question or a colon, followed by a longer text
 * that is not a question), never by its words. Pure.
 */

export type QuestionKind = 'question' | 'description';

export interface ReadQuestion {
  kind: QuestionKind;
  /** What is searched: the text without its frame. */
  text: string;
  /** The frame left out, when there was one. */
  frame?: string;
}

/** Words from which a text is a description whatever its shape. */
const LONG_TEXT_WORDS = 30;
/** Words from which a text of several sentences is a description. */
const SENTENCES_WORDS = 18;
/** Words from which a text that names an identifier is still a description (a ticket naming a function). */
const NAMING_TEXT_WORDS = 45;
/** A frame is followed by at least this many words, and at least this many times its own. */
const AFTER_FRAME_WORDS = 12;
const AFTER_FRAME_FACTOR = 1.5;

/** The sentences of a text: ends of sentences (`.`, `?`, `!`, a colon before a line break) and blank lines split it. */
export function sentencesOf(text: string): string[] {
  return text
    .replace(/```[\s\S]*?(```|$)/g, ' ')
    .split(/(?<=[.?!:])\s+(?=[^a-z\s])|(?<=:)\s*\n\s*|\n\s*\n/)
    .map((sentence) => sentence.replace(/\s+/g, ' ').trim())
    .filter((sentence) => /[A-Za-z]/.test(sentence));
}

function wordCount(text: string): number {
  return text.match(/[A-Za-z0-9_$]+(?:['’][a-z]+)?/g)?.length ?? 0;
}

/** A word written as code (`x`, `parseConfig`, `parse_config`, `res.cookie`, `call()`): a sentence naming one asks about it, it frames nothing. */
const CODE_SHAPED = /`|\b[a-z]+[A-Z]\w*|\b[A-Za-z]+_\w+|\b[A-Za-z_$][\w$]*\.[A-Za-z_$][\w$]*\(?|\b\w+\(\)/;

/** A sentence that asks (ends with `?`) or announces what follows (ends with `:`). */
function asksOrAnnounces(sentence: string): boolean {
  return /[?:]\s*$/.test(sentence);
}

/**
 * The text's kind and what is searched of it. `namesIdentifier`: whether it names code (`parseConfig`,
 * `res.cookie`): a short text that does is a question about that code.
 */
export function readQuestion(text: string, namesIdentifier: boolean): ReadQuestion {
  const sentences = sentencesOf(text);
  let searched = text;
  let frame: string | undefined;
  const [first, ...rest] = sentences;
  if (first !== undefined && rest.length > 0 && asksOrAnnounces(first) && !CODE_SHAPED.test(first)) {
    const after = rest.join(' ');
    const afterWords = wordCount(after);
    // What follows describes rather than asks: its sentences are mostly statements.
    const statements = rest.filter((sentence) => !/\?\s*$/.test(sentence)).length;
    if (afterWords >= AFTER_FRAME_WORDS && afterWords >= AFTER_FRAME_FACTOR * wordCount(first) && statements * 2 >= rest.length) {
      frame = first;
      searched = after;
    }
  }
  const words = wordCount(searched);
  const several = sentencesOf(searched).length >= 2;
  const long = namesIdentifier ? words >= NAMING_TEXT_WORDS : words >= LONG_TEXT_WORDS || (several && words >= SENTENCES_WORDS);
  return { kind: long || frame !== undefined ? 'description' : 'question', text: searched, ...(frame !== undefined ? { frame } : {}) };
}
