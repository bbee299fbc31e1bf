/** What went wrong, in words, whatever was thrown (an Error's message, or the value as text). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
