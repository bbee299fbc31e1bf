/**
 * Keyword-search queries that stand in for go_to_definition and find_references on instances
 * whose tool server lacks them (2026's curated `/.api/mcp`, or tools an admin turned off): the
 * name as a whole word, case-sensitive, and for definitions only lines that declare it in the
 * common forms of the common languages. Search-based, so approximate: callers say so.
 */

/** Declaration keywords that come right before the declared name. */
const DECLARING = [
  'function',
  'class',
  'interface',
  'type',
  'enum',
  'struct',
  'trait',
  'impl',
  'def',
  'func',
  'fn',
  'const',
  'let',
  'var',
  'val',
  'module',
  'namespace',
  'record',
  'object',
  'protocol',
  'typealias',
];

/** At most this many matches are asked for references. */
const REFERENCES_COUNT = 100;

/** Whether a name can be searched this way: an identifier (letters, digits, `_`, `$`), not too long. */
export function isSearchableSymbol(symbol: string): boolean {
  return symbol.length <= 200 && /^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(symbol);
}

/** The keyword query for the lines that declare `symbol` (including Go methods: `func (r T) name`). */
export function definitionQuery(symbol: string): string {
  const name = escapeRegex(symbol);
  return `/\\b(${DECLARING.join('|')})\\s+${name}\\b|\\bfunc\\s*\\([^)]*\\)\\s*${name}\\b/ case:yes`;
}

/** The keyword query for every line naming `symbol` as a whole word. */
export function referencesQuery(symbol: string): string {
  return `/\\b${escapeRegex(symbol)}\\b/ case:yes count:${REFERENCES_COUNT}`;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
