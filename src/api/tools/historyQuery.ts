/**
 * The one-line query of "Search Commits…" and "Search Diffs…": free text plus filters, e.g.
 * `fix login author:jane after:"2 weeks ago" repo:github.com/acme/app file:src/`.
 *
 * - Free words form one phrase; `OR` (upper case) or separate "quoted phrases" give several terms,
 *   any of which may match. `/…/` marks a regular expression.
 * - `repo:`, `author:`, `file:` and `content:` may repeat (any of them may match); `after:`,
 *   `before:` and `count:` take one value; `is:added` / `is:removed` narrow a diff search.
 */

export interface HistoryQuery {
  terms: string[];
  repos: string[];
  authors: string[];
  files: string[];
  contentTerms: string[];
  after?: string;
  before?: string;
  count?: number;
  added: boolean;
  removed: boolean;
  useRegex: boolean;
}

const TOKEN = /\s*(?:([a-zA-Z]+):(?:"([^"]*)"?|(\S*))|"([^"]*)"?|\/((?:\\.|[^/\\])+)\/(?=\s|$)|(\S+))/y;

export function parseHistoryQuery(input: string): HistoryQuery {
  const query: HistoryQuery = { terms: [], repos: [], authors: [], files: [], contentTerms: [], added: false, removed: false, useRegex: false };
  let words: string[] = [];
  const endPhrase = (): void => {
    if (words.length) query.terms.push(words.join(' '));
    words = [];
  };
  TOKEN.lastIndex = 0;
  let match: RegExpExecArray | null;
  while (TOKEN.lastIndex < input.length && (match = TOKEN.exec(input))) {
    const [, key, quotedValue, bareValue, phrase, regex, word] = match;
    if (key !== undefined) {
      const value = (quotedValue ?? bareValue ?? '').trim();
      if (!applyFilter(query, key.toLowerCase(), value)) words.push(match[0].trim());
    } else if (phrase !== undefined) {
      endPhrase();
      if (phrase.trim()) query.terms.push(phrase.trim());
    } else if (regex !== undefined) {
      endPhrase();
      query.terms.push(regex);
      query.useRegex = true;
    } else if (word === 'OR') {
      endPhrase();
    } else if (word) {
      words.push(word);
    }
  }
  endPhrase();
  return query;
}

function applyFilter(query: HistoryQuery, key: string, value: string): boolean {
  if (!value) return false;
  switch (key) {
    case 'repo':
      query.repos.push(value);
      return true;
    case 'author':
      query.authors.push(value);
      return true;
    case 'file':
      query.files.push(value);
      return true;
    case 'content':
      query.contentTerms.push(value);
      return true;
    case 'after':
    case 'since':
      query.after = value;
      return true;
    case 'before':
    case 'until':
      query.before = value;
      return true;
    case 'count': {
      const count = Number(value);
      if (!Number.isInteger(count) || count < 1) return false;
      query.count = count;
      return true;
    }
    case 'is':
      if (value === 'added') query.added = true;
      else if (value === 'removed') query.removed = true;
      else return false;
      return true;
    default:
      return false;
  }
}
