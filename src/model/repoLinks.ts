/**
 * Parsing of instance links such as `/github.com/org/repo@rev/-/blob/src/a.ts?L10-20`, the shape
 * of source links and of the links inside answers.
 */

export interface ParsedRepoLink {
  repoName: string;
  revision?: string;
  /** File or directory path inside the repository; absent for the repository itself. */
  path?: string;
  target: 'repository' | 'file' | 'directory' | 'other';
  /** 1-based, inclusive. */
  startLine?: number;
  endLine?: number;
}

/**
 * Parses a link relative to the instance (or absolute on it). `instanceUrl`, when given, lets a
 * path prefix be stripped and rejects absolute links to other hosts.
 */
export function parseRepoLink(link: string, instanceUrl?: string): ParsedRepoLink | undefined {
  let url: URL;
  try {
    url = new URL(link, instanceUrl ? `${instanceUrl}/` : 'https://instance.invalid/');
  } catch {
    return undefined;
  }
  let pathname = url.pathname;
  if (instanceUrl) {
    const base = new URL(`${instanceUrl}/`);
    if (url.origin !== base.origin) {
      return undefined;
    }
    const prefix = base.pathname.replace(/\/$/, '');
    if (prefix && pathname.startsWith(`${prefix}/`)) {
      pathname = pathname.slice(prefix.length);
    }
  }
  const [repoPart, rest] = splitOnce(pathname.replace(/^\/+/, ''), '/-/');
  if (!repoPart || repoPart.startsWith('.') || repoPart.startsWith('-/')) {
    return undefined;
  }
  const [repoName, revision] = splitOnce(safeDecode(repoPart.replace(/\/+$/, '')), '@');
  if (!repoName) {
    return undefined;
  }
  const parsed: ParsedRepoLink = { repoName, target: 'repository' };
  if (revision) {
    parsed.revision = revision;
  }
  if (rest !== undefined) {
    const [view, filePath] = splitOnce(rest, '/');
    parsed.target = view === 'blob' ? 'file' : view === 'tree' ? 'directory' : 'other';
    if (filePath && (view === 'blob' || view === 'tree')) {
      parsed.path = safeDecode(filePath.replace(/\/+$/, ''));
    }
  }
  Object.assign(parsed, lineRange(url));
  return parsed;
}

/** `?L10`, `?L10-20`, `?L10:3-20:5` or the same after `#`. */
function lineRange(url: URL): { startLine?: number; endLine?: number } {
  const candidates = [...url.searchParams.keys(), url.search.slice(1), url.hash.slice(1)];
  for (const candidate of candidates) {
    const match = /^L(\d+)(?::\d+)?(?:-L?(\d+)(?::\d+)?)?$/.exec(candidate);
    if (match) {
      const startLine = Number(match[1]);
      const endLine = match[2] ? Number(match[2]) : startLine;
      return { startLine, endLine: Math.max(startLine, endLine) };
    }
  }
  return {};
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const index = text.indexOf(separator);
  return index < 0 ? [text, undefined] : [text.slice(0, index), text.slice(index + separator.length)];
}

/** A URL component decoded, or as it is when it is not valid percent-encoding. */
export function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
