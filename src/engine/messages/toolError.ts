/**
 * What every tool and the search underneath share, with no imports of their own: the error a tool
 * reports to its caller, and sizes as people read them.
 */
/** A failure the caller can fix; the message says how. Becomes a tool error (`isError: true`). */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}

/** `1.5 KB`, `300 KB`, `2.1 MB`: sizes as the limits are stated. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round((bytes / 1024) * 10) / 10} KB`;
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
}
