/**
 * Citations that are real: every link of an answer into a file of the instance (`<instance>/<repo>/
 * -/blob/<path>?L<a>-<b>`) must name a file that exists at the answered revision, with lines inside
 * it; when the link introduces a quote (a fenced block right after it), those lines must hold the
 * quoted code. A link that does not resolve is repaired (the file and lines where the quoted code
 * is) or, when nothing holds it, made plain text; the answer says how many were. For answers written
 * by a model (issue 24): the engine's own answers link only what they read. Reads go through the
 * caller (`CitationReader`): this module knows Markdown and lines, not git.
 */
import { blobUrl } from './answerWriter';

export interface CitationReader {
  /** The file's lines at the answered revision, or undefined when it does not exist there. */
  lines(repo: string, path: string): Promise<readonly string[] | undefined>;
  /** Where a line of code is in the repository (the first file and line holding it), if anywhere. */
  find(repo: string, text: string): Promise<{ path: string; line: number } | undefined>;
}

export interface CheckedCitations {
  markdown: string;
  checked: number;
  repaired: number;
  removed: number;
}

/** Links checked per answer at most (the rest are left as they are, and said so). */
const MAX_LINKS = 200;
/** Characters of an answer read at most. */
const MAX_ANSWER_CHARS = 1024 * 1024;
/** A quote's lines compared at most. */
const MAX_QUOTE_LINES = 200;
const MIN_DISTINCTIVE = 8;

interface Link {
  /** Where `[text](url)` stands in the answer. */
  start: number;
  end: number;
  text: string;
  repo: string;
  path: string;
  range?: { start: number; end: number };
  /** The fenced block right after the link, if it introduces one. */
  quote?: string[];
}

/** The answer with every file link checked, repaired or made text, and a note when any was. */
export async function checkCitations(markdown: string, instanceUrl: string, reader: CitationReader): Promise<CheckedCitations> {
  const text = markdown.slice(0, MAX_ANSWER_CHARS);
  const links = fileLinks(text, instanceUrl).slice(0, MAX_LINKS);
  let result = '';
  let at = 0;
  let repaired = 0;
  let removed = 0;
  for (const link of links) {
    const verdict = await checkLink(link, reader);
    result += text.slice(at, link.start);
    if (verdict === 'ok') {
      result += text.slice(link.start, link.end);
    } else if (verdict === 'removed') {
      removed++;
      result += link.text;
    } else {
      repaired++;
      result += `[${link.text}](${blobUrl(instanceUrl.replace(/\/+$/, ''), link.repo, verdict.path, verdict.range)})`;
    }
    at = link.end;
  }
  result += text.slice(at);
  const notes: string[] = [];
  if (repaired > 0)
    notes.push(
      `${repaired === 1 ? 'one link' : `${repaired} links`} pointed at lines that do not hold what was cited and now ${repaired === 1 ? 'points' : 'point'} where the code is`,
    );
  if (removed > 0)
    notes.push(`${removed === 1 ? 'one link' : `${removed} links`} named a file or lines that do not exist and ${removed === 1 ? 'was' : 'were'} removed`);
  if (notes.length > 0) result += `\n\n_Citations checked: ${notes.join('; ')}._`;
  return { markdown: result, checked: links.length, repaired, removed };
}

type Verdict = 'ok' | 'removed' | { path: string; range: { start: number; end: number } };

async function checkLink(link: Link, reader: CitationReader): Promise<Verdict> {
  const lines = await reader.lines(link.repo, link.path);
  const quote = link.quote?.slice(0, MAX_QUOTE_LINES).map((line) => line.trim()) ?? [];
  const key = quote.find((line) => line.length >= MIN_DISTINCTIVE) ?? quote.find((line) => line !== '');
  if (lines && link.range === undefined)
    return key === undefined || lines.some((line) => line.trim() === key) ? 'ok' : relocate(link, lines, quote, key, reader);
  if (lines && link.range && link.range.start >= 1 && link.range.end <= lines.length && link.range.start <= link.range.end) {
    if (key === undefined) return 'ok';
    const cited = lines.slice(link.range.start - 1, link.range.end).map((line) => line.trim());
    if (cited.includes(key)) return 'ok';
  }
  return relocate(link, lines, quote, key, reader);
}

/** Where the quoted code is: in the same file, else anywhere in the repository; else the link goes. */
async function relocate(
  link: Link,
  lines: readonly string[] | undefined,
  quote: readonly string[],
  key: string | undefined,
  reader: CitationReader,
): Promise<Verdict> {
  if (key === undefined) {
    // Nothing quoted to find: a file that exists keeps its link, to its first lines when the range was outside it.
    if (!lines || lines.length === 0) return 'removed';
    const start = Math.min(Math.max(1, link.range?.start ?? 1), lines.length);
    return { path: link.path, range: { start, end: Math.min(lines.length, Math.max(start, link.range?.end ?? start)) } };
  }
  const span = Math.max(1, quote.length);
  const inFile = lines ? lines.findIndex((line) => line.trim() === key) : -1;
  if (lines && inFile >= 0) return { path: link.path, range: { start: inFile + 1, end: Math.min(lines.length, inFile + span) } };
  const found = await reader.find(link.repo, key);
  if (!found) return 'removed';
  const foundLines = await reader.lines(link.repo, found.path);
  const end = Math.min(foundLines?.length ?? found.line, found.line + span - 1);
  return { path: found.path, range: { start: found.line, end: Math.max(found.line, end) } };
}

/** The answer's links into files of the instance, in order, each with the block it introduces. */
function fileLinks(text: string, instanceUrl: string): Link[] {
  const links: Link[] = [];
  const prefix = `${instanceUrl.replace(/\/+$/, '')}/`;
  for (const match of text.matchAll(/\[([^\]\n]{0,500})\]\(([^)\s]{1,2000})\)/g)) {
    const url = match[2] ?? '';
    if (!url.startsWith(prefix)) continue;
    const parsed = parseBlobUrl(url.slice(prefix.length));
    if (!parsed) continue;
    const start = match.index;
    const end = start + match[0].length;
    links.push({ start, end, text: match[1] ?? '', ...parsed, ...quoteAfter(text, end) });
  }
  return links;
}

/** `<repo>/-/blob/<path>?L<a>-<b>` (or `#L<a>-<b>`, or no range), percent-decoded. */
function parseBlobUrl(rest: string): { repo: string; path: string; range?: { start: number; end: number } } | undefined {
  const marker = rest.indexOf('/-/blob/');
  if (marker <= 0) return undefined;
  const tail = rest.slice(marker + '/-/blob/'.length);
  const rangeAt = tail.search(/[?#]/);
  const rawPath = rangeAt >= 0 ? tail.slice(0, rangeAt) : tail;
  try {
    const repo = decodeURIComponent(rest.slice(0, marker));
    const path = rawPath.split('/').map(decodeURIComponent).join('/');
    if (path === '' || path.split('/').some((part) => part === '..' || part === '.')) return undefined;
    const range = /[?#]L(\d{1,9})(?:-L?(\d{1,9}))?/.exec(tail.slice(rangeAt >= 0 ? rangeAt : tail.length));
    if (!range) return { repo, path };
    const start = Number(range[1]);
    return { repo, path, range: { start, end: range[2] !== undefined ? Number(range[2]) : start } };
  } catch {
    return undefined;
  }
}

/** The fenced block that starts within the link's next two lines (after a `:`), if any. */
function quoteAfter(text: string, from: number): { quote?: string[] } {
  const after = text.slice(from, from + 400);
  const open = /^[^\n]*\n(?:[ \t]*\n)?[ \t]*(`{3,}|~{3,})[^\n]*\n/.exec(after);
  if (!open?.[1]) return {};
  const fence = open[1];
  const bodyStart = from + open[0].length;
  const close = text.indexOf(`\n${fence}`, bodyStart - 1);
  const body = text.slice(bodyStart, close === -1 ? Math.min(text.length, bodyStart + 64 * 1024) : close);
  return { quote: body.split('\n') };
}
