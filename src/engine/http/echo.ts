/**
 * How the engine repeats a client's value in a message: never more than `ECHO_LIMIT` characters of
 * it, and never by walking into an object or array (a deeply nested value would overflow the stack,
 * a large one would come back whole).
 */
export const ECHO_LIMIT = 100;

export function echo(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value.length > ECHO_LIMIT ? `${JSON.stringify(value.slice(0, ECHO_LIMIT))}… (${value.length} characters)` : JSON.stringify(value);
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value).slice(0, ECHO_LIMIT);
    case 'undefined':
      return 'nothing';
    default:
      if (value === null) return 'null';
      return Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
  }
}
