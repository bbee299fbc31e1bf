/**
 * The index's text and where things are in it: the text files one after another (each ending with
 * a newline), which file and which line an offset falls in, and what git grep's -w sees around a
 * match. The text is one Latin-1 string of the files' bytes (searchWorkerThread.ts reads them).
 */
import type { TreeEntry } from './treeText';

/** Every LINE_STEP-th newline's offset is kept (a table of all would add a tenth to the index's memory). */
const LINE_STEP = 16;

export class TextLayout {
  readonly fileCount: number;
  /** The files' paths (UTF-8 decoded), their lengths in bytes and their blob sizes, by file. */
  readonly paths: string[];
  readonly pathBytes: Int32Array;
  readonly sizes: Float64Array;
  readonly lineCount: number;
  /** The number of each file's first line in the whole text (0-based). */
  readonly firstLine: Int32Array;
  private readonly marks: Int32Array;

  /**
   * @param text the files' bytes as Latin-1, one after another
   * @param fileStarts where each file starts, and where the last ends
   * @param files the tree entries they are, in that order
   */
  constructor(
    readonly text: string,
    readonly fileStarts: Int32Array,
    files: TreeEntry[],
  ) {
    this.paths = files.map((entry) => entry.path.toString('utf8'));
    this.pathBytes = Int32Array.from(files, (entry) => entry.path.length);
    this.sizes = Float64Array.from(files, (entry) => entry.size);
    this.fileCount = files.length;
    // Every line ends with a newline, so the newlines' offsets give each offset its line; the few
    // newlines between two kept ones are counted when needed.
    let lineCount = 0;
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lineCount++;
    this.lineCount = lineCount;
    this.marks = new Int32Array(Math.ceil(lineCount / LINE_STEP));
    for (let at = text.indexOf('\n'), index = 0; at !== -1; at = text.indexOf('\n', at + 1), index++) {
      if (index % LINE_STEP === 0) this.marks[index / LINE_STEP] = at;
    }
    this.firstLine = new Int32Array(this.fileCount);
    for (let file = 0; file < this.fileCount; file++) this.firstLine[file] = this.linesBefore(fileStarts[file]);
  }

  /** How many newlines come before offset 'at'. */
  linesBefore(at: number): number {
    const kept = firstAtLeast(this.marks, at);
    if (kept === 0) return this.countNewlines(0, at, 0);
    return this.countNewlines(this.marks[kept - 1] + 1, at, (kept - 1) * LINE_STEP + 1);
  }

  private countNewlines(from: number, to: number, count: number): number {
    const text = this.text;
    for (let next = text.indexOf('\n', from); next !== -1 && next < to; next = text.indexOf('\n', next + 1)) count++;
    return count;
  }

  /** The file holding offset 'at': the last start <= at (empty files share their start with the next). */
  fileAt(at: number): number {
    const fileStarts = this.fileStarts;
    let low = 0;
    let high = this.fileCount;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (fileStarts[middle] <= at) low = middle + 1;
      else high = middle;
    }
    return low - 1;
  }

  /** git's -w: neither neighbour of the match is a word character (lines end with newlines, which are not). */
  wordBounded(start: number, end: number): boolean {
    const text = this.text;
    return end > start && (start === 0 || !isWordCode(text.charCodeAt(start - 1))) && (end >= text.length || !isWordCode(text.charCodeAt(end)));
  }
}

/** Text of the index (Latin-1, a byte a character) as the UTF-8 it is. */
export function decode(latin1: string): string {
  return Buffer.from(latin1, 'latin1').toString('utf8');
}

function isWordCode(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

/** Index of the first element >= value (array sorted ascending). */
function firstAtLeast(array: Int32Array, value: number): number {
  let low = 0;
  let high = array.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (array[middle] < value) low = middle + 1;
    else high = middle;
  }
  return low;
}
