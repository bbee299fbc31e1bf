/**
 * Input and output schemas of the tools, with the names, types and required fields of the real
 * tool server (`mcp-tools-v1.json`); the argument descriptions are the engine's own.
 */
import { z } from 'zod';

const repo = z.string().describe('Repository name as sg_list_repos returns it, e.g. "github.com/acme/app".');
const revision = z.string().describe('Branch, tag or commit hash (also e.g. main~2). Default: the default branch.');
const query = z.string().describe('Search query: terms, "quoted phrases", /regular expressions/, AND, OR, NOT, parentheses, and repo:, file:, rev:, lang:, case:, count: filters.');
const integer = z.number().int();

export const readFileInput = z.strictObject({
  repo,
  path: z.string().describe('File path from the repository root, e.g. src/index.ts.'),
  startLine: integer.optional().describe('First line to return (1-based). Default 1.'),
  endLine: integer.optional().describe('Last line to return (1-based, inclusive). Default: the end of the file.'),
  revision: revision.optional(),
});
export const readFileOutput = z.strictObject({ content: z.string() });

export const listFilesInput = z.strictObject({
  repo,
  path: z.string().optional().describe('Directory to list, from the repository root. Default: the root.'),
  revision: revision.optional(),
});
export const listFilesOutput = z.strictObject({
  files: z.array(z.strictObject({ path: z.string(), isDirectory: z.boolean() })),
});

export const listReposInput = z.strictObject({
  query: z.string().describe('Part of a repository name (case-insensitive; ^ and $ anchor it). Empty lists every repository.'),
  limit: integer.optional().describe('Repositories per page, 1–100. Default 50.'),
  after: z.string().optional().describe('endCursor of the previous page, to get the next page.'),
  before: z.string().optional().describe('startCursor of the current page, to get the previous page.'),
});
export const listReposOutput = z.strictObject({
  repositories: z.array(
    z.strictObject({ name: z.string(), description: z.string(), private: z.boolean(), archived: z.boolean(), fork: z.boolean(), stars: integer }),
  ),
  pagination: z.strictObject({
    totalCount: integer,
    hasNextPage: z.boolean(),
    hasPreviousPage: z.boolean(),
    startCursor: z.string().optional(),
    endCursor: z.string().optional(),
  }),
});

export const searchInput = z.strictObject({ query });
export const searchOutput = z.strictObject({ blocks: z.array(z.unknown()) });

const chunk = z.strictObject({ startLine: integer, endLine: integer, content: z.string() });
export const navigationInput = z.strictObject({
  repo,
  path: z.string().describe('File (from the repository root) where the symbol appears.'),
  symbol: z.string().describe('The identifier, e.g. parseConfig (a method by its name alone).'),
  revision: revision.optional(),
});
export const navigationOutput = z.strictObject({
  fileBlocks: z.array(z.strictObject({ type: z.string(), repo: z.string(), file: z.string(), rev: z.string().optional(), chunks: z.array(chunk) })),
});

const terms = (what: string): z.ZodOptional<z.ZodArray<z.ZodString>> => z.array(z.string()).optional().describe(what);
const dateBound = (which: string): z.ZodOptional<z.ZodString> =>
  z.string().optional().describe(`Only ${which} this date: 2024-05-31, 05/31/2024, "may 2024", "2 weeks ago", "yesterday", "last month".`);

export const commitSearchInput = z.strictObject({
  repos: z.array(z.string()).describe('Repositories to search (names, or patterns such as github.com/acme/*). Required.'),
  messageTerms: terms('Words or phrases in the commit message (any of them).'),
  authors: terms('Author names or e-mail addresses, or parts of them (any of them).'),
  contentTerms: terms('Code in the lines the commit added or removed (any of them).'),
  files: terms('Paths or globs of changed files, e.g. src/ or src/**/*.ts (any of them).'),
  after: dateBound('commits after'),
  before: dateBound('commits before'),
  count: integer.optional().describe('Most commits to return, 1–200. Default 50.'),
  useRegex: z.boolean().optional().describe('Treat terms as regular expressions (POSIX extended). Default false.'),
});
export const commitSearchOutput = z.strictObject({
  query: z.string(),
  totalCount: integer,
  commits: z.array(
    z.strictObject({ repository: z.string(), commit: z.string(), author: z.string(), date: z.string(), title: z.string(), message: z.string() }),
  ),
  limitHit: z.boolean(),
});

export const diffSearchInput = z.strictObject({
  pattern: z.string().describe('Text (or, with useRegex, a regular expression) to find in added or removed lines.'),
  repos: z.array(z.string()).describe('Repositories to search (names, or patterns such as github.com/acme/*). Required.'),
  added: z.boolean().optional().describe('Only lines the changes added.'),
  removed: z.boolean().optional().describe('Only lines the changes removed.'),
  author: z.string().optional().describe('Author name or e-mail address, or part of one.'),
  after: dateBound('changes after'),
  before: dateBound('changes before'),
  count: integer.optional().describe('Most hunks to return, 1–200. Default 50.'),
  useRegex: z.boolean().optional().describe('Treat pattern as a regular expression (POSIX extended). Default false.'),
});
export const diffSearchOutput = z.strictObject({
  query: z.string(),
  results: z.array(
    z.strictObject({
      repository: z.string(),
      commit: z.string(),
      diffHunk: z.string(),
      url: z.string(),
      matchRanges: z.array(z.strictObject({ startLine: integer, endLine: integer, startCharacter: integer, endCharacter: integer })),
      authorName: z.string().optional(),
      message: z.string().optional(),
    }),
  ),
  totalCount: integer,
  limitHit: z.boolean(),
});

const range = z.strictObject({ startLine: integer, lines: integer });
export const compareInput = z.strictObject({
  repo,
  base: z.string().describe('Older revision: branch, tag, commit hash or e.g. main~3.'),
  head: z.string().describe('Newer revision: branch, tag, commit hash.'),
  first: integer.optional().describe('Files per page, 1–100. Default 50.'),
  after: z.string().optional().describe('endCursor of the previous page.'),
});
export const compareOutput = z.strictObject({
  repository: z.string(),
  base: z.string(),
  head: z.string(),
  totalAdded: integer,
  totalDeleted: integer,
  totalModified: integer,
  files: z.array(
    z.strictObject({
      path: z.string(),
      added: integer,
      deleted: integer,
      hunks: z.array(z.strictObject({ oldRange: range, newRange: range, section: z.string().optional(), body: z.string() })).optional(),
    }),
  ),
  hasNextPage: z.boolean(),
  endCursor: z.string(),
});

export const contributorInput = z.strictObject({
  author: z.string().describe('Author name or e-mail address, or part of one (case-insensitive).'),
  limit: integer.optional().describe('Most repositories to return, 1–100. Default 20.'),
  minCommits: integer.optional().describe('Fewest commits by the author for a repository to count. Default 1.'),
});
export const contributorOutput = z.strictObject({
  repositories: z.array(z.strictObject({ repoName: z.string(), repoCommitCount: integer, repoMostRecentCommitDate: z.string() })),
});

export const deepSearchInput = z.strictObject({
  question: z.string().describe('The question about the code, with any names, files or repositories it concerns.'),
});
export const deepSearchOutput = z.strictObject({
  conversation_id: integer.describe('Conversation created for the question.'),
  question_id: integer.describe('The question within it.'),
  answer: z.string().optional().describe('The answer, in Markdown with links.'),
  title: z.string().optional().describe('Short title of the answer.'),
  link: z.string().optional().describe('Where the conversation can be read.'),
  suggested_followups: z.array(z.string()).optional().describe('Follow-up questions worth asking next.'),
  error: z
    .strictObject({ title: z.string(), kind: z.string(), message: z.string(), details: z.string().optional() })
    .optional()
    .describe('Why there is no answer, when there is none.'),
});
