/**
 * Input and output schemas of the tools, as the JSON Schema `tools/list` publishes, with the names,
 * types and required fields of the real tool server (`mcp-tools-v1.json` for `/.api/mcp/v1`, and
 * the 2026 changes for the other endpoints: the `…2026` schemas); the argument descriptions are
 * the engine's own. Every object takes no properties beyond its own.
 */
import type { ToolNamer } from '../messages/toolNames';
import { array, boolean, integer, object, optional, string, unknown, type Optional } from './jsonSchema';

/** The repository argument; its description names the listing tool as the serving endpoint does (tools.ts). */
const repo = (tool: ToolNamer) => string(`Repository name as ${tool('list_repos')} returns it, e.g. "github.com/acme/app".`);
const revision = string('Branch, tag or commit hash (also e.g. main~2). Default: the default branch.');
const query = string(
  'Search query: terms, "quoted phrases", /regular expressions/, AND, OR, NOT, parentheses, and repo:, file:, rev:, lang:, case:, count: filters.',
);

export const readFileInput = (tool: ToolNamer) =>
  object({
    repo: repo(tool),
    path: string('File path from the repository root, e.g. src/index.ts.'),
    startLine: optional(integer(), 'First line to return (1-based). Default 1.'),
    endLine: optional(integer(), 'Last line to return (1-based, inclusive). Default: the end of the file.'),
    revision: optional(revision),
  });
export const readFileOutput = object({ content: string() });

export const listFilesInput = (tool: ToolNamer) =>
  object({
    repo: repo(tool),
    path: optional(string(), 'Directory to list, from the repository root. Default: the root.'),
    revision: optional(revision),
  });
export const listFilesOutput = object({
  files: array(object({ path: string(), isDirectory: boolean() })),
});

export const listReposInput = object({
  query: string('Part of a repository name (case-insensitive; ^ and $ anchor it). Empty lists every repository.'),
  limit: optional(integer(), 'Repositories per page, 1–100. Default 50.'),
  after: optional(string(), 'endCursor of the previous page, to get the next page.'),
  before: optional(string(), 'startCursor of the current page, to get the previous page.'),
});
const repositoryList = array(object({ name: string(), description: string(), private: boolean(), archived: boolean(), fork: boolean(), stars: integer() }));
const pagination = object({
  totalCount: integer(),
  hasNextPage: boolean(),
  hasPreviousPage: boolean(),
  startCursor: optional(string()),
  endCursor: optional(string()),
});
export const listReposOutput = object({ repositories: repositoryList, pagination });
/** 2026: the same page, and whether more repositories match past it. */
export const listReposOutput2026 = object({
  repositories: repositoryList,
  pagination,
  hasMoreResults: boolean('Whether more repositories match than this page shows: pass pagination.endCursor as after for them.'),
});

export const searchInput = object({ query });
export const searchOutput = object({ blocks: array(unknown()) });

const chunk = object({ startLine: integer(), endLine: integer(), content: string() });
const navigationShape = (tool: ToolNamer) => ({
  repo: repo(tool),
  path: string('File (from the repository root) where the symbol appears.'),
  symbol: string('The identifier, e.g. parseConfig (a method by its name alone).'),
  revision: optional(revision),
});
export const navigationInput = (tool: ToolNamer) => object(navigationShape(tool));
/** 2026's find_references: also how many references at most. */
export const referencesInput2026 = (tool: ToolNamer) =>
  object({
    ...navigationShape(tool),
    limit: optional(integer(), 'Most references to return, 1–500. Default 10.'),
  });
export const navigationOutput = object({
  fileBlocks: array(object({ type: string(), repo: string(), file: string(), rev: optional(string()), chunks: array(chunk) })),
});

const terms = (what: string): Optional<string[]> => optional(array(string()), what);
const dateBound = (which: string): Optional<string> =>
  optional(string(`Only ${which} this date: 2024-05-31, 05/31/2024, "may 2024", "2 weeks ago", "yesterday", "last month".`));

const commitShape = {
  repos: array(string(), 'Repositories to search (names, or patterns such as github.com/acme/*). Required.'),
  messageTerms: terms('Words or phrases in the commit message (any of them).'),
  authors: terms('Author names or e-mail addresses, or parts of them (any of them).'),
  contentTerms: terms('Code in the lines the commit added or removed (any of them).'),
  files: terms('Paths or globs of changed files, e.g. src/ or src/**/*.ts (any of them).'),
  after: dateBound('commits after'),
  before: dateBound('commits before'),
  count: optional(integer(), 'Most commits to return, 1–200. Default 50.'),
  useRegex: optional(boolean(), 'Treat terms as regular expressions (POSIX extended). Default false.'),
};
export const commitSearchInput = object(commitShape);
const revisions = (what: string): Optional<string[]> =>
  optional(
    array(string()),
    `Branches, tags or commits whose history to search (any of them), e.g. ["main", "release-2.0"]. Default: the default branch. ${what}`,
  );
/** 2026's commit_search: revisions, and count at most 100. */
export const commitSearchInput2026 = object({
  ...commitShape,
  revisions: revisions('A repository that has none of them is skipped.'),
  count: optional(integer(), 'Most commits to return, 1–100. Default 50.'),
});
export const commitSearchOutput = object({
  query: string(),
  totalCount: integer(),
  commits: array(object({ repository: string(), commit: string(), author: string(), date: string(), title: string(), message: string() })),
  limitHit: boolean(),
});

const diffShape = {
  pattern: string('Text (or, with useRegex, a regular expression) to find in added or removed lines.'),
  repos: array(string(), 'Repositories to search (names, or patterns such as github.com/acme/*). Required.'),
  added: optional(boolean(), 'Only lines the changes added.'),
  removed: optional(boolean(), 'Only lines the changes removed.'),
  after: dateBound('changes after'),
  before: dateBound('changes before'),
  useRegex: optional(boolean(), 'Treat pattern as a regular expression (POSIX extended). Default false.'),
};
export const diffSearchInput = object({
  ...diffShape,
  author: optional(string(), 'Author name or e-mail address, or part of one.'),
  count: optional(integer(), 'Most hunks to return, 1–200. Default 50.'),
});
/** 2026's diff_search: authors (a list), revisions, and count default 20, at most 50. */
export const diffSearchInput2026 = object({
  ...diffShape,
  authors: terms('Author names or e-mail addresses, or parts of them (any of them).'),
  revisions: revisions('A repository that has none of them is skipped.'),
  count: optional(integer(), 'Most hunks to return, 1–50. Default 20.'),
});
export const diffSearchOutput = object({
  query: string(),
  results: array(
    object({
      repository: string(),
      commit: string(),
      diffHunk: string(),
      url: string(),
      matchRanges: array(object({ startLine: integer(), endLine: integer(), startCharacter: integer(), endCharacter: integer() })),
      authorName: optional(string()),
      message: optional(string()),
    }),
  ),
  totalCount: integer(),
  limitHit: boolean(),
});

const range = object({ startLine: integer(), lines: integer() });
export const compareInput = (tool: ToolNamer) =>
  object({
    repo: repo(tool),
    base: string('Older revision: branch, tag, commit hash or e.g. main~3.'),
    head: string('Newer revision: branch, tag, commit hash.'),
    first: optional(integer(), 'Files per page, 1–100. Default 50.'),
    after: optional(string(), 'endCursor of the previous page.'),
  });
export const compareOutput = object({
  repository: string(),
  base: string(),
  head: string(),
  totalAdded: integer(),
  totalDeleted: integer(),
  totalModified: integer(),
  files: array(
    object({
      path: string(),
      added: integer(),
      deleted: integer(),
      hunks: optional(array(object({ oldRange: range, newRange: range, section: optional(string()), body: string() }))),
    }),
  ),
  hasNextPage: boolean(),
  endCursor: string(),
});

const contributorShape = {
  limit: optional(integer(), 'Most repositories to return, 1–100. Default 20.'),
  minCommits: optional(integer(), 'Fewest commits by the author for a repository to count. Default 1.'),
};
export const contributorInput = object({
  author: string('Author name or e-mail address, or part of one (case-insensitive).'),
  ...contributorShape,
});
/** 2026's get_contributor_repos: up to five authors. */
export const contributorInput2026 = object({
  authors: array(string(), 'Author names or e-mail addresses, or parts of them (case-insensitive; any of them), at most 5.'),
  ...contributorShape,
});
export const contributorOutput = object({
  repositories: array(object({ repoName: string(), repoCommitCount: integer(), repoMostRecentCommitDate: string() })),
});

export const deepSearchInput = object({
  question: string('The question about the code, with any names, files or repositories it concerns.'),
});
export const deepSearchOutput = object({
  conversation_id: integer('Conversation created for the question.'),
  question_id: integer('The question within it.'),
  answer: optional(string(), 'The answer, in Markdown with links.'),
  title: optional(string(), 'Short title of the answer.'),
  link: optional(string(), 'Where the conversation can be read.'),
  suggested_followups: optional(array(string()), 'Follow-up questions worth asking next.'),
  error: optional(object({ title: string(), kind: string(), message: string(), details: optional(string()) }), 'Why there is no answer, when there is none.'),
});

export const deepSearchReadInput = object({
  identifier: string('The conversation link deepsearch returned (…/deepsearch/<read token>, or …/deepsearch/shared/<read token>), or the read token alone.'),
});
const readQuestion = object({
  question_id: integer(),
  question: string(),
  status: string('completed, processing, failed or canceled.'),
  title: optional(string()),
  answer: optional(string(), 'The answer, in Markdown with links.'),
  error: optional(object({ title: string(), kind: string(), message: string() }), 'Why there is no answer, when there is none.'),
});
export const deepSearchReadOutput = object({
  conversation_id: integer('The conversation.'),
  link: optional(string(), 'Where the conversation can be read.'),
  processing: boolean('True while a question is still being answered: read it again later.'),
  questions: array(readQuestion, 'Every question of the conversation, oldest first, with its answer.'),
});
