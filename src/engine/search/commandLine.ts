/** How many file names fit one command line, for the searches that name files to git or ripgrep. */

/**
 * Bytes of file names given to one process: Windows allows 32,767 characters on a command line,
 * macOS 1 MiB and Linux 2 MiB for the arguments and the environment together.
 */
export const MAX_ARGUMENT_BYTES = process.platform === 'win32' ? 24_000 : process.platform === 'linux' ? 1024 * 1024 : 256 * 1024;

/** Consecutive runs of `items`, each within `maxBytes` of arguments (an item is `bytesOf` plus its separator). */
export function argumentSlices<T>(items: readonly T[], bytesOf: (item: T) => number, maxBytes = MAX_ARGUMENT_BYTES): T[][] {
  const slices: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const length = bytesOf(item) + 1;
    if (current.length > 0 && bytes + length > maxBytes) {
      slices.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += length;
  }
  if (current.length > 0) slices.push(current);
  return slices;
}
