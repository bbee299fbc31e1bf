/**
 * Citations that are real: every link of an answer into a file of the instance, in any form the
 * panel makes a link of (`markdownLinks.ts`) and under any spelling of the instance's address
 * (`instanceLinks.ts`), must name a file that exists at the answered revision, with lines inside
 * it; when the link introduces a quote (a fenced block right after it), the cited lines must hold
 * the whole quote (`quotes.ts`). A link that does not is moved to where the quoted code is (in its
 * file, else in the repository), or made plain text; a link that holds is written the way the
 * engine writes links, with the repository's canonical name and the normalised path. The answer
 * says how many links were moved or removed. For answers written by a model (issue 24): the
 * engine's own answers link only what they read. Reads go through the caller (`CitationReader`):
 * this module knows Markdown and lines, not git.
 */
import { InstanceAddress, type FileLink, type LineRange } from './instanceLinks';
import { markdownLinks, type MarkdownLink } from './markdownLinks';
import { distinctiveLine, fileText, findQuote, quoteParts, type FileText } from './quotes';

/** A file as the engine serves it: its repository's canonical name and its normalised path. */
export interface CitedFile {
  repo: string;
  path: string;
  lines: readonly string[];
}

export interface CitationReader {
  /** The file at the answered revision (or `revision`), or undefined when it cannot be read there. */
  file(repo: string, path: string, revision?: string): Promise<CitedFile | undefined>;
  /** Where a line of code is in the repository (the first file and line holding it), if anywhere. */
  find(repo: string, text: string, revision?: string): Promise<{ path: string; line: number } | undefined>;
}

export interface CheckedCitations {
  markdown: string;
  checked: number;
  repaired: number;
  removed: number;
}

/** Links checked per answer at most (links into files past them are made text, and said so). */
const MAX_LINKS = 200;
/** Characters of an answer read at most. */
const MAX_ANSWER_CHARS = 1024 * 1024;
/** A quote's characters read at most. */
const MAX_QUOTE_CHARS = 64 * 1024;

type Verdict = { kind: 'kept'; url: string } | { kind: 'moved'; url: string } | { kind: 'removed' };

/** The answer with every file link checked, repaired or made text, and a note when any was. */
export async function checkCitations(markdown: string, instanceUrl: string, reader: CitationReader): Promise<CheckedCitations> {
  const text = markdown.slice(0, MAX_ANSWER_CHARS).replace(/\r\n?/g, '\n');
  const instance = new InstanceAddress(instanceUrl);
  const scan = markdownLinks(text);
  if ('unreadable' in scan) return shownAsText(text, scan.unreadable);
  const check = new CitationCheck(text, instance, reader);
  const result = await check.run(scan.links);
  // The rewritten answer read again: a link into a file that this check did not write or keep is one it could not place.
  const again = result === text ? scan : markdownLinks(result);
  if ('unreadable' in again) return shownAsText(text, again.unreadable);
  if (again.links.some((link) => instance.fileLink(link.href) !== undefined && !check.approved.has(link.href)))
    return shownAsText(text, 'some of its links could not be told apart from the text around them');
  const { checked, repaired, removed, unchecked } = check;
  const notes: string[] = [];
  if (repaired > 0)
    notes.push(
      `${repaired === 1 ? 'one link' : `${repaired} links`} pointed at lines that do not hold what was cited and now ${repaired === 1 ? 'points' : 'point'} where the code is`,
    );
  if (removed > 0)
    notes.push(`${removed === 1 ? 'one link' : `${removed} links`} named a file or lines that do not exist and ${removed === 1 ? 'was' : 'were'} removed`);
  if (unchecked > 0)
    notes.push(
      `${unchecked === 1 ? 'one link' : `${unchecked} links`} past the first ${MAX_LINKS} could not be checked and ${unchecked === 1 ? 'was' : 'were'} made text`,
    );
  const note = notes.length > 0 ? `\n\n_Citations checked: ${notes.join('; ')}._` : '';
  return { markdown: result + note, checked, repaired, removed: removed + unchecked };
}

/** The answer as one block of text, when its links cannot be checked: then none of them is live. */
function shownAsText(text: string, why: string): CheckedCitations {
  let longest = 0;
  for (const run of text.matchAll(/`+/g)) longest = Math.max(longest, run[0].length);
  const fence = '`'.repeat(Math.max(3, longest + 1));
  const note = `_Citations could not be checked: ${why}, so the answer is shown as text._`;
  return { markdown: `${note}\n\n${fence}text\n${text}\n${fence}`, checked: 0, repaired: 0, removed: 0 };
}

class CitationCheck {
  /** Destinations of the links kept or written, as marked reads them. */
  readonly approved = new Set<string>();
  checked = 0;
  repaired = 0;
  removed = 0;
  unchecked = 0;
  private readonly texts = new WeakMap<readonly string[], FileText>();

  constructor(
    private readonly text: string,
    private readonly instance: InstanceAddress,
    private readonly reader: CitationReader,
  ) {}

  async run(links: readonly MarkdownLink[]): Promise<string> {
    let result = '';
    let at = 0;
    for (const [index, link] of links.entries()) {
      const target = this.instance.fileLink(link.href);
      if (target === undefined) continue;
      const counted = link.form !== 'definition';
      let verdict: Verdict;
      if (this.checked >= MAX_LINKS) {
        verdict = { kind: 'removed' };
        if (counted) this.unchecked++;
      } else {
        this.checked++;
        verdict = await this.verdict(target, this.quoteAfter(link, links[index + 1]));
        if (counted && verdict.kind === 'moved') this.repaired++;
        if (counted && verdict.kind === 'removed') this.removed++;
      }
      const replacement = this.replacement(link, verdict);
      if (replacement === undefined) {
        this.approved.add(link.href);
        continue;
      }
      // A link inside a label that was rewritten whole stays as the label has it (and the answer is read again below).
      if (link.start < at) continue;
      if (verdict.kind !== 'removed') this.approved.add(verdict.url);
      result += this.text.slice(at, link.start) + replacement;
      at = link.end;
    }
    return at === 0 ? this.text : result + this.text.slice(at);
  }

  private async verdict(target: FileLink | 'unreadable', quote: readonly string[] | undefined): Promise<Verdict> {
    if (target === 'unreadable') return { kind: 'removed' };
    const { revision, range } = target;
    const file = await this.reader.file(target.repo, target.path, revision);
    const parts = quote ? quoteParts(quote) : [];
    const at = (found: CitedFile, lines?: LineRange): string =>
      this.instance.fileUrl({ repo: found.repo, ...(revision !== undefined ? { revision } : {}), path: found.path, ...(lines ? { range: lines } : {}) });
    if (parts.length === 0) {
      if (!file) return { kind: 'removed' };
      const count = file.lines.length;
      if (!range || (range.start >= 1 && range.start <= range.end && range.end <= count)) return { kind: 'kept', url: at(file, range) };
      if (count === 0) return { kind: 'removed' };
      // Nothing quoted to find: a range outside the file is brought back inside it.
      const start = Math.min(Math.max(1, range.start), count);
      return { kind: 'moved', url: at(file, { start, end: Math.min(count, Math.max(start, range.end)) }) };
    }
    if (file) {
      const lines = this.fileText(file);
      if (findQuote(lines, parts, range)) return { kind: 'kept', url: at(file, range) };
      const span = findQuote(lines, parts);
      if (span) return { kind: 'moved', url: at(file, span) };
    }
    const key = quote ? distinctiveLine(quote) : undefined;
    const found = key === undefined ? undefined : await this.reader.find(target.repo, key, revision);
    const other = found ? await this.reader.file(target.repo, found.path, revision) : undefined;
    const span = other ? findQuote(this.fileText(other), parts) : undefined;
    return other && span ? { kind: 'moved', url: at(other, span) } : { kind: 'removed' };
  }

  private fileText(file: CitedFile): FileText {
    let text = this.texts.get(file.lines);
    if (!text) {
      text = fileText(file.lines);
      this.texts.set(file.lines, text);
    }
    return text;
  }

  /** What the link becomes, or undefined when it stays as written. */
  private replacement(link: MarkdownLink, verdict: Verdict): string | undefined {
    if (verdict.kind === 'removed') {
      if (link.form === 'definition') return '';
      if (link.form === 'html') return this.text.charAt(link.start - 1) === '"' || this.text.charAt(link.start - 1) === "'" ? '' : '""';
      return unlinked(link.label);
    }
    const { url } = verdict;
    // A reference kept points at its definition, which is checked (and written) on its own.
    if (verdict.kind === 'kept' && (url === link.href || link.form === 'reference')) return undefined;
    const title = link.title !== undefined ? ` "${link.title.replace(/["\\]/g, (char) => `\\${char}`)}"` : '';
    switch (link.form) {
      case 'inline':
      case 'reference':
        return `[${link.label}](${url}${title})`;
      case 'image':
        return `![${link.label}](${url}${title})`;
      case 'autolink':
        return `<${url}>`;
      case 'url':
        return url;
      case 'definition':
        return `[${link.tag ?? ''}]: ${url}${title}`;
      case 'html':
        return url.replace(/["'<>]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
    }
  }

  /**
   * The fenced block that starts within the link's next two lines (after a `:`), if any: the link
   * introduces it only when it is the last link on its line.
   */
  private quoteAfter(link: MarkdownLink, next: MarkdownLink | undefined): string[] | undefined {
    if (link.form === 'definition' || link.form === 'html') return undefined;
    const { text } = this;
    const rest = text.slice(link.end, link.end + 400).indexOf('\n');
    const lineEnd = link.end + rest;
    if (rest < 0 || (next && next.start < lineEnd)) return undefined;
    const open = /^\n(?:[ \t]*\n)?[ \t]*(`{3,}|~{3,})[^\n]*\n/.exec(text.slice(lineEnd, lineEnd + 400));
    if (!open?.[1]) return undefined;
    const fence = open[1];
    const bodyStart = lineEnd + open[0].length;
    const window = text.slice(bodyStart - 1, bodyStart + MAX_QUOTE_CHARS);
    // The closing fence may be indented as the opening one is (in a list item).
    const close = new RegExp(`\\n[ \\t]*${fence.charAt(0)}{${fence.length},}[ \\t]*(?:\\n|$)`).exec(window);
    return window.slice(1, close ? close.index : window.length).split('\n');
  }
}

/**
 * A link's text without the link: what would make it a link again is escaped outside code spans
 * (`://` and `www.` of an address, `<` of an autolink), so that it reads the same.
 */
function unlinked(source: string): string {
  const escape = (part: string): string =>
    part.replace(/:\/\/|www\.|</gi, (match) => (match === '<' ? '\\<' : match === '://' ? ':\\/\\/' : `${match.slice(0, 3)}\\.`));
  if (source.length > 2_000 || !source.includes('`')) return escape(source);
  return source.replace(/(`+)[\s\S]*?\1(?!`)|[^`]+|`+/g, (part) => (part.startsWith('`') ? part : escape(part)));
}
