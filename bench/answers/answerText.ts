/**
 * What the answer-quality figure reads out of a Markdown answer: the files it cites (the targets
 * of its links into the instance's blob views) and the code it quotes (its fenced code blocks).
 * Pure functions.
 */

/** A link of the answer into a blob view: the file and, when the link has one, its line range. */
export interface BlobLink {
  path: string;
  /** 1-based, inclusive. */
  lines?: [number, number];
}

/**
 * The answer's links into blob views, in order of appearance: targets of the form
 * `<instance>/<repo>/-/blob/<path>?L<a>-<b>` (also `#L…`, without a range, or relative to the
 * instance), the path percent-decoded. Inline links `[text](url)`, autolinks `<url>` and bare URLs count.
 */
export function blobLinks(markdown: string): BlobLink[] {
  const targets: Array<{ at: number; url: string }> = [];
  for (const match of markdown.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push({ at: match.index, url: match[1] ?? '' });
  for (const match of markdown.matchAll(/<((?:https?:\/\/|\/)[^>\s]+)>/g)) targets.push({ at: match.index, url: match[1] ?? '' });
  for (const match of markdown.matchAll(/(?<![(<\w/])(https?:\/\/[^\s)<>\]"']+)/g)) targets.push({ at: match.index, url: match[1] ?? '' });
  targets.sort((a, b) => a.at - b.at);
  return targets.flatMap(({ url }) => {
    const link = blobLink(url);
    return link ? [link] : [];
  });
}

/** The files the answer cites (the paths of its blob links), in order of first appearance, each once. */
export function citedFiles(markdown: string): string[] {
  return [...new Set(blobLinks(markdown).map((link) => link.path))];
}

/** The file and line range of a blob link, or undefined when `url` is not one. */
export function blobLink(url: string): BlobLink | undefined {
  const marker = url.indexOf('/-/blob/');
  if (marker < 0) return undefined;
  const rest = url.slice(marker + '/-/blob/'.length);
  const encoded = rest.replace(/[?#].*$/, '');
  if (encoded === '') return undefined;
  const filePath = encoded
    .split('/')
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    })
    .join('/');
  const range = /[?#&]L(\d+)(?:-L?(\d+))?/.exec(rest.slice(encoded.length));
  if (!range) return { path: filePath };
  const start = Number(range[1]);
  return { path: filePath, lines: [start, range[2] === undefined ? start : Number(range[2])] };
}

/** The contents of the fenced code blocks (``` or ~~~, any length, any indentation), in order. */
export function codeBlocks(markdown: string): string[] {
  const blocks: string[] = [];
  let open: { fence: string; lines: string[] } | undefined;
  for (const line of markdown.split(/\r?\n/)) {
    const fence = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (open) {
      if (fence && fence[0] === open.fence[0] && fence.length >= open.fence.length && line.trim() === fence) {
        blocks.push(open.lines.join('\n'));
        open = undefined;
      } else {
        open.lines.push(line);
      }
    } else if (fence) {
      open = { fence, lines: [] };
    }
  }
  // An unclosed block runs to the end of the document, as CommonMark has it.
  if (open) blocks.push(open.lines.join('\n'));
  return blocks;
}

/** The first of `lines` (whitespace-trimmed) that some code block line contains, or undefined. */
export function quotedLine(markdown: string, lines: readonly string[]): string | undefined {
  const quoted = codeBlocks(markdown).flatMap((block) => block.split('\n'));
  return lines.find((line) => quoted.some((candidate) => candidate.includes(line.trim())));
}
