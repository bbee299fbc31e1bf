/** What went wrong, in words, whatever was thrown (an Error's message, or the value as text): one rule for the client and the engine. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
