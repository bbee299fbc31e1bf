/**
 * The search query language of `keyword_search` and `nls_search`: terms, "quoted phrases",
 * /regular expressions/, AND, OR, NOT and parentheses, and the filters repo:, file:, rev:, lang:,
 * case:, count: and patterntype:. Parsing only; nothing here runs a pattern.
 */
import { ToolError } from '../messages/toolError';
import type { ToolNamer } from '../messages/toolNames';

export type QueryNode =
  | { kind: 'pattern'; id: number; value: string; regex: boolean }
  | { kind: 'filter'; id: number; field: 'repo' | 'file' | 'lang'; value: string }
  | { kind: 'and'; children: QueryNode[] }
  | { kind: 'or'; children: QueryNode[] }
  | { kind: 'not'; child: QueryNode };

export type PatternNode = Extract<QueryNode, { kind: 'pattern' }>;
export type FilterNode = Extract<QueryNode, { kind: 'filter' }>;

export interface ParsedQuery {
  root: QueryNode | undefined;
  patterns: PatternNode[];
  filters: FilterNode[];
  revision: string | undefined;
  caseSensitive: boolean;
  count: number | undefined;
}

type Token =
  | { kind: 'open' }
  | { kind: 'close' }
  | { kind: 'op'; op: 'AND' | 'OR' | 'NOT' }
  | { kind: 'pattern'; value: string; regex: boolean }
  | { kind: 'filter'; field: string; value: string; negated: boolean };

const MAX_QUERY_LENGTH = 2000;
const MAX_PATTERNS = 12;
const FILTER_ALIASES: Readonly<Record<string, string>> = {
  repo: 'repo',
  r: 'repo',
  file: 'file',
  f: 'file',
  path: 'file',
  rev: 'rev',
  revision: 'rev',
  lang: 'lang',
  l: 'lang',
  language: 'lang',
  case: 'case',
  count: 'count',
  patterntype: 'patterntype',
  type: 'type',
  fork: 'ignored',
  archived: 'ignored',
  visibility: 'ignored',
  timeout: 'ignored',
  select: 'ignored',
};

/** The query's tree and settings; `toolName` names other tools in its errors as the caller's endpoint does. */
export function parseQuery(query: string, toolName: ToolNamer): ParsedQuery {
  if (query.length > MAX_QUERY_LENGTH)
    throw new ToolError(`The query is ${query.length} characters long; the limit is ${MAX_QUERY_LENGTH}. Use fewer, more specific terms.`);
  const tokens = tokenize(query);
  const settings = { revision: undefined as string | undefined, caseSensitive: false, count: undefined as number | undefined, regexDefault: false };
  const kept: Token[] = [];
  for (const token of tokens) {
    if (token.kind !== 'filter') {
      kept.push(token);
      continue;
    }
    const field = FILTER_ALIASES[token.field] ?? token.field;
    if (field === 'rev') {
      if (settings.revision !== undefined && settings.revision !== token.value)
        throw new ToolError('The query has two different rev: filters: search one revision at a time.');
      settings.revision = token.value;
    } else if (field === 'case') {
      settings.caseSensitive = /^(yes|true)$/i.test(token.value);
    } else if (field === 'count') {
      settings.count = token.value === 'all' ? Number.MAX_SAFE_INTEGER : Number(token.value);
      if (!Number.isInteger(settings.count) || settings.count < 1)
        throw new ToolError(`count:${token.value} is not a positive whole number: write e.g. count:30.`);
    } else if (field === 'patterntype') {
      settings.regexDefault = /^(regexp?|regex)$/i.test(token.value);
    } else if (field === 'type') {
      if (token.value.toLowerCase() !== 'file')
        throw new ToolError(
          `type:${token.value} is not supported here: this tool searches file contents; for commits and diffs use ${toolName('commit_search')} or ${toolName('diff_search')}.`,
        );
    } else if (field === 'repo' && token.value.includes('@')) {
      const at = token.value.lastIndexOf('@');
      const revision = token.value.slice(at + 1);
      if (revision !== '') {
        if (settings.revision !== undefined && settings.revision !== revision)
          throw new ToolError('The query names two different revisions: search one revision at a time.');
        settings.revision = revision;
      }
      kept.push({ ...token, field: 'repo', value: token.value.slice(0, at) });
    } else if (field !== 'ignored') {
      kept.push({ ...token, field });
    }
  }
  let nextId = 0;
  const patterns: PatternNode[] = [];
  const filters: FilterNode[] = [];
  let position = 0;
  const peek = (): Token | undefined => kept[position];

  const parseOr = (): QueryNode | undefined => {
    const children: QueryNode[] = [];
    const first = parseAnd();
    if (!first && peek()?.kind === 'op') throw new ToolError('OR needs a term on both sides, as in "foo OR bar".');
    if (first) children.push(first);
    while (peek()?.kind === 'op' && (peek() as { op: string }).op === 'OR') {
      position++;
      const next = parseAnd();
      if (!next) throw new ToolError('OR needs a term on both sides, as in "foo OR bar".');
      children.push(next);
    }
    return children.length <= 1 ? children[0] : { kind: 'or', children };
  };
  const parseAnd = (): QueryNode | undefined => {
    const children: QueryNode[] = [];
    for (;;) {
      const token = peek();
      if (!token || token.kind === 'close' || (token.kind === 'op' && token.op === 'OR')) break;
      if (token.kind === 'op' && token.op === 'AND') {
        position++;
        const next = peek();
        if (children.length === 0 || !next || next.kind === 'close' || (next.kind === 'op' && next.op !== 'NOT')) {
          throw new ToolError('AND needs a term on both sides, as in "foo AND bar".');
        }
        continue;
      }
      const node = parseUnary();
      if (node) children.push(node);
    }
    return children.length <= 1 ? children[0] : { kind: 'and', children };
  };
  const parseUnary = (): QueryNode | undefined => {
    const token = kept[position++];
    if (!token) throw new ToolError('The query ends too early: finish the expression after AND, OR or NOT.');
    if (token.kind === 'op' && token.op === 'NOT') {
      const child = parseUnary();
      if (!child) throw new ToolError('NOT needs a term after it, as in "foo NOT bar".');
      return { kind: 'not', child };
    }
    if (token.kind === 'open') {
      const inner = parseOr();
      if (kept[position]?.kind !== 'close') throw new ToolError('The query has an unmatched "(": close every group with ")".');
      position++;
      if (!inner) throw new ToolError('The query has an empty "()" group: put terms inside or remove it.');
      return inner;
    }
    if (token.kind === 'close') throw new ToolError('The query has an unmatched ")": remove it or open the group with "(".');
    if (token.kind === 'op') throw new ToolError(`${token.op} needs a term on both sides, as in "foo ${token.op} bar".`);
    if (token.kind === 'pattern') {
      const node: PatternNode = { kind: 'pattern', id: nextId++, value: token.value, regex: token.regex || settings.regexDefault };
      patterns.push(node);
      return node;
    }
    const field = token.field as FilterNode['field'];
    if (field !== 'repo' && field !== 'file' && field !== 'lang') throw new ToolError(`${token.field}: is not a filter this tool knows.`);
    if (token.value === '') throw new ToolError(`${token.field}: needs a value, as in ${token.field}:example.`);
    const node: FilterNode = { kind: 'filter', id: nextId++, field, value: token.value };
    filters.push(node);
    return token.negated ? { kind: 'not', child: node } : node;
  };

  const root = parseOr();
  if (position < kept.length) throw new ToolError('The query has an unmatched ")": remove it or open the group with "(".');
  if (patterns.length > MAX_PATTERNS)
    throw new ToolError(`The query has ${patterns.length} search terms; the limit is ${MAX_PATTERNS}. Use fewer, more specific terms.`);
  return { root, patterns, filters, revision: settings.revision, caseSensitive: settings.caseSensitive, count: settings.count };
}

function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  let depth = 0;
  let i = 0;
  while (i < query.length) {
    const char = query[i] ?? '';
    if (/\s/.test(char)) {
      i++;
      continue;
    }
    if (char === '(') {
      tokens.push({ kind: 'open' });
      depth++;
      i++;
      continue;
    }
    if (char === ')' && depth > 0) {
      tokens.push({ kind: 'close' });
      depth--;
      i++;
      continue;
    }
    if (char === '"' || char === "'") {
      const { value, next } = readQuoted(query, i);
      tokens.push({ kind: 'pattern', value, regex: false });
      i = next;
      continue;
    }
    if (char === '/') {
      const end = regexEnd(query, i);
      if (end > i + 1) {
        tokens.push({ kind: 'pattern', value: query.slice(i + 1, end).replace(/\\\//g, '/'), regex: true });
        i = end + 1;
        continue;
      }
    }
    const filter = /^(-?)([A-Za-z]+):/.exec(query.slice(i));
    if (filter && filter[2] && FILTER_ALIASES[filter[2].toLowerCase()] !== undefined) {
      i += filter[0].length;
      let value: string;
      if (query[i] === '"' || query[i] === "'") {
        const quoted = readQuoted(query, i);
        value = quoted.value;
        i = quoted.next;
      } else {
        const word = readWord(query, i, depth);
        value = word.value;
        i = word.next;
      }
      tokens.push({ kind: 'filter', field: filter[2].toLowerCase(), value, negated: filter[1] === '-' });
      continue;
    }
    const word = readWord(query, i, depth);
    i = word.next;
    if (/^(AND|OR|NOT)$/i.test(word.value)) tokens.push({ kind: 'op', op: word.value.toUpperCase() as 'AND' | 'OR' | 'NOT' });
    else if (word.value !== '') tokens.push({ kind: 'pattern', value: word.value, regex: false });
    else i++;
  }
  return tokens;
}

/** A word up to whitespace; a trailing `)` closes a group when the word's own parentheses balance. */
function readWord(query: string, start: number, depth: number): { value: string; next: number } {
  let end = start;
  while (end < query.length && !/\s/.test(query[end] ?? '')) end++;
  let value = query.slice(start, end);
  let open = depth;
  while (open > 0 && value.endsWith(')') && count(value, '(') < count(value, ')')) {
    value = value.slice(0, -1);
    end--;
    open--;
  }
  return { value, next: end };
}

function count(text: string, char: string): number {
  return text.split(char).length - 1;
}

function readQuoted(query: string, start: number): { value: string; next: number } {
  const quote = query[start];
  let value = '';
  let i = start + 1;
  while (i < query.length && query[i] !== quote) {
    if (query[i] === '\\' && (query[i + 1] === quote || query[i + 1] === '\\')) i++;
    value += query[i] ?? '';
    i++;
  }
  if (i >= query.length) throw new ToolError(`The query has an unclosed ${quote}: close the phrase with ${quote}.`);
  if (value === '') throw new ToolError('The query has an empty quoted phrase: put text between the quotes or remove them.');
  return { value, next: i + 1 };
}

/** Index of the `/` closing a regular expression that starts at `start`, or -1. */
function regexEnd(query: string, start: number): number {
  for (let i = start + 1; i < query.length; i++) {
    if (query[i] === '\\') {
      i++;
      continue;
    }
    if (query[i] === '/') {
      const after = query[i + 1];
      return after === undefined || /[\s)]/.test(after) ? i : -1;
    }
  }
  return -1;
}

/** Evaluates the query tree for one file given which patterns and filters hold for it. */
export function evaluate(node: QueryNode | undefined, holds: (leaf: PatternNode | FilterNode) => boolean): boolean {
  if (!node) return true;
  switch (node.kind) {
    case 'pattern':
    case 'filter':
      return holds(node);
    case 'and':
      return node.children.every((child) => evaluate(child, holds));
    case 'or':
      return node.children.some((child) => evaluate(child, holds));
    case 'not':
      return !evaluate(node.child, holds);
  }
}

/**
 * The ids of the patterns every file the query matches contains: without one of them, the query
 * is false whatever else holds (NOT and OR make no pattern required; AND requires its children's).
 */
export function requiredPatterns(node: QueryNode | undefined): Set<number> {
  if (!node || node.kind === 'filter' || node.kind === 'not') return new Set();
  if (node.kind === 'pattern') return new Set([node.id]);
  const each = node.children.map(requiredPatterns);
  if (node.kind === 'and') return new Set(each.flatMap((ids) => [...ids]));
  return new Set([...each[0]].filter((id) => each.every((ids) => ids.has(id))));
}

/** Pattern nodes that sit under an odd number of NOTs are "negative": they never supply shown lines. */
export function positivePatterns(node: QueryNode | undefined, negated = false, out: PatternNode[] = []): PatternNode[] {
  if (!node) return out;
  if (node.kind === 'pattern' && !negated) out.push(node);
  else if (node.kind === 'and' || node.kind === 'or') for (const child of node.children) positivePatterns(child, negated, out);
  else if (node.kind === 'not') positivePatterns(node.child, !negated, out);
  return out;
}
