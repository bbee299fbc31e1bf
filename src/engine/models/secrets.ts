/**
 * Keeping a model key out of every text a model client hands on (an answer, a turn, a log line, a
 * stored conversation): the key itself, in the spellings a server or proxy may echo it in, and any
 * `Authorization:` header or `Bearer …` credential a server's error message repeats.
 */

/** What a removed secret reads as. */
export const REDACTED = '[redacted]';

/**
 * Shorter keys are not secrets (`ollama`, `none`): removing such a word from answers about code would
 * only break quotes. A key this long or longer is removed wherever it appears.
 */
const MIN_SECRET_CHARS = 8;

/** Credentials a server's error text may echo, whatever the key was. */
const ECHOED_CREDENTIALS = [
  /\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:[A-Za-z][\w-]*\s+)?[^\s"',;]+/gi,
  /\b(?:bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{6,}/gi,
  /\b(?:x-)?api[-_]?key["']?\s*[:=]\s*["']?[^\s"',;&]+/gi,
];

export interface Scrubber {
  /** Texts the model wrote (its answer, its calls): the key removed, nothing else changed. */
  reply(text: string): string;
  /** Texts a server wrote about a failure: the key and any echoed credential removed. */
  failure(text: string): string;
}

export function secretScrubber(key: string | undefined): Scrubber {
  const spellings = key !== undefined && key.length >= MIN_SECRET_CHARS ? spellingsOf(key) : [];
  const reply = (text: string): string => spellings.reduce((scrubbed, spelling) => scrubbed.split(spelling).join(REDACTED), text);
  return {
    reply,
    failure: (text) => ECHOED_CREDENTIALS.reduce((scrubbed, pattern) => scrubbed.replace(pattern, REDACTED), reply(text)),
  };
}

/** The key as it is, percent-encoded, JSON-escaped and base64-encoded. */
function spellingsOf(key: string): string[] {
  const spellings = new Set([key, encodeURIComponent(key), JSON.stringify(key).slice(1, -1), base64(key)]);
  // Longest first, so that a spelling that contains another goes whole.
  return [...spellings].filter((spelling) => spelling.length >= MIN_SECRET_CHARS).sort((a, b) => b.length - a.length);
}

function base64(text: string): string {
  return btoa(String.fromCodePoint(...new TextEncoder().encode(text))).replace(/=+$/, '');
}
