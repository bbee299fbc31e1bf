/**
 * Parsing of the unified diffs git prints (`git log -p`, `git diff`): files with their old and new
 * paths and hunks with ranges, section headings and lines.
 */

export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** The text after the second `@@` (often the enclosing function), without surrounding spaces. */
  section: string;
  /** Lines with their `+`, `-`, ` ` or `\` prefix. */
  lines: string[];
}

export interface FilePatch {
  oldPath: string | undefined;
  newPath: string | undefined;
  binary: boolean;
  hunks: Hunk[];
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$/;

/** The file patches of a diff, in order. */
export function parsePatch(text: string): FilePatch[] {
  const files: FilePatch[] = [];
  let file: FilePatch | undefined;
  let hunk: Hunk | undefined;
  let oldLeft = 0;
  let newLeft = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('diff --git ')) {
      file = { oldPath: undefined, newPath: undefined, binary: false, hunks: [] };
      const paths = /^diff --git a\/(.*) b\/(.*)$/.exec(line);
      if (paths && paths[1] === paths[2]) {
        file.oldPath = paths[1];
        file.newPath = paths[2];
      }
      files.push(file);
      hunk = undefined;
      continue;
    }
    if (!file) continue;
    const header = HUNK_HEADER.exec(line);
    if (header) {
      hunk = {
        oldStart: Number(header[1]),
        oldLines: header[2] === undefined ? 1 : Number(header[2]),
        newStart: Number(header[3]),
        newLines: header[4] === undefined ? 1 : Number(header[4]),
        section: (header[5] ?? '').trim(),
        lines: [],
      };
      oldLeft = hunk.oldLines;
      newLeft = hunk.newLines;
      file.hunks.push(hunk);
      continue;
    }
    if (hunk && (oldLeft > 0 || newLeft > 0) && (line.startsWith('+') || line.startsWith('-') || line.startsWith(' ') || line === '')) {
      // Some tools strip the space of an empty context line; count it as context.
      const entry = line === '' ? ' ' : line;
      if (entry.startsWith('+')) newLeft--;
      else if (entry.startsWith('-')) oldLeft--;
      else {
        oldLeft--;
        newLeft--;
      }
      hunk.lines.push(entry);
      continue;
    }
    if (hunk && line.startsWith('\\')) {
      hunk.lines.push(line);
      continue;
    }
    hunk = undefined;
    if (line.startsWith('--- ')) file.oldPath = line === '--- /dev/null' ? undefined : stripPrefix(line.slice(4), 'a/');
    else if (line.startsWith('+++ ')) file.newPath = line === '+++ /dev/null' ? undefined : stripPrefix(line.slice(4), 'b/');
    else if (line.startsWith('rename from ')) file.oldPath = line.slice('rename from '.length);
    else if (line.startsWith('rename to ')) file.newPath = line.slice('rename to '.length);
    else if (line.startsWith('new file mode')) file.oldPath = undefined;
    else if (line.startsWith('deleted file mode')) file.newPath = undefined;
    else if (line.startsWith('Binary files ') || line === 'GIT binary patch') file.binary = true;
  }
  return files;
}

function stripPrefix(path: string, prefix: string): string {
  const unquoted = path.startsWith('"') && path.endsWith('"') ? path.slice(1, -1).replace(/\\(["\\])/g, '$1') : path;
  return unquoted.startsWith(prefix) ? unquoted.slice(prefix.length) : unquoted;
}

/** `@@ -1,3 +1,4 @@ section` for a hunk. */
export function hunkHeader(hunk: Hunk): string {
  return `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@${hunk.section ? ` ${hunk.section}` : ''}`;
}

/** The path a file patch is known by: the new path, or the old one for a deletion. */
export function patchPath(file: FilePatch): string {
  return file.newPath ?? file.oldPath ?? '';
}
