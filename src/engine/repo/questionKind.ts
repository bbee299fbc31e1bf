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

/** Words that open a relative clause: what follows them says what the code does. */
const RELATIVE = new Set(['that', 'which', 'where', 'who', 'whose']);
/** Words that address the reader (the asker and the one asked), or open a question. */
const ADDRESSING = new Set(['i', 'me', 'my', 'we', 'us', 'our', 'you', 'your']);
const QUESTION_WORDS = new Set(['where', 'which', 'what', 'how']);
const ARTICLES = new Set(['the', 'a', 'an']);
/** A request's head is this short at most ("I am looking for the place where"). */
const MAX_REQUEST_WORDS = 8;
/** An imperative's head is a verb, an article and a noun ("Find the code that"): "Somewhere the framework decides that" is none. */
const MAX_COMMAND_WORDS = 3;

/**
 * The words of the requests inside a text ("I want the code that …", "Show me the function which
 * …", "Find the place where …", "Where is the routine that …"): the head of a sentence that asks
 * the reader for something, up to the relative word after which the sentence says what it does. Told
 * by grammar: the head addresses the reader (I, me, we, you), opens with a question word, or is an
 * imperative (a verb then an article: "Find the"), and ends at a relative word within its first
 * words, right after an article and its noun ("the code that", never "check that a …"). Code-shaped words are never part of one (a name is what is asked for). Lower case, in order.
 */
export function requestWords(text: string): string[] {
  const words: string[] = [];
  for (const sentence of sentencesOf(text)) {
    const tokens = sentence.match(/[A-Za-z_$`][\w$`'’.]*/g) ?? [];
    const plain = tokens.map((token) => token.replace(/[.'’]+$/, '').toLowerCase());
    // "the place where", "a routine that": a relative word right after an article and its noun (not "unpack that pair").
    const relative = plain.findIndex((word, index) => index >= 2 && RELATIVE.has(word) && ARTICLES.has(plain[index - 2] ?? ''));
    if (relative < 0 || relative > MAX_REQUEST_WORDS) continue;
    const head = plain.slice(0, relative);
    const addresses = head.some((word) => ADDRESSING.has(word) || /^i['’]/.test(word));
    const asks = QUESTION_WORDS.has(head[0] ?? '');
    const commands = relative <= MAX_COMMAND_WORDS && ARTICLES.has(head[1] ?? '') && !ARTICLES.has(head[0] ?? '');
    if (!addresses && !asks && !commands) continue;
    for (let at = 0; at < relative; at++) if (!CODE_SHAPED.test(tokens[at] ?? '')) words.push(plain[at] ?? '');
  }
  return words.filter((word) => /^[a-z]+$/.test(word));
}
