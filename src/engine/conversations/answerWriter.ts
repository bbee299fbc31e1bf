/**
 * Writes what the answerer found as a Deep Search answer: a Markdown explanation with quoted code and
 * absolute links into the instance, a short title and follow-up suggestions. Pure functions.
 */
import { markdownFence } from '../../contract/markdownFence';
import type { ServedRepository } from '../repos';
import { plural } from '../plural';

/** A file the search found, as the answer describes it. */
export interface FoundFile {
  repo: ServedRepository;
  path: string;
  /** Matching lines per term, labelled with the question's word each term stands for. */
  termHits: Map<string, number>;
  /** Its best line, linked to when the file is only listed. */
  line?: number;
}

export interface LineWindow {
  /** 1-based, inclusive. */
  start: number;
  end: number;
}

export interface ReadExcerpt {
  file: FoundFile;
  windows: LineWindow[];
  /** The whole file, split into lines. */
  fileLines: string[];
}

export interface Findings {
  terms: string[];
  searched: ServedRepository[];
  excerpts: ReadExcerpt[];
  /** Ranked files after the excerpts, listed without quoting. */
  otherFiles: FoundFile[];
  totalFiles: number;
  /** Repository-level problems to mention, e.g. "github.com/x has no commits yet". */
  notes: string[];
  instanceUrl: string;
}

export interface Definition {
  name: string;
  file: FoundFile;
  line: number;
}

const MAX_TITLE_LENGTH = 60;
const MAX_EXCERPT_LINE_LENGTH = 240;
const DECLARATION =
  /\b(?:function|class|interface|type|enum|struct|trait|def|func|fn|const|let|var|val)\s+\*?\s*([A-Za-z_$][A-Za-z0-9_$]*)/g;

const LANGUAGES: Record<string, string> = {
  ts: 'typescript', tsx: 'tsx', mts: 'typescript', cts: 'typescript', js: 'javascript', jsx: 'jsx', mjs: 'javascript',
  cjs: 'javascript', py: 'python', go: 'go', rs: 'rust', java: 'java', kt: 'kotlin', swift: 'swift', rb: 'ruby',
  php: 'php', cs: 'csharp', c: 'c', h: 'c', cc: 'cpp', cpp: 'cpp', hpp: 'cpp', m: 'objectivec', scala: 'scala',
  sh: 'bash', bash: 'bash', zsh: 'bash', ps1: 'powershell', sql: 'sql', md: 'markdown', json: 'json', yml: 'yaml',
  yaml: 'yaml', toml: 'toml', xml: 'xml', html: 'html', css: 'css', scss: 'scss', vue: 'vue', svelte: 'svelte',
  dart: 'dart', lua: 'lua', r: 'r', ex: 'elixir', exs: 'elixir', erl: 'erlang', hs: 'haskell', graphql: 'graphql',
  proto: 'protobuf', dockerfile: 'dockerfile', makefile: 'makefile',
};

/** Fence language for a path, from its extension (or its name for `Dockerfile`, `Makefile`). */
export function languageOf(filePath: string): string {
  const name = filePath.slice(filePath.lastIndexOf('/') + 1).toLowerCase();
  const extension = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1) : name;
  return LANGUAGES[extension] ?? '';
}

/** `<instance>/<repo>/-/blob/<path>?L<a>-<b>`, every path segment percent-encoded. */
export function blobUrl(instanceUrl: string, repoName: string, filePath: string, window?: LineWindow): string {
  const encode = (value: string): string => value.split('/').map(encodeURIComponent).join('/');
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

/** Identifiers declared on the quoted lines (`function x`, `class X`, `def x`…), in ranking order. */
export function findDefinitions(excerpts: readonly ReadExcerpt[]): Definition[] {
  const definitions: Definition[] = [];
  const seen = new Set<string>();
  for (const excerpt of excerpts) {
    for (const window of excerpt.windows) {
      for (let line = window.start; line <= window.end; line++) {
        for (const declared of (excerpt.fileLines[line - 1] ?? '').matchAll(DECLARATION)) {
          const name = declared[1] ?? '';
          if (name.length < 3 || seen.has(name)) continue;
          seen.add(name);
          definitions.push({ name, file: excerpt.file, line });
        }
      }
    }
  }
  return definitions;
}

/** Up to three follow-ups about what was found: where definitions are used, what the top file does. */
export function suggestFollowups(findings: Findings): string[] {
  if (findings.excerpts.length === 0) return [];
  const lowerTerms = new Set(findings.terms.map((term) => term.toLowerCase()));
  const definitions = findDefinitions(findings.excerpts);
  const preferred = [
    ...definitions.filter((definition) => lowerTerms.has(definition.name.toLowerCase())),
    ...definitions.filter((definition) => !lowerTerms.has(definition.name.toLowerCase())),
  ];
  const followups = preferred.slice(0, 2).map((definition) => `Where is \`${definition.name}\` used?`);
  const top = findings.excerpts[0];
  if (top) followups.push(`What does \`${top.file.path}\` do?`);
  if (followups.length < 3 && findings.terms[0]) followups.push(`How is \`${findings.terms[0]}\` tested?`);
  return followups.slice(0, 3);
}

/** The Markdown answer. */
export function writeAnswer(findings: Findings): string {
  const searched = describeRepositories(findings.searched);
  const termList = findings.terms.map(inlineCode).join(', ');
  const parts: string[] = [];
  if (findings.terms.length === 0) {
    parts.push(
      'I could not find anything to search for in this question: it has no names or distinctive words. ' +
        'Ask again with the identifier, file name or error message you are interested in, for example ' +
        '"Where is `parseConfig` defined?".',
    );
    return withNotes(parts, findings.notes);
  }
  if (findings.totalFiles === 0) {
    parts.push(
      `I searched ${searched} for ${termList} and no file at HEAD mentions any of them. ` +
        'Try other terms: the exact name of a function, type or setting in backticks, a file name, ' +
        'or a phrase from an error message.',
    );
    return withNotes(parts, findings.notes);
  }

  const fileCount = plural(findings.totalFiles, 'file');
  parts.push(`I searched ${searched} for ${termList} and found matches in ${fileCount}. The most relevant:`);
  const definitions = findDefinitions(findings.excerpts).filter((definition) =>
    findings.terms.some((term) => term.toLowerCase() === definition.name.toLowerCase()),
  );
  if (definitions.length > 0) {
    const listed = definitions.map((definition) => {
      const link = blobUrl(findings.instanceUrl, definition.file.repo.name, definition.file.path, {
        start: definition.line,
        end: definition.line,
      });
      return `${inlineCode(definition.name)} is declared in [${definition.file.path}:${definition.line}](${link})`;
    });
    parts.push(`${listed.join('; ')}.`);
  }
  findings.excerpts.forEach((excerpt, index) => parts.push(describeExcerpt(excerpt, index + 1, findings.instanceUrl)));
  if (findings.otherFiles.length > 0) {
    const others = findings.otherFiles.map((file) => {
      const window = file.line !== undefined ? { start: file.line, end: file.line } : undefined;
      const link = blobUrl(findings.instanceUrl, file.repo.name, file.path, window);
      return `- [${escapeLinkText(file.path)}](${link}) in ${file.repo.name}: ${describeHits(file)}`;
    });
    parts.push(`Other files that mention these terms:\n\n${others.join('\n')}`);
  }
  const hidden = findings.totalFiles - findings.excerpts.length - findings.otherFiles.length;
  if (hidden > 0) parts.push(`${plural(hidden, 'more file')} also match; ask about a narrower term to see them.`);
  return withNotes(parts, findings.notes);
}

function describeExcerpt(excerpt: ReadExcerpt, rank: number, instanceUrl: string): string {
  const { file } = excerpt;
  const header = `### ${rank}. ${inlineCode(file.path)} in ${file.repo.name}`;
  const summary = `It mentions ${describeHits(file)}.`;
  const blocks = excerpt.windows.map((window) => {
    const link = blobUrl(instanceUrl, file.repo.name, file.path, window);
    const code = excerpt.fileLines.slice(window.start - 1, window.end).map(clipLine).join('\n');
    const fence = markdownFence(code);
    return `[Lines ${window.start}–${window.end}](${link}):\n\n${fence}${languageOf(file.path)}\n${code}\n${fence}`;
  });
  return [header, summary, ...blocks].join('\n\n');
}

function describeHits(file: FoundFile): string {
  return [...file.termHits.entries()]
    .map(([term, lines]) => `${inlineCode(term)} (${plural(lines, 'line')})`)
    .join(', ');
}

function describeRepositories(repositories: readonly ServedRepository[]): string {
  if (repositories.length === 1) return repositories[0]?.name ?? '1 repository';
  return `${plural(repositories.length, 'repository', 'repositories')} (${repositories.map((repo) => repo.name).join(', ')})`;
}

function withNotes(parts: string[], notes: readonly string[]): string {
  if (notes.length > 0) parts.push(`Note: ${notes.join('; ')}.`);
  return parts.join('\n\n');
}

function inlineCode(text: string): string {
  const longestRun = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const ticks = '`'.repeat(longestRun + 1);
  return longestRun > 0 ? `${ticks} ${text} ${ticks}` : `${ticks}${text}${ticks}`;
}

function escapeLinkText(text: string): string {
  return text.replace(/([\\[\]*_`<>])/g, '\\$1');
}

function clipLine(line: string): string {
  return line.length > MAX_EXCERPT_LINE_LENGTH ? `${line.slice(0, MAX_EXCERPT_LINE_LENGTH)} …` : line;
}
