/**
 * `git grep` patterns as JavaScript regular expressions that find the same lines, for the search
 * index. The index holds file bytes as a Latin-1 string (one character per byte), so a JavaScript
 * pattern sees bytes as git does under `LC_ALL=C`: no UTF-8, case folded in ASCII only.
 *
 * git matches each line on its own. The translation keeps that true over a whole file: no part of a
 * translated pattern can consume a newline (`.`, classes and `\s` exclude it), and `^`/`$` become
 * "after a newline or at the start" / "before a newline or at the end". Anything whose meaning could
 * differ between git and JavaScript (lookaround, backreferences, `\Q`, `\v`, non-ASCII, possessive
 * quantifiers, ...) is not translated: the caller then runs git grep itself.
 */

export type GrepSyntax = 'fixed' | 'extended' | 'perl';

/**
 * How the index scans for one grep: `indexOf` of a literal, or a regular expression. `length`, when
 * set, is that of every match (one ASCII string in any case): a scan need not ask for the match.
 */
export type LineMatcher =
  { kind: 'literal'; needle: string; wholeWord: boolean } | { kind: 'regex'; source: string; flags: string; wholeWord: boolean; length?: number };

/**
 * The matcher for `patterns` (OR-ed, as git does with several `-e`), or undefined when the index
 * cannot promise git's answer. `wholeWord` is only supported for fixed strings.
 */
export function lineMatcher(patterns: readonly string[], syntax: GrepSyntax, caseSensitive: boolean, wholeWord: boolean): LineMatcher | undefined {
  if (patterns.length === 0 || patterns.some((pattern) => pattern === '' || /[\n\0]/.test(pattern))) return undefined;
  if (syntax === 'fixed') {
    const needles = patterns.map(latin1OfUtf8);
    const [first] = needles;
    if (needles.length === 1 && first !== undefined && caseSensitive) return { kind: 'literal', needle: first, wholeWord };
    const ascii = needles.every((needle) => isAscii(needle));
    const sources = needles.map((needle) => literalSource(needle, !caseSensitive && !ascii));
    const fixed = needles.length === 1 && first !== undefined && ascii ? { length: first.length } : {};
    return { kind: 'regex', source: sources.join('|'), flags: !caseSensitive && ascii ? 'gi' : 'g', wholeWord, ...fixed };
  }
  if (wholeWord) return undefined;
  const sources: string[] = [];
  for (const pattern of patterns) {
    const source = translate(pattern, syntax, !caseSensitive, 'javascript');
    if (source === undefined) return undefined;
    sources.push(patterns.length > 1 ? `(?:${source})` : source);
  }
  const joined = sources.join('|');
  if (!compiles(joined)) return undefined;
  return { kind: 'regex', source: joined, flags: caseSensitive ? 'g' : 'gi', wholeWord: false };
}

/**
 * The same patterns for ripgrep (Rust's regex syntax, `(?-u)`: bytes, ASCII case folding, as git
 * under `LC_ALL=C`), or undefined when the index could not promise git's answer either: ripgrep
 * takes exactly the patterns the index takes, translated by the same rules. ripgrep matches one
 * line at a time, so `^` and `$` stay themselves. Whole words (fixed strings only) are spelled out
 * as git's `-w` defines them: no word character on either side of the match.
 */
export function ripgrepPattern(patterns: readonly string[], syntax: GrepSyntax, caseSensitive: boolean, wholeWord: boolean): string | undefined {
  if (!lineMatcher(patterns, syntax, caseSensitive, wholeWord)) return undefined;
  const flags = caseSensitive ? '-u' : 'i-u';
  const sources: string[] = [];
  for (const pattern of patterns) {
    if (syntax === 'fixed') {
      sources.push([...latin1OfUtf8(pattern)].map((char) => escapeChar(char.charCodeAt(0))).join(''));
      continue;
    }
    const source = translate(pattern, syntax, !caseSensitive, 'rust');
    if (source === undefined) return undefined;
    sources.push(source);
  }
  const body = sources.length > 1 ? sources.map((source) => `(?:${source})`).join('|') : sources[0];
  return wholeWord ? `(?${flags}:(?:^|[^0-9A-Za-z_])(?:${body})(?:$|[^0-9A-Za-z_]))` : `(?${flags}:${body})`;
}

/**
 * Which paths a grep's pathspecs select: every path (null, no pathspec), a test for the forms the
 * index and ripgrep know (`*.<extension>`: git's `*` crosses `/`, so it means "ends with"), or
 * undefined for any other form (git grep then answers).
 */
export function pathspecFilter(pathspecs: readonly string[]): ((path: string) => boolean) | null | undefined {
  if (pathspecs.length === 0) return null;
  const suffixes = pathspecs.map((pathspec) => /^\*(\.[A-Za-z0-9_+-]+)$/.exec(pathspec)?.[1]);
  if (!suffixes.every((suffix): suffix is string => suffix !== undefined)) return undefined;
  return (path) => suffixes.some((suffix) => path.endsWith(suffix));
}

/** The UTF-8 bytes of `text`, one character per byte (the index's view of file contents). */
export function latin1OfUtf8(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

function isAscii(text: string): boolean {
  return /^[\x00-\x7f]*$/.test(text);
}

/**
 * A literal as a pattern. Case-insensitive non-ASCII needles spell out `[aA]` instead of using the
 * `i` flag, which would also fold Latin-1 letters (bytes of UTF-8 sequences) that git leaves alone.
 */
function literalSource(needle: string, spellCase: boolean): string {
  let source = '';
  for (const char of needle) {
    const lower = char.toLowerCase();
    if (spellCase && /^[a-z]$/.test(lower)) source += `[${lower}${lower.toUpperCase()}]`;
    else source += escapeChar(char.charCodeAt(0));
  }
  return source;
}

function escapeChar(code: number): string {
  const char = String.fromCharCode(code);
  return /^[A-Za-z0-9_ ]$/.test(char) ? char : `\\x${code.toString(16).padStart(2, '0')}`;
}

function compiles(source: string): boolean {
  try {
    new RegExp(source, 'g');
    return true;
  } catch {
    return false;
  }
}

/** A set of byte values (0–255): what a class, `.` or `\w` may match. */
type ByteSet = boolean[];

const NEWLINE = 10;
const DIGIT: readonly number[] = range(0x30, 0x39);
const WORD: readonly number[] = [...range(0x30, 0x39), ...range(0x41, 0x5a), ...range(0x61, 0x7a), 0x5f];
/** PCRE's and glibc's `\s` / `[:space:]` in the C locale: HT, LF, VT, FF, CR and space. */
const SPACE: readonly number[] = [9, 10, 11, 12, 13, 32];
const POSIX_CLASSES: Readonly<Record<string, readonly number[]>> = {
  alpha: [...range(0x41, 0x5a), ...range(0x61, 0x7a)],
  digit: DIGIT,
  alnum: [...range(0x30, 0x39), ...range(0x41, 0x5a), ...range(0x61, 0x7a)],
  upper: range(0x41, 0x5a),
  lower: range(0x61, 0x7a),
  space: SPACE,
  blank: [9, 32],
  xdigit: [...range(0x30, 0x39), ...range(0x41, 0x46), ...range(0x61, 0x66)],
  punct: [...range(0x21, 0x2f), ...range(0x3a, 0x40), ...range(0x5b, 0x60), ...range(0x7b, 0x7e)],
  cntrl: [...range(0, 0x1f), 0x7f],
  print: range(0x20, 0x7e),
  graph: range(0x21, 0x7e),
};

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, index) => from + index);
}

function setOf(codes: readonly number[], negated = false): ByteSet {
  const set: ByteSet = new Array<boolean>(256).fill(negated);
  for (const code of codes) set[code] = !negated;
  return set;
}

/**
 * The set as a JavaScript class, never matching a newline. Case-insensitive sets are closed under
 * ASCII case first, so that a negated class excludes both cases, as PCRE's does.
 */
function classSource(set: ByteSet, negated: boolean, caseless: boolean): string {
  const members = [...set];
  if (caseless) {
    for (let code = 0x41; code <= 0x5a; code++) {
      const either = members[code] === true || members[code + 0x20] === true;
      members[code] = either;
      members[code + 0x20] = either;
    }
  }
  let source = '';
  let code = 0;
  while (code < 256) {
    const inside = (members[code] === true) !== negated && code !== NEWLINE;
    if (!inside) {
      code++;
      continue;
    }
    let end = code;
    while (end + 1 < 256 && (members[end + 1] === true) !== negated && end + 1 !== NEWLINE) end++;
    source += end === code ? escapeChar(code) : `${escapeChar(code)}-${escapeChar(end)}`;
    code = end + 1;
  }
  return `[${source}]`;
}

/**
 * Translates one ERE or PCRE pattern, or gives up (undefined). For JavaScript, which sees a whole
 * file at once, `^` and `$` become lookarounds at newlines; for ripgrep, which sees one line, they
 * stay. Everything else is written the same for both: `\xHH` escapes, explicit classes that never
 * hold a newline, `(?:` groups, `\b`, greedy and lazy quantifiers.
 */
function translate(pattern: string, syntax: 'extended' | 'perl', caseless: boolean, dialect: 'javascript' | 'rust'): string | undefined {
  if (!isAscii(pattern)) return undefined;
  const perl = syntax === 'perl';
  let out = '';
  let i = 0;
  let depth = 0;
  // Whether the previous item can take a quantifier (an atom or a group), and whether it already has one.
  let quantifiable = false;
  let quantified = false;
  const atom = (source: string): void => {
    out += source;
    quantifiable = true;
    quantified = false;
  };
  const zeroWidth = (source: string): void => {
    out += source;
    quantifiable = false;
    quantified = false;
  };
  while (i < pattern.length) {
    const char = pattern[i];
    if (char === '\\') {
      const next = pattern[i + 1];
      if (next === undefined) return undefined;
      i += 2;
      if (!/[A-Za-z0-9]/.test(next)) {
        // glibc gives `\<`, `\>`, `\`` and `\'` meanings of their own (word and buffer edges).
        if (!perl && /[<>`']/.test(next)) return undefined;
        atom(escapeChar(next.charCodeAt(0)));
        continue;
      }
      const set = escapeSet(next, perl);
      if (set) {
        atom(classSource(set, false, caseless));
        continue;
      }
      if (next === 'b' || next === 'B') {
        zeroWidth(`\\${next}`);
        continue;
      }
      if (perl && (next === 't' || next === 'r' || next === 'f')) {
        atom(escapeChar({ t: 9, r: 13, f: 12 }[next]));
        continue;
      }
      if (perl && next === 'x' && /^[0-7][0-9A-Fa-f]$/.test(pattern.slice(i, i + 2)) && Number.parseInt(pattern.slice(i, i + 2), 16) !== NEWLINE) {
        atom(escapeChar(Number.parseInt(pattern.slice(i, i + 2), 16)));
        i += 2;
        continue;
      }
      return undefined;
    }
    if (char === '[') {
      const parsed = parseClass(pattern, i, perl);
      if (!parsed) return undefined;
      atom(classSource(parsed.set, parsed.negated, caseless));
      i = parsed.end;
      continue;
    }
    if (char === '(') {
      if (pattern[i + 1] === '?') {
        if (!perl || pattern[i + 2] !== ':') return undefined;
        i += 3;
      } else {
        if (perl && pattern[i + 1] === '*') return undefined;
        i += 1;
      }
      out += '(?:';
      depth++;
      quantifiable = false;
      quantified = false;
      continue;
    }
    if (char === ')') {
      if (depth === 0) return undefined;
      depth--;
      i++;
      atom(')');
      continue;
    }
    if (char === '|') {
      i++;
      zeroWidth('|');
      continue;
    }
    if (char === '^') {
      i++;
      zeroWidth(dialect === 'rust' ? '^' : '(?<![^\\n])');
      continue;
    }
    if (char === '$') {
      i++;
      zeroWidth(dialect === 'rust' ? '$' : '(?![^\\n])');
      continue;
    }
    if (char === '.') {
      i++;
      // glibc's POSIX syntax has RE_DOT_NOT_NULL: its `.` skips NUL bytes too.
      atom(perl ? '[^\\n]' : '[^\\n\\x00]');
      continue;
    }
    if (char === '*' || char === '+' || char === '?' || char === '{') {
      const quantifier = char === '{' ? /^\{(\d{1,4})(,(\d{0,4}))?\}/.exec(pattern.slice(i)) : /^[*+?]/.exec(pattern.slice(i));
      if (!quantifier) {
        if (char === '{' && perl && !/^\{[\d\s,]*\}/.test(pattern.slice(i))) {
          // PCRE reads a brace that cannot start a quantifier as a literal (`{,3}` and `{ 3 }` depend on its version).
          i++;
          atom(escapeChar(0x7b));
          continue;
        }
        return undefined;
      }
      if (quantifier[1] !== undefined && quantifier[3] !== undefined && quantifier[3] !== '' && Number(quantifier[3]) < Number(quantifier[1])) return undefined;
      if (!quantifiable) return undefined;
      if (quantified) {
        // PCRE: a `?` after a quantifier makes it lazy (same lines matched); `+` makes it possessive (not in JavaScript).
        // ERE: a second quantifier applies to the first one's result: not the same as a lazy one.
        if (!perl || quantifier[0] !== '?') return undefined;
        out += '?';
        i++;
        quantifiable = false;
        continue;
      }
      out += quantifier[0];
      i += quantifier[0].length;
      quantified = true;
      continue;
    }
    if (char === '}' || char === ']' || char === '/' || char === '-') {
      i++;
      atom(escapeChar(char.charCodeAt(0)));
      continue;
    }
    const code = char.charCodeAt(0);
    if (code === NEWLINE || code === 0) return undefined;
    i++;
    atom(escapeChar(code));
  }
  if (depth !== 0) return undefined;
  return out;
}

/** `\d`, `\w`, `\s` and their negations as byte sets (glibc knows no `\d`); undefined for other escapes. */
function escapeSet(letter: string, perl: boolean): ByteSet | undefined {
  if (!perl && (letter === 'd' || letter === 'D')) return undefined;
  switch (letter) {
    case 'd':
      return setOf(DIGIT);
    case 'D':
      return setOf(DIGIT, true);
    case 'w':
      return setOf(WORD);
    case 'W':
      return setOf(WORD, true);
    case 's':
      return setOf(SPACE);
    case 'S':
      return setOf(SPACE, true);
    default:
      return undefined;
  }
}

/**
 * A bracket expression starting at `start` (`[`): its members and where it ends. PCRE reads escapes
 * inside (`[\d.]`); POSIX ERE does not (`[\.]` is a backslash or a dot). Both know `[:alpha:]`.
 */
function parseClass(pattern: string, start: number, perl: boolean): { set: ByteSet; negated: boolean; end: number } | undefined {
  const set = setOf([]);
  let i = start + 1;
  const negated = pattern[i] === '^';
  if (negated) i++;
  let first = true;
  for (;;) {
    const char = pattern[i];
    if (char === undefined) return undefined;
    if (char === ']' && !first) return { set, negated, end: i + 1 };
    first = false;
    if (char === '[' && pattern[i + 1] === ':') {
      const close = pattern.indexOf(':]', i + 2);
      const members = close > 0 ? POSIX_CLASSES[pattern.slice(i + 2, close)] : undefined;
      if (!members) return undefined;
      for (const code of members) set[code] = true;
      i = close + 2;
      // A range from a class (`[[:alpha:]-z]`) is an error or a literal hyphen, depending on the engine.
      if (pattern[i] === '-' && pattern[i + 1] !== ']') return undefined;
      continue;
    }
    if (char === '[' && (pattern[i + 1] === '=' || pattern[i + 1] === '.')) return undefined;
    let code: number;
    if (char === '\\' && perl) {
      const next = pattern[i + 1];
      if (next === undefined) return undefined;
      const escaped = escapeSet(next, perl);
      if (escaped) {
        escaped.forEach((member, index) => {
          if (member) set[index] = true;
        });
        if (pattern[i + 2] === '-' && pattern[i + 3] !== ']') return undefined;
        i += 2;
        continue;
      }
      if (!/[A-Za-z0-9]/.test(next)) code = next.charCodeAt(0);
      else if (next === 't') code = 9;
      else if (next === 'n') code = NEWLINE;
      else if (next === 'r') code = 13;
      else if (next === 'f') code = 12;
      else if (next === 'b') code = 8;
      else if (next === 'x' && /^[0-7][0-9A-Fa-f]$/.test(pattern.slice(i + 2, i + 4))) {
        code = Number.parseInt(pattern.slice(i + 2, i + 4), 16);
        i += 2;
      } else return undefined;
      i += 2;
    } else {
      code = char.charCodeAt(0);
      i++;
    }
    if (pattern[i] === '-' && pattern[i + 1] !== ']' && pattern[i + 1] !== undefined) {
      // A range `a-z`: its end is a plain character (or, in PCRE, an escaped one).
      let end: number;
      const endChar = pattern[i + 1];
      if (endChar === '[') return undefined;
      if (endChar === '\\' && perl) {
        const next = pattern[i + 2];
        if (next === undefined || /[A-Za-z0-9]/.test(next)) return undefined;
        end = next.charCodeAt(0);
        i += 3;
      } else {
        end = endChar.charCodeAt(0);
        i += 2;
      }
      if (end < code) return undefined;
      for (let member = code; member <= end; member++) set[member] = true;
      continue;
    }
    set[code] = true;
  }
}
