/**
 * Where a definition's lines are, as the answer reads and quotes them: its documentation (the
 * comment, decorators and attributes just above it) and its head (a class, struct or module up to
 * its first method; anything else whole). Pure.
 */
import type { Definition } from '../code/definitions';

/** A comment line of the languages read (not a C preprocessor line, nor a `#!`). */
export const COMMENT_LINE = /^\s*(\/\*\*?|\*|\/\/|#(?!include|define|if|pragma|!)|--|;)/;

/** Lines of documentation read above a definition at most. */
const MAX_DOC_LINES = 30;
const ATTRIBUTE_LINE = /^\s*(@[\w.]+|#\[|\[[A-Z]\w*)/;

/**
 * The first line of the comment (and decorators or attributes) just above line `start`, or `start`
 * when there is none: a definition's documentation says what it is for in the question's words.
 */
export function documentationStart(lines: readonly string[], start: number): number {
  let first = start;
  for (let line = start - 1; line >= 1 && start - line <= MAX_DOC_LINES; line--) {
    const text = lines[line - 1] ?? '';
    if (!COMMENT_LINE.test(text) && !/^\s*\*\/\s*$/.test(text) && !ATTRIBUTE_LINE.test(text)) break;
    first = line;
  }
  return first;
}

export const CONTAINER_KINDS: ReadonlySet<Definition['kind']> = new Set(['class', 'struct', 'interface', 'trait', 'module', 'enum']);

/**
 * The last line a definition is scored (and quoted) by: a class, module or struct with definitions
 * inside ends, for this, before the first of them — its head (documentation, fields, signature); its
 * methods are spans of their own. Other definitions end where their body does.
 */
export function headEnd(definition: Definition, definitions: readonly Definition[]): number {
  if (!CONTAINER_KINDS.has(definition.kind)) return definition.endLine;
  let end = definition.endLine;
  for (const inner of definitions) {
    if (
      inner !== definition &&
      inner.line > definition.nameLine &&
      inner.line <= end &&
      inner.kind !== 'field' &&
      inner.kind !== 'constant' &&
      inner.kind !== 'variable'
    )
      end = inner.line - 1;
  }
  return Math.max(definition.nameLine, end);
}
