/**
 * An answer's citations: its links to a file and lines of a repository (either API generation, the
 * engine's and an instance's URL forms, revision kept), numbered in the order they first appear.
 * Two links to the same lines of the same file at the same revision are one citation. Pure: the
 * panel numbers the links it renders, the Markdown export the links it writes.
 */
import { parseRepoLink, safeDecode } from '../model/repoLinks';

export interface Citation {
  /** 1-based, in order of first appearance. */
  number: number;
  /** The link as the answer wrote it (what a click opens). */
  href: string;
  repoName: string;
  revision?: string;
  path: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
}

/** More citations than this in one answer are left as plain links. */
export const MAX_CITATIONS = 200;

/**
 * The form most answers' links have, read without building URLs: `/<repo>[@<rev>]/-/blob/<path>?L<a>[-<b>]`
 * (or `#L…`), columns allowed and nothing else after the range.
 */
const RELATIVE_BLOB = /^\/([^?#@]+?)(?:@([^/?#]+))?\/-\/blob\/([^?#]+)[?#]L(\d{1,9})(?::\d+)?(?:-L?(\d{1,9})(?::\d+)?)?$/;

/**
 * The file and lines `href` cites, or undefined for any other link. Relative links are read against
 * the instance; an absolute one must be on the instance (`instanceUrl`) to count.
 */
export function citedLines(href: string, instanceUrl: string | undefined): Omit<Citation, 'number' | 'href'> | undefined {
  // Most links of an answer are no citation: told apart without parsing them (an answer holds thousands).
  if (href.length > 4_000 || !href.includes('/-/blob/') || !/[?#&]L\d/.test(href)) return undefined;
  const relative = href.startsWith('/') && !href.startsWith('//');
  const fast = relative ? RELATIVE_BLOB.exec(href) : null;
  if (fast) {
    const repoName = safeDecode(fast[1]);
    const path = safeDecode(fast[3]);
    const startLine = Number(fast[4]);
    if (repoName && path && !repoName.startsWith('.')) {
      return {
        repoName,
        revision: fast[2] ? safeDecode(fast[2]) : undefined,
        path,
        startLine,
        endLine: Math.max(startLine, fast[5] ? Number(fast[5]) : startLine),
      };
    }
  }
  if (!relative && !instanceUrl) return undefined;
  const parsed = parseRepoLink(href, relative ? undefined : instanceUrl);
  if (parsed?.target !== 'file' || !parsed.path || parsed.startLine === undefined) return undefined;
  const { repoName, revision, path, startLine } = parsed;
  return { repoName, revision, path, startLine, endLine: parsed.endLine ?? startLine };
}

/** Numbers citations as links are met: the same file, revision and lines keep their first number. */
export class CitationNumbers {
  private readonly byKey = new Map<string, Citation>();
  readonly list: Citation[] = [];

  constructor(private readonly instanceUrl: string | undefined) {}

  /** The citation `href` is (numbered now if it is new), or undefined when it cites no lines. */
  add(href: string): Citation | undefined {
    const cited = citedLines(href.trim(), this.instanceUrl);
    if (!cited) return undefined;
    const key = `${cited.repoName}\n${cited.revision ?? ''}\n${cited.path}\n${cited.startLine}\n${cited.endLine}`;
    const known = this.byKey.get(key);
    if (known) return known;
    if (this.list.length >= MAX_CITATIONS) return undefined;
    const citation: Citation = { number: this.list.length + 1, href: href.trim(), ...cited };
    this.byKey.set(key, citation);
    this.list.push(citation);
    return citation;
  }
}

/** `path:10` or `path:10–20`: how a citation names its lines. */
export function citationLabel(citation: Pick<Citation, 'path' | 'startLine' | 'endLine'>): string {
  const lines = citation.endLine > citation.startLine ? `${citation.startLine}–${citation.endLine}` : `${citation.startLine}`;
  return `${citation.path}:${lines}`;
}
