/**
 * A question's @-mentions, as the Ask box (and an instance's page) writes them: `@<repository>`
 * scopes the search to that repository, `@<path>` to that file. A mention names a served repository
 * by its whole name or by its last parts (`@acme/billing`, `@billing`); any other mention with a
 * `.` or `/` is a file path, matched at the end of a path (`@Override` and the like stay words).
 * The engine then searches only what they name.
 */
import type { ServedRepository } from '../git/repos';
import { ANSWER_TOOL_NAMES } from '../messages/toolNames';
import { parseQuery, type ParsedQuery } from '../search/query';
import { escapeRegExp } from '../repo/paths';

/** More mentions than this are read as plain words. */
const MAX_MENTIONS = 10;
const MAX_MENTION_LENGTH = 300;
/** `@` at the start of a word, then a name or path; punctuation that ends a sentence is not part of it. */
const MENTION = /(?<![\w@])@([\w][\w.\-/]*[\w])(?=[\s.,;:!?)]|$)/g;

export interface MentionScope {
  /** The question without its mentions, for the words to search. */
  text: string;
  /** The repositories named (each once), or all when none is. */
  repositories: ServedRepository[];
  /** Repositories and files as the turn shows them, e.g. `github.com/acme/billing`, `src/price.ts`. */
  named: string[];
  /** The search's filters: `repo:` and `file:` of what is named; undefined when nothing is. */
  query?: ParsedQuery;
}

export function mentionScope(question: string, served: readonly ServedRepository[]): MentionScope {
  const repositories = new Set<ServedRepository>();
  const files = new Set<string>();
  const taken = new Set<string>();
  for (const [whole, name] of [...question.matchAll(MENTION)].slice(0, MAX_MENTIONS)) {
    if (name.length > MAX_MENTION_LENGTH) continue;
    const repository = served.find((candidate) => candidate.name === name) ?? served.find((candidate) => candidate.name.endsWith(`/${name}`));
    if (repository) repositories.add(repository);
    else if (/[./]/.test(name)) files.add(name);
    else continue;
    taken.add(whole);
  }
  if (taken.size === 0) return { text: question, repositories: [...served], named: [] };
  const filters: string[] = [];
  if (repositories.size > 0) filters.push(`repo:^(${[...repositories].map((repository) => escapeRegExp(repository.name)).join('|')})$`);
  if (files.size > 0) filters.push(`file:(^|/)(${[...files].map(escapeRegExp).join('|')})$`);
  const text = question
    .replace(MENTION, (whole) => (taken.has(whole) ? ' ' : whole))
    .replace(/\s+/g, ' ')
    .trim();
  return {
    text,
    repositories: repositories.size > 0 ? [...repositories] : [...served],
    named: [...[...repositories].map((repository) => repository.name), ...files],
    query: parseQuery(filters.join(' '), ANSWER_TOOL_NAMES),
  };
}
