/**
 * Writes what the answerer found as a Deep Search answer: the first sentence says what answers and
 * where (the definition, linked); its relevant span is quoted; then how it is reached (callers), the
 * other code that matters, and tests and docs as "see also". Links are absolute links into the
 * instance. No keyword counts: an answer says what the code is, not how often a word occurs. Pure.
 */
import { markdownFence } from '../../contract/markdownFence';
import type { Definition } from '../code/definitions';
import { plural } from '../messages/plural';
import type { ServedRepository } from '../git/repos';
import { squashName, type QuestionAnalysis } from '../repo/question';
import { documentationSentence } from './docSentence';
import type { Reach, Use } from './reach';
import type { AnswerSpan, ReadFile } from '../repo/retrieval';
import { codeOf } from '../repo/spanRanking';

interface LineWindow {
  /** 1-based, inclusive. */
  start: number;
  end: number;
}

/** What the answer is written from. */
export interface Findings {
  question: QuestionAnalysis;
  searched: readonly ServedRepository[];
  /** The span that answers, and the spans of other files worth quoting after it. */
  lead?: AnswerSpan;
  also: AnswerSpan[];
  /** When the lead is not clearly ahead: the next guesses, named with their signature and one line. */
  candidates: AnswerSpan[];
  reach?: Reach;
  /** Tests, examples and docs among the files read (see also). */
  related: ReadFile[];
  /** Names defined in the files read (follow-ups prefer them). */
  knownNames: ReadonlySet<string>;
  /** Files holding some of the question's terms. */
  totalFiles: number;
  /** Repository-level problems to mention, e.g. "github.com/x has no commits yet". */
  notes: string[];
  instanceUrl: string;
}

/** Lines quoted whole; a longer definition is quoted as its signature and its densest lines. */
const WHOLE_SPAN_LINES = 60;
const SIGNATURE_LINES = 3;
/** Lines between two quoted windows that are quoted too rather than left out. */
const WINDOW_GAP = 6;
const WINDOW_BEFORE = 6;
const WINDOW_AFTER = 14;
const ALSO_WINDOW_BEFORE = 3;
const ALSO_WINDOW_AFTER = 8;
const MAX_TITLE_LENGTH = 60;
const MAX_QUOTED_LINE_LENGTH = 240;
const MAX_INLINE_LINE = 120;

const LANGUAGES: Record<string, string> = {
  ts: 'typescript',
  tsx: 'tsx',
  mts: 'typescript',
  cts: 'typescript',
  js: 'javascript',
  jsx: 'jsx',
  mjs: 'javascript',
  cjs: 'javascript',
  py: 'python',
  go: 'go',
  rs: 'rust',
  java: 'java',
  kt: 'kotlin',
  swift: 'swift',
  rb: 'ruby',
  php: 'php',
  cs: 'csharp',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  hpp: 'cpp',
  m: 'objectivec',
  scala: 'scala',
  sh: 'bash',
  bash: 'bash',
  zsh: 'bash',
  ps1: 'powershell',
  sql: 'sql',
  md: 'markdown',
  json: 'json',
  yml: 'yaml',
  yaml: 'yaml',
  toml: 'toml',
  xml: 'xml',
  html: 'html',
  css: 'css',
  scss: 'scss',
  vue: 'vue',
  svelte: 'svelte',
  dart: 'dart',
  lua: 'lua',
  r: 'r',
  ex: 'elixir',
  exs: 'elixir',
  erl: 'erlang',
  hs: 'haskell',
  graphql: 'graphql',
  proto: 'protobuf',
  dockerfile: 'dockerfile',
  makefile: 'makefile',
};

/** Fence language for a path, from its extension (or its name for `Dockerfile`, `Makefile`). */
export function languageOf(filePath: string): string {
  const name = filePath.slice(filePath.lastIndexOf('/') + 1).toLowerCase();
  const extension = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1) : name;
  return LANGUAGES[extension] ?? '';
}

/** `<instance>/<repo>/-/blob/<path>?L<a>-<b>`, every path segment percent-encoded. */
export function blobUrl(instanceUrl: string, repoName: string, filePath: string, window?: LineWindow): string {
  // Parentheses too: a `)` in a path would end the Markdown link.
  const encode = (value: string): string =>
    value
      .split('/')
      .map((part) => encodeURIComponent(part).replace(/[()]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`))
      .join('/');
  const range = window ? `?L${window.start}-${window.end}` : '';
  return `${instanceUrl}/${encode(repoName)}/-/blob/${encode(filePath)}${range}`;
}

/** The first line of the question without code or trailing punctuation, cut at a word near 60 characters. */
export function titleFor(question: string): string {
  const firstLine = question
    .replace(/```[\s\S]*?(```|$)/g, ' ')
    .replace(/`/g, '')
    .split('\n')
    .map((line) => line.trim())
    .find((line) => line !== '');
  const text = (firstLine ?? 'Code question').replace(/\s+/g, ' ').replace(/[?.!:;,\s]+$/, '');
  const capitalised = text.charAt(0).toUpperCase() + text.slice(1);
  if (capitalised.length <= MAX_TITLE_LENGTH) return capitalised || 'Code question';
  const cut = capitalised.slice(0, MAX_TITLE_LENGTH);
  const lastSpace = cut.lastIndexOf(' ');
  return `${(lastSpace > 20 ? cut.slice(0, lastSpace) : cut).replace(/[?.!:;,\s]+$/, '')}…`;
}

/** A definition as the answer names it: `res.cookie`, `HTTPAdapter.send`, `parseConfig`. */
function qualifiedName(definition: Definition): string {
  return definition.container ? `${definition.container}.${definition.name}` : definition.name;
}

/** The Markdown answer. */
export function writeAnswer(findings: Findings): string {
  const searched = describeRepositories(findings.searched);
  const parts: string[] = [];
  if (findings.question.terms.length === 0) {
    parts.push(
      'I could not find anything to search for in this question: it has no names or distinctive words. ' +
        'Ask again with the identifier, file name or error message you are interested in, for example ' +
        '"Where is `parseConfig` defined?".',
    );
    return withNotes(parts, findings.notes);
  }
  const { lead } = findings;
  if (findings.totalFiles === 0 || !lead) {
    parts.push(
      `I searched ${searched} for ${findings.question.shown.map(inlineCode).join(', ')} and no file at HEAD mentions ${findings.question.shown.length === 1 ? 'it' : 'any of them'}. ` +
        'Try other terms: the exact name of a function, type or setting in backticks, a file name, ' +
        'or a phrase from an error message.',
    );
    return withNotes(parts, findings.notes);
  }
  parts.push(leadSentence(lead, findings));
  parts.push(quoteSpan(lead, findings.instanceUrl, WINDOW_BEFORE, WINDOW_AFTER, true));
  // The other code that may answer comes before how the lead is reached: a second guess matters more than the lead's callers.
  if (findings.also.length > 0 || findings.candidates.length > 0) {
    parts.push('#### Also relevant');
    findings.also.forEach((span, index) => {
      parts.push(`${spanHeading(span, findings.instanceUrl)}${describeSpan(span, findings.question)}`);
      // The first is quoted as fully as the lead (a wrapper's delegate is where its work is).
      parts.push(
        index === 0
          ? quoteSpan(span, findings.instanceUrl, WINDOW_BEFORE, WINDOW_AFTER, true)
          : quoteSpan(span, findings.instanceUrl, ALSO_WINDOW_BEFORE, ALSO_WINDOW_AFTER),
      );
    });
    if (findings.candidates.length > 0) parts.push(findings.candidates.map((span) => `- ${candidateLine(span, findings)}`).join('\n'));
  }
  const reached = describeReach(lead, findings);
  if (reached) parts.push(reached);
  const seeAlso = describeSeeAlso(lead, findings);
  if (seeAlso) parts.push(seeAlso);
  return withNotes(parts, findings.notes);
}

/** "`res.cookie` (lib/response.js:862) is the method of `res` the question names…": what answers, and where. */
function leadSentence(lead: AnswerSpan, findings: Findings): string {
  const { file, definition } = lead;
  const repo = file.target.repo.name;
  const where = `[${escapeLinkText(file.path)}:${lead.start}](${blobUrl(findings.instanceUrl, repo, file.path, { start: lead.start, end: lead.end })})`;
  const inRepo = findings.searched.length > 1 ? ` in ${repo}` : '';
  const line = file.lines[lead.bestLine - 1]?.trim() ?? '';
  const key =
    line && lead.bestLine !== definition?.nameLine
      ? ` The line that holds the most of it is [line ${lead.bestLine}](${blobUrl(findings.instanceUrl, repo, file.path, { start: lead.bestLine, end: lead.bestLine })}): ${inlineCode(clip(line, MAX_INLINE_LINE))}.`
      : '';
  if (!definition) {
    return `The closest lines are in ${where}${inRepo}, which hold ${termList(lead, findings.question)} (not inside a definition the engine could read).${key}`;
  }
  const what = `${inlineCode(qualifiedName(definition))} (${where}${inRepo})`;
  const kind = describeKind(definition);
  const verb = lead.named ? `is the ${kind} the question names` : `is the ${kind} that answers this`;
  // What it does in its own documentation's words; the question's words only where it has none.
  const documented = documentationSentence(file.lines, lead.docStart, lead.start, definition.nameLine);
  if (documented) return `${what} ${verb}. Its documentation says: “${documented}”${key}`;
  // Its own name is no news: the words it holds besides.
  const ownName = squashName(qualifiedName(definition));
  const others = { ...lead, termsHeld: lead.termsHeld.filter((term) => !ownName.includes(term.replaceAll('_', ''))) };
  const holds = others.termsHeld.length > 0 ? `: it holds ${termList(others, findings.question)}` : '';
  return `${what} ${verb}${holds}.${key}`;
}

/** A second guess on one line: its name and place, its signature, and what its documentation says (else its key line). */
function candidateLine(span: AnswerSpan, findings: Findings): string {
  const { file, definition } = span;
  const heading = spanHeading(span, findings.instanceUrl);
  if (!definition) return `${heading}: ${inlineCode(clip(file.lines[span.bestLine - 1]?.trim() ?? '', MAX_INLINE_LINE))}`;
  const signature = inlineCode(clip(file.lines[definition.nameLine - 1]?.trim() ?? definition.name, MAX_INLINE_LINE));
  const documented = documentationSentence(file.lines, span.docStart, span.start, definition.nameLine);
  if (documented) return `${heading}: ${signature}. ${documented}`;
  const key = span.bestLine !== definition.nameLine ? file.lines[span.bestLine - 1]?.trim() : undefined;
  return key ? `${heading}: ${signature}, line ${span.bestLine}: ${inlineCode(clip(key, MAX_INLINE_LINE))}` : `${heading}: ${signature}`;
}

function describeKind(definition: Definition): string {
  if (definition.kind === 'method' && definition.container) return `method of ${inlineCode(definition.container)}`;
  if (definition.kind === 'function' && definition.container) return `function of ${inlineCode(definition.container)}`;
  return definition.kind;
}

/** The words of the question a span holds, as the question writes them where it can. */
function termList(span: AnswerSpan, question: QuestionAnalysis): string {
  const words = [...new Set(span.termsHeld.map((term) => question.labels.get(term) ?? term))].slice(0, 5).map(inlineCode);
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1] ?? ''}`;
}

/** What a quoted span after the lead is: its documentation's first sentence, else the question's words it holds. */
function describeSpan(span: AnswerSpan, question: QuestionAnalysis): string {
  const documented = span.definition ? documentationSentence(span.file.lines, span.docStart, span.start, span.definition.nameLine) : undefined;
  if (documented) return `: ${documented}`;
  return span.termsHeld.length > 0 ? `: holds ${termList(span, question)}.` : '.';
}

function spanHeading(span: AnswerSpan, instanceUrl: string): string {
  const { file, definition } = span;
  const link = `[${escapeLinkText(file.path)}:${span.start}](${blobUrl(instanceUrl, file.target.repo.name, file.path, { start: span.start, end: span.end })})`;
  return definition ? `${inlineCode(qualifiedName(definition))} in ${link}` : link;
}

/**
 * The span quoted: whole when short, else its signature and the lines around its best line (and,
 * for the lead, around its next best one), each block linked.
 */
function quoteSpan(span: AnswerSpan, instanceUrl: string, before: number, after: number, secondPlace = false): string {
  const { file } = span;
  // With the comment that documents it, when it is short.
  const from = span.docStart !== undefined && span.end - span.docStart + 1 <= WHOLE_SPAN_LINES ? span.docStart : span.start;
  let windows: LineWindow[] = [];
  if (span.end - from + 1 <= WHOLE_SPAN_LINES) {
    windows.push({ start: from, end: span.end });
  } else {
    // A definition's signature (up to its name's line); a span without a definition has none.
    if (span.definition)
      windows.push({ start: span.start, end: Math.min(span.end, span.start + SIGNATURE_LINES - 1, Math.max(span.start, span.definition.nameLine)) });
    for (const line of [span.bestLine, ...(secondPlace && span.nextLine !== undefined ? [span.nextLine] : [])]) {
      windows.push({ start: Math.max(span.start, line - before), end: Math.min(span.end, line + after) });
    }
    windows = mergeWindows(windows);
  }
  return windows
    .map((window) => {
      const link = blobUrl(instanceUrl, file.target.repo.name, file.path, window);
      const code = file.lines
        .slice(window.start - 1, window.end)
        .map((line) => clip(line, MAX_QUOTED_LINE_LENGTH))
        .join('\n');
      const fence = markdownFence(code);
      return `[${escapeLinkText(file.path)}, lines ${window.start}–${window.end}](${link}):\n\n${fence}${languageOf(file.path)}\n${code}\n${fence}`;
    })
    .join('\n\n');
}

/** Windows in order, those that overlap or come within a few lines made one (the rest of a signature, say). */
function mergeWindows(windows: readonly LineWindow[]): LineWindow[] {
  const merged: LineWindow[] = [];
  for (const window of [...windows].sort((a, b) => a.start - b.start)) {
    const last = merged[merged.length - 1];
    if (last && window.start <= last.end + WINDOW_GAP) last.end = Math.max(last.end, window.end);
    else merged.push({ ...window });
  }
  return merged;
}

function describeReach(lead: AnswerSpan, findings: Findings): string | undefined {
  const { reach } = findings;
  const definition = lead.definition;
  if (!reach || !definition) return undefined;
  const repo = lead.file.target.repo.name;
  const name = inlineCode(definition.name);
  const item = (use: Use): string =>
    `- ${useLink(use, repo, findings.instanceUrl)}${use.within ? ` in ${inlineCode(qualifiedName(use.within))}` : ''}: ${inlineCode(clip(use.text, MAX_INLINE_LINE))}`;
  // Other declarations of the name (overrides, implementations) are no uses: said apart.
  const implemented =
    reach.implementations.length > 0
      ? `\n\nImplemented by (declarations of ${name} elsewhere, not uses):\n\n${reach.implementations
          .map((use) => `- ${useLink(use, repo, findings.instanceUrl)}${use.within?.container ? ` in ${inlineCode(use.within.container)}` : ''}`)
          .join('\n')}`
      : '';
  if (reach.callers.length === 0) {
    return `#### How it is reached\n\nNo other implementation file of ${repo} uses ${name}: it is reached from outside (it is part of what the code offers its users) or through a reference.${implemented}`;
  }
  return `#### How it is reached\n\n${name} is used by:\n\n${reach.callers.map(item).join('\n')}${implemented}`;
}

function describeSeeAlso(lead: AnswerSpan, findings: Findings): string | undefined {
  const repo = lead.file.target.repo.name;
  const seen = new Set<string>();
  const tests: string[] = [];
  const docs: string[] = [];
  for (const use of [...(findings.reach?.tests ?? []), ...(findings.reach?.docs ?? [])]) {
    if (seen.has(use.path)) continue;
    seen.add(use.path);
    (use.kind === 'documentation' ? docs : tests).push(`${useLink(use, repo, findings.instanceUrl)}`);
  }
  // Tests and examples the search found for the question's words (docs only where they name the lead).
  for (const file of findings.related) {
    if (seen.has(file.path) || (file.kind !== 'test' && file.kind !== 'example')) continue;
    seen.add(file.path);
    tests.push(`[${escapeLinkText(file.path)}](${blobUrl(findings.instanceUrl, file.target.repo.name, file.path)})`);
  }
  const lines: string[] = [];
  if (tests.length > 0) lines.push(`- Tests and examples: ${tests.slice(0, 4).join(', ')}`);
  if (docs.length > 0) lines.push(`- Docs: ${docs.slice(0, 3).join(', ')}`);
  if (lines.length === 0) return undefined;
  return `#### See also\n\n${lines.join('\n')}`;
}

function useLink(use: Use, repo: string, instanceUrl: string): string {
  return `[${escapeLinkText(use.path)}:${use.line}](${blobUrl(instanceUrl, repo, use.path, { start: use.line, end: use.line })})`;
}

/** Up to three follow-ups from the code: what the lead calls, who calls it, how it is tested. */
export function suggestFollowups(findings: Findings): string[] {
  const { lead } = findings;
  if (!lead) return [];
  const followups: string[] = [];
  const definition = lead.definition;
  const callee = calleeOf(lead, findings.knownNames);
  if (callee) followups.push(`What does \`${callee}\` do?`);
  const caller = findings.reach?.callers[0]?.within;
  if (caller) followups.push(`How is \`${qualifiedName(caller)}\` reached?`);
  if (definition) {
    if (findings.reach?.tests.length) followups.push(`How do the tests exercise \`${qualifiedName(definition)}\`?`);
    else if (followups.length < 3) followups.push(`What calls \`${qualifiedName(definition)}\`?`);
  } else {
    followups.push(`What does \`${lead.file.path}\` do?`);
  }
  return followups.slice(0, 3);
}

/** Characters of a line read for the names it calls. */
const MAX_CALLEE_LINE = 2_000;

const NOT_CALLEES = new Set(
  (
    'if for while switch catch return function func typeof new super this self print len str int float list dict set tuple ' +
    'isinstance require import assert sizeof make append panic string bool cap'
  ).split(' '),
);

/**
 * The name the lead calls that says most: on its key line first, then around it; one defined in the
 * files read before another; never a keyword, a name inside a string, or the lead itself.
 */
function calleeOf(lead: AnswerSpan, knownNames: ReadonlySet<string>): string | undefined {
  const lines = [lead.bestLine, ...[-1, 1, -2, 2, -3, 3].map((offset) => lead.bestLine + offset)].filter((line) => line >= lead.start && line <= lead.end);
  const found: string[] = [];
  for (const line of lines) {
    for (const match of codeOf((lead.file.lines[line - 1] ?? '').slice(0, MAX_CALLEE_LINE)).matchAll(/(?<![\w$])([A-Za-z_$][\w$]*)\s*\(/g)) {
      const name = match[1] ?? '';
      if (name.length >= 3 && !NOT_CALLEES.has(name) && name !== lead.definition?.name && !found.includes(name)) found.push(name);
    }
  }
  return found.find((name) => knownNames.has(name)) ?? found[0];
}

function describeRepositories(repositories: readonly ServedRepository[]): string {
  if (repositories.length === 1) return repositories[0]?.name ?? '1 repository';
  return `${plural(repositories.length, 'repository', 'repositories')} (${repositories.map((repo) => repo.name).join(', ')})`;
}

function withNotes(parts: string[], notes: readonly string[]): string {
  if (notes.length > 0) parts.push(`Note: ${notes.join('; ')}.`);
  return parts.join('\n\n');
}

export function inlineCode(text: string): string {
  const longestRun = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const ticks = '`'.repeat(longestRun + 1);
  return longestRun > 0 || text.startsWith('`') || text.endsWith('`') ? `${ticks} ${text} ${ticks}` : `${ticks}${text}${ticks}`;
}

/** Text inside a link's brackets: Markdown's characters escaped, line breaks and other controls a space. */
function escapeLinkText(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]/g, ' ').replace(/([\\[\]*_`<>])/g, '\\$1');
}

function clip(line: string, max: number): string {
  return line.length > max ? `${line.slice(0, max)} …` : line;
}
