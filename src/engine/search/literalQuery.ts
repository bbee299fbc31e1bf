/**
 * What text every match of a matcher must contain, for the search index's n-gram filter: a tree of
 * literals (AND, OR) that the index looks up before it reads any text, so that a search reads only
 * the parts of the text that can hold a match. Worked out from the index's own JavaScript patterns
 * (grepPatterns.ts), whose subset is known; anything this does not recognise requires nothing
 * (the whole text is read), so the filter can only ever skip text that cannot match.
 *
 * Literals are Latin-1 strings (one character per byte, as the index holds text), with ASCII letters
 * in lower case: the index's n-grams fold ASCII case, and the scan that follows checks the match.
 */
import type { LineMatcher } from './grepPatterns';

export type RequiredText = { kind: 'anything' } | { kind: 'literal'; text: string } | { kind: 'all'; of: RequiredText[] } | { kind: 'any'; of: RequiredText[] };

const ANYTHING: RequiredText = { kind: 'anything' };
/** Literals shorter than an n-gram say nothing the index can look up. */
const MIN_LITERAL = 3;
/** Patterns longer than this are not analysed (they are bounded far below it anyway). */
const MAX_SOURCE = 4096;

export function requiredText(matcher: LineMatcher): RequiredText {
  if (matcher.kind === 'literal') return literal(foldAscii(matcher.needle));
  if (matcher.source.length > MAX_SOURCE) return ANYTHING;
  const parser = new Parser(matcher.source, matcher.flags.includes('i'));
  const required = parser.alternation();
  return parser.at === matcher.source.length ? required : ANYTHING;
}

function literal(text: string): RequiredText {
  return text.length >= MIN_LITERAL ? { kind: 'literal', text } : ANYTHING;
}

function all(of: RequiredText[]): RequiredText {
  const useful = of.filter((each) => each.kind !== 'anything');
  return useful.length === 0 ? ANYTHING : useful.length === 1 ? useful[0] : { kind: 'all', of: useful };
}

function any(of: RequiredText[]): RequiredText {
  return of.some((each) => each.kind === 'anything') ? ANYTHING : of.length === 1 ? of[0] : { kind: 'any', of };
}

function foldAscii(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}

/** A recursive-descent reader of the JavaScript pattern subset grepPatterns.ts writes. */
class Parser {
  at = 0;

  constructor(
    private readonly source: string,
    private readonly ignoreCase: boolean,
  ) {}

  /** Branches separated by `|`, up to a `)` or the end. */
  alternation(): RequiredText {
    const branches = [this.sequence()];
    while (this.source[this.at] === '|') {
      this.at++;
      branches.push(this.sequence());
    }
    return any(branches);
  }

  /** Atoms one after another: the runs of literal characters between them are required, as are required groups. */
  private sequence(): RequiredText {
    const required: RequiredText[] = [];
    let run = '';
    const endRun = (): void => {
      required.push(literal(run));
      run = '';
    };
    while (this.at < this.source.length && this.source[this.at] !== '|' && this.source[this.at] !== ')') {
      const atom = this.atom();
      const quantifier = this.quantifier();
      if (atom.kind === 'char') {
        if (quantifier === 'optional') {
          endRun();
        } else if (quantifier === 'repeated') {
          // `ab+c` holds "ab" and "bc": the first repetition follows a, the last precedes c.
          run += atom.char;
          endRun();
          run = atom.char;
        } else {
          run += atom.char;
        }
        continue;
      }
      endRun();
      if (atom.kind === 'group' && quantifier !== 'optional') required.push(atom.required);
      if (atom.kind === 'unknown') return ANYTHING;
    }
    endRun();
    return all(required);
  }

  private atom(): { kind: 'char'; char: string } | { kind: 'group'; required: RequiredText } | { kind: 'other' } | { kind: 'unknown' } {
    const char = this.source[this.at++] ?? '';
    if (char === '\\') return this.escape();
    if (char === '[') return this.skipClass() ? { kind: 'other' } : { kind: 'unknown' };
    if (char === '(') {
      if (this.source.startsWith('?:', this.at)) {
        this.at += 2;
      } else if (/^\?<?[=!]/.test(this.source.slice(this.at, this.at + 3))) {
        // Lookaround: it consumes nothing, and what it looks at need not be in the match.
        this.at += this.source[this.at + 1] === '<' ? 3 : 2;
        this.alternation();
        return this.source[this.at++] === ')' ? { kind: 'other' } : { kind: 'unknown' };
      } else if (this.source[this.at] === '?') {
        return { kind: 'unknown' };
      }
      const required = this.alternation();
      return this.source[this.at++] === ')' ? { kind: 'group', required } : { kind: 'unknown' };
    }
    if (char === '.' || char === '^' || char === '$') return { kind: 'other' };
    if ('*+?{}]'.includes(char)) return { kind: 'unknown' };
    return this.character(char);
  }

  private escape(): { kind: 'char'; char: string } | { kind: 'other' } | { kind: 'unknown' } {
    const next = this.source[this.at++] ?? '';
    if (next === 'x') {
      const hex = this.source.slice(this.at, this.at + 2);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) return { kind: 'unknown' };
      this.at += 2;
      return this.character(String.fromCharCode(parseInt(hex, 16)));
    }
    // Classes (\d, \w, \s), boundaries (\b) and anything else lettered match more than one text.
    if (/[0-9A-Za-z]/.test(next)) return /[dDwWsSbB]/.test(next) ? { kind: 'other' } : { kind: 'unknown' };
    return next === '' ? { kind: 'unknown' } : this.character(next);
  }

  /** A character matched as itself; with `i`, a non-ASCII one may match others (the n-grams fold ASCII only). */
  private character(char: string): { kind: 'char'; char: string } | { kind: 'other' } {
    const code = char.charCodeAt(0);
    if (char === '\n') return { kind: 'other' };
    if (this.ignoreCase && code >= 0x80) return { kind: 'other' };
    return { kind: 'char', char: foldAscii(char) };
  }

  /** Past a `[...]` class; false when it does not end. */
  private skipClass(): boolean {
    if (this.source[this.at] === '^') this.at++;
    if (this.source[this.at] === ']') this.at++;
    while (this.at < this.source.length) {
      const char = this.source[this.at++];
      if (char === '\\') this.at++;
      else if (char === ']') return true;
    }
    return false;
  }

  /** The quantifier after an atom: none (exactly once), optional (may be absent) or repeated (at least once). */
  private quantifier(): 'once' | 'optional' | 'repeated' {
    const char = this.source[this.at];
    let kind: 'once' | 'optional' | 'repeated' = 'once';
    if (char === '*' || char === '?') {
      this.at++;
      kind = 'optional';
    } else if (char === '+') {
      this.at++;
      kind = 'repeated';
    } else if (char === '{') {
      const bounds = /^\{(\d+)(,\d*)?\}/.exec(this.source.slice(this.at, this.at + 24));
      if (!bounds) return 'once';
      this.at += bounds[0].length;
      const least = Number(bounds[1]);
      kind = least === 0 ? 'optional' : least === 1 && bounds[2] === undefined ? 'once' : 'repeated';
    }
    // A lazy quantifier matches the same texts.
    if (kind !== 'once' && this.source[this.at] === '?') this.at++;
    return kind;
  }
}
