/**
 * The words of an investigation: what the model is told (its instructions, in the engine's own
 * words), how each tool call is shown as a turn ("Reading lib/response.js 730–790"), and how the
 * follow-up questions the model offers are taken out of its answer.
 */
import { blobUrl } from './answerWriter';

export function instructionsFor(repositories: readonly string[], instanceUrl: string): string {
  const example = blobUrl(instanceUrl, repositories[0] ?? 'github.com/acme/app', 'src/server.ts', { start: 40, end: 52 });
  return [
    'You are Deep Search, a code investigator. You answer questions about the code of these repositories, and only from what the tools show you:',
    ...repositories.slice(0, 50).map((name) => `- ${name}`),
    ...(repositories.length > 50 ? [`- and ${repositories.length - 50} more (list_repos finds them)`] : []),
    '',
    'How to investigate:',
    '- Search first: keyword_search for exact names and strings, nls_search for a behaviour described in words. Then read the ' +
      'files that matter with read_file, in line ranges around what the search found.',
    '- Follow the code: go_to_definition for what a line calls, find_references for who calls it; commit_search and diff_search when the question is about history.',
    '- Make each call count: do not repeat a call you made; stop searching once you have read the code that answers.',
    '',
    'How to answer, in Markdown:',
    '- Lead with the code that answers: name the function or type and its file, link it, and quote the lines that answer in a fenced code block right after the link.',
    '- Then say how that code is reached (its callers, the path from the entry point), and anything that changes the answer (conditions, options, errors).',
    `- Link files as [path:start-end](${example}), with the lines you read; quote code exactly as read_file showed it, without its line numbers.`,
    '- Do not cite a file you did not read or lines you did not see. If the code does not answer the question, say so and say what you looked at.',
    '- Be brief: a few paragraphs and the quotes that matter.',
    '- End with a line "Follow-up questions:" and at most three questions the user might ask next, one per line, each starting with "- ".',
  ].join('\n');
}

/** What the model is told when its tool-calling turns are used up. */
export const WRITE_NOW = 'You have used every investigation step. Write the answer now from what you have read, as instructed; make no more tool calls.';

/** Characters of an argument shown in a turn. */
const SHOWN = 80;

function shown(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? '');
  const line = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return line.length > SHOWN ? `${line.slice(0, SHOWN - 1)}…` : line;
}

function code(value: unknown): string {
  return `\`${shown(value).replace(/`/g, "'")}\``;
}

function inRepo(args: Record<string, unknown>): string {
  const repos: unknown = args.repos;
  const repo: unknown = typeof args.repo === 'string' ? args.repo : Array.isArray(repos) && repos.length === 1 ? repos[0] : undefined;
  return repo === undefined ? '' : ` in ${shown(repo)}`;
}

/** A tool call as the turn that shows it. */
export function describeCall(name: string, args: Record<string, unknown>): string {
  switch (name) {
    case 'keyword_search':
    case 'nls_search':
      return `Searching for ${code(args.query)}`;
    case 'read_file': {
      const from = typeof args.startLine === 'number' ? args.startLine : undefined;
      const to = typeof args.endLine === 'number' ? args.endLine : undefined;
      const lines = from !== undefined || to !== undefined ? ` ${from ?? 1}–${to ?? 'end'}` : '';
      return `Reading ${shown(args.path)}${lines}${inRepo(args)}`;
    }
    case 'list_files':
      return `Listing ${typeof args.path === 'string' && args.path !== '' ? shown(args.path) : 'the root'}${inRepo(args)}`;
    case 'list_repos':
      return `Looking for repositories named ${code(args.query)}`;
    case 'go_to_definition':
      return `Finding the definition of ${code(args.symbol)}${typeof args.path === 'string' ? ` used in ${shown(args.path)}` : ''}`;
    case 'find_references':
      return `Finding what uses ${code(args.symbol)}`;
    case 'commit_search':
      return `Searching commits${inRepo(args)}${Array.isArray(args.messageTerms) ? ` for ${code(args.messageTerms.join(' '))}` : ''}`;
    case 'diff_search':
      return `Searching changes for ${code(args.pattern)}${inRepo(args)}`;
    case 'compare_revisions':
      return `Comparing ${shown(args.base)} with ${shown(args.head)}${inRepo(args)}`;
    case 'get_contributor_repos':
      return `Finding the repositories of ${code(Array.isArray(args.authors) ? args.authors.join(', ') : args.author)}`;
    default:
      return `Calling ${code(name)}`;
  }
}

/** The heading a model's follow-up list starts with, in the forms models write it (one short line). */
const FOLLOWUP_HEADING = /^(?:#{1,6} *)?(?:\*\*|__)?(?:suggested +)?follow[- ]?ups?(?: +questions)?:?(?:\*\*|__)?:?$/i;
const MAX_HEADING_CHARS = 80;
const FOLLOWUP_ITEM = /^(?:[-*+]|\d{1,2}[.)])[ \t]+(\S.*)$/;
const MAX_FOLLOWUPS = 3;
const MAX_FOLLOWUP_CHARS = 300;

/** The answer without its follow-up list, and the list's questions (at most three, each bounded). */
export function takeFollowups(answer: string): { answer: string; followups: string[] } {
  const lines = answer.split('\n');
  const heading = lines.findIndex((line) => line.length <= MAX_HEADING_CHARS && FOLLOWUP_HEADING.test(line.trim()));
  if (heading < 0) return { answer: answer.trim(), followups: [] };
  const followups: string[] = [];
  let end = heading + 1;
  for (; end < lines.length; end++) {
    const line = (lines[end] ?? '').trim();
    const item = FOLLOWUP_ITEM.exec(line);
    // Shown and sent as plain text: inline code and emphasis marks go (the names stay).
    if (item?.[1]) {
      if (followups.length < MAX_FOLLOWUPS) followups.push(plainText(item[1].slice(0, 2 * MAX_FOLLOWUP_CHARS)).slice(0, MAX_FOLLOWUP_CHARS));
    } else if (line !== '') break;
  }
  if (followups.length === 0) return { answer: answer.trim(), followups };
  return { answer: [...lines.slice(0, heading), ...lines.slice(end)].join('\n').trim(), followups };
}

function plainText(markdown: string): string {
  return markdown
    .replace(/`([^`\n]+)`/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .trim();
}
