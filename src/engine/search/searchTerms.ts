/**
 * Turns a question into the terms the answerer names: identifiers first (from code spans, fenced
 * blocks and code-shaped words), then plain words. An identifier is named whole, never by its
 * camelCase or snake_case parts (`parse` and `Config` of `parseConfig` would match most files).
 */

const MAX_TERMS = 8;
const MIN_TERM_LENGTH = 3;

const STOPWORDS = new Set(
  (
    'a about above after again all also am an and any are as at be because been before being below between both but by ' +
    'can could did do does doing done down during each either else few for from further get gets got had has have having he ' +
    'her here hers him his how i if in into is it its itself just let me more most my no nor not now of off on once only or ' +
    'other our out over own same she should so some such than that the their them then there these they this those through ' +
    'to too under until up very was we were what when where which while who whom why will with would you your ' +
    'code codebase repo repos repository repositories file files line lines find show tell explain describe please ' +
    'work works working used use uses using usage happen happens defined define definition implemented implement ' +
    'implementation called call calls handle handled handles thing things way ways example examples mean means need needs ' +
    'want know look like make makes made one two new old many much'
  ).split(' '),
);

/** Whether a word says nothing of what code is about (`the`, `which`, `code`, `please`). */
export function isStopword(word: string): boolean {
  return STOPWORDS.has(word.toLowerCase());
}

/** Keywords that fill code blocks without saying what the code is about. */
const CODE_KEYWORDS = new Set(
  (
    'const let var function return class interface type enum import export from default new this self def func fn pub ' +
    'async await yield static public private protected readonly void null undefined true false none nil int string ' +
    'number boolean bool str char float double long byte struct impl trait package extends implements throw throws try ' +
    'catch finally switch case break continue while for if else elif then end begin lambda module require include'
  ).split(' '),
);

const IDENTIFIER = /[A-Za-z_$][A-Za-z0-9_$]*/g;

/** The terms to search for, most specific first, at most eight, deduplicated case-insensitively. */
export function extractSearchTerms(question: string): string[] {
  const codeTexts: string[] = [];
  const prose = question
    .replace(/```[^\n]*\n([\s\S]*?)(```|$)/g, (_match, body: string) => {
      codeTexts.push(body);
      return ' ';
    })
    .replace(/`([^`\n]+)`/g, (_match, span: string) => {
      codeTexts.push(span);
      return ' ';
    });

  const identifiers: string[] = [];
  const words: string[] = [];
  for (const text of codeTexts) {
    for (const token of text.match(IDENTIFIER) ?? []) {
      if (!CODE_KEYWORDS.has(token.toLowerCase())) identifiers.push(token);
    }
  }
  for (const token of prose.match(IDENTIFIER) ?? []) {
    (looksLikeCode(token) ? identifiers : words).push(token);
  }

  const ordered = [...identifiers, ...words];
  const terms: string[] = [];
  const seen = new Set<string>();
  for (const term of ordered) {
    const key = term.toLowerCase();
    if (term.length < MIN_TERM_LENGTH || STOPWORDS.has(key) || seen.has(key)) continue;
    seen.add(key);
    terms.push(term);
    if (terms.length === MAX_TERMS) break;
  }
  return terms;
}

/** `parseConfig`, `parse_config`, `HTTPServer2` look like code; `parse` and `Config` alone do not. */
function looksLikeCode(token: string): boolean {
  return /[a-z][A-Z]/.test(token) || /[A-Z]{2,}[a-z]/.test(token) || token.includes('_') || token.includes('$') || /\d/.test(token);
}

/**
 * The other spellings of a compound identifier, lower case, as a case-insensitive search finds
 * them: `parseConfig` and `parse_config` → `parseconfig` and `parse_config`. Nothing for a single
 * word.
 */
export function identifierSpellings(identifier: string): string[] {
  const parts = splitIdentifier(identifier).map((part) => part.toLowerCase());
  if (parts.length === 0) return [];
  return [...new Set([parts.join(''), parts.join('_')])];
}

/** `parseHTTPConfig_v2` → `parse`, `HTTP`, `Config`, `v2`; returns nothing for a single word. */
export function splitIdentifier(identifier: string): string[] {
  const parts = identifier
    .split(/[_$]+/)
    .flatMap((chunk) => chunk.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+/g) ?? [])
    .filter((part) => part !== '');
  return parts.length > 1 ? parts : [];
}
