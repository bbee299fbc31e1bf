/** A code fence longer than any run of backticks inside `code`, so the block cannot be closed early. */
export function markdownFence(code: string): string {
  const longestRun = Math.max(0, ...(code.match(/`+/g) ?? []).map((run) => run.length));
  return '`'.repeat(Math.max(3, longestRun + 1));
}
