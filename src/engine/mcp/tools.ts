/**
 * The tool set of `/.api/mcp/v1`: each tool's name, description (the engine's own words), schemas
 * and the function that runs it.
 */
import { compareRevisions } from './compare';
import type { ToolContext, ToolOutput } from './context';
import { deepSearch } from './deepsearch';
import { diffSearch } from './diffs';
import { listFiles, listRepos, readFile } from './files';
import { commitSearch, contributorRepos } from './history';
import type { Schema } from './jsonSchema';
import { findReferences, goToDefinition } from './navigation';
import { nlsSearch } from './nls';
import * as schemas from './schemas';
import { keywordSearch } from './search';

/** A tool whose arguments are of type I and whose structured result is of type O. */
export interface ToolDefinition<I, O> {
  name: string;
  title: string;
  description: string;
  input: Schema<I>;
  output: Schema<O>;
  /** False for tools that change something (they get no read-only hint). */
  readOnly: boolean;
  /** False for tools that may legitimately run long (no overall time budget). */
  budgeted: boolean;
  /**
   * The types come from the schemas alone (NoInfer), and as a function-typed property `run` is
   * checked strictly: a tool function must accept exactly what its input schema lets through.
   */
  run: (context: ToolContext, args: NoInfer<I>) => Promise<ToolOutput<NoInfer<O>>>;
}

/** A tool with its types sealed in, so tools of different shapes fit in one list. */
export interface AnyTool {
  name: string;
  use<R>(visit: <I, O>(tool: ToolDefinition<I, O>) => R): R;
}

function tool<I, O>(definition: ToolDefinition<I, O>): AnyTool {
  return { name: definition.name, use: (visit) => visit(definition) };
}

const SEARCH_SYNTAX =
  'Query syntax: plain terms (all must occur in a file), "quoted phrases", /regular expressions/ (PCRE), AND, OR, NOT and ( ); ' +
  'filters repo:<regex> (e.g. repo:^github\\.com/acme/app$), file:<regex> (e.g. file:\\.py$ or file:^src/), rev:<branch|tag|commit> (with repo:), ' +
  'lang:<language>, case:yes, count:<files>; prefix a filter with - to exclude. Matching is case-insensitive unless case:yes.';

export const TOOLS: readonly AnyTool[] = [
  tool({
    name: 'sg_read_file',
    title: 'Read a file',
    description:
      'Returns the text of one file of a repository, every line prefixed with its 1-based number ("12: code"). Read a part with startLine/endLine, ' +
      'and an older or other version with revision (branch, tag or commit). Files over 128 KB must be read in line ranges; binary files cannot be read. ' +
      'Find the exact path first with sg_list_files or a search.',
    input: schemas.readFileInput,
    output: schemas.readFileOutput,
    readOnly: true,
    budgeted: true,
    run: readFile,
  }),
  tool({
    name: 'sg_list_files',
    title: 'List files',
    description:
      'Lists the entries of one directory of a repository (the root by default), at a revision if given. Paths are from the repository root; ' +
      'directories come first and end with "/". At most 1000 entries: list a subdirectory for more.',
    input: schemas.listFilesInput,
    output: schemas.listFilesOutput,
    readOnly: true,
    budgeted: true,
    run: listFiles,
  }),
  tool({
    name: 'sg_list_repos',
    title: 'List repositories',
    description:
      'Finds repositories whose names contain the query (case-insensitive part of the name, not a regular expression; ^ and $ anchor it). ' +
      'Use it to learn the exact names other tools need. Pages of limit results (default 50); pass pagination.endCursor as after for the next page, ' +
      'startCursor as before for the previous one.',
    input: schemas.listReposInput,
    output: schemas.listReposOutput,
    readOnly: true,
    budgeted: true,
    run: listRepos,
  }),
  tool({
    name: 'sg_keyword_search',
    title: 'Keyword search',
    description:
      `Exact code search across the repositories' default branches (or rev:). ${SEARCH_SYNTAX} ` +
      'Results are grouped by file: up to 15 files (count: raises it), each with up to 3 numbered chunks of at most 1024 characters; long lines are cut at 256. ' +
      'For concepts or when unsure of the exact words, use sg_nls_search.',
    input: schemas.searchInput,
    output: schemas.searchOutput,
    readOnly: true,
    budgeted: true,
    run: keywordSearch,
  }),
  tool({
    name: 'sg_nls_search',
    title: 'Natural-language search',
    description:
      'Broad, ranked code search for a topic described in words: any of the words may match, words are reduced to their stems (connection ~ connect) ' +
      'and identifiers are split (parseConfig ~ parse, config); files are ranked with BM25 and path matches. Give keywords rather than a full sentence ' +
      '("database connection close"). The repo:, file:, rev: and lang: filters of sg_keyword_search work here too. Returns the 15 best files with up to 3 chunks each.',
    input: schemas.searchInput,
    output: schemas.searchOutput,
    readOnly: true,
    budgeted: true,
    run: nlsSearch,
  }),
  tool({
    name: 'sg_go_to_definition',
    title: 'Go to definition',
    description:
      'Finds where a symbol (function, method, class, type, variable, constant) is defined, searching every repository, nearest first: the given ' +
      'repository (at revision), then the others. Give the file where the symbol is used. Search-based, for TypeScript/JavaScript, Python, Go, Java and Rust; ' +
      'returns each definition with up to 50 lines of its body.',
    input: schemas.navigationInput,
    output: schemas.navigationOutput,
    readOnly: true,
    budgeted: true,
    run: goToDefinition,
  }),
  tool({
    name: 'sg_find_references',
    title: 'Find references',
    description:
      'Finds the places that use a symbol: whole-word occurrences in files of the same language as the given file (where the symbol is defined), across ' +
      'every repository, with the definitions themselves left out. Search-based, for TypeScript/JavaScript, Python, Go, Java and Rust. At most 500 lines in 50 files.',
    input: schemas.navigationInput,
    output: schemas.navigationOutput,
    readOnly: true,
    budgeted: true,
    run: findReferences,
  }),
  tool({
    name: 'sg_commit_search',
    title: 'Search commits',
    description:
      "Searches the commit history of the repositories' default branches. Different kinds of criteria must all hold; several values of one kind are " +
      'alternatives: messageTerms (in the message), authors (name or e-mail, partial), contentTerms (in added or removed code), files (paths or globs), ' +
      'after/before (dates such as 2024-05-01 or "2 weeks ago"). Case-insensitive; useRegex for regular expressions. Newest first, count at most (default 50).',
    input: schemas.commitSearchInput,
    output: schemas.commitSearchOutput,
    readOnly: true,
    budgeted: true,
    run: commitSearch,
  }),
  tool({
    name: 'sg_diff_search',
    title: 'Search diffs',
    description:
      'Finds changes whose added or removed lines contain a pattern (not commit messages), in the default branches of the given repositories. ' +
      'Narrow with added or removed (only that kind of line), author, after/before dates. Case-insensitive; useRegex for a regular expression. ' +
      'Each result is one hunk with its file header; matchRanges give 0-based line and character positions of the matches inside diffHunk.',
    input: schemas.diffSearchInput,
    output: schemas.diffSearchOutput,
    readOnly: true,
    budgeted: true,
    run: diffSearch,
  }),
  tool({
    name: 'sg_compare_revisions',
    title: 'Compare revisions',
    description:
      'Shows what changed from base (older) to head (newer) in one repository: per file the added and deleted line counts and the hunks. ' +
      'totalAdded/totalDeleted count lines over all files, totalModified counts changed files. Files come a page at a time (first, default 50, ' +
      'at most 100); pass endCursor as after for the next page. For one commit, compare <hash>~1 with <hash>.',
    input: schemas.compareInput,
    output: schemas.compareOutput,
    readOnly: true,
    budgeted: true,
    run: compareRevisions,
  }),
  tool({
    name: 'sg_get_contributor_repos',
    title: "Find a contributor's repositories",
    description:
      "Lists the repositories whose default branch has commits by an author (case-insensitive part of the name or e-mail), with each one's commit " +
      'count and latest commit date, most commits first. limit (default 20) and minCommits (default 1) narrow it. Useful to scope commit and diff searches.',
    input: schemas.contributorInput,
    output: schemas.contributorOutput,
    readOnly: true,
    budgeted: true,
    run: contributorRepos,
  }),
  tool({
    name: 'sg_deepsearch',
    title: 'Deep Search',
    description:
      "Asks the engine's Deep Search agent a question about the code. It investigates the repositories and writes an answer with links to the sources, " +
      'a title and follow-up questions. This creates a conversation for the calling user (conversation_id, link) and waits for its answer, which can ' +
      'take a while; if it is not ready in time, the result says where to read it later.',
    input: schemas.deepSearchInput,
    output: schemas.deepSearchOutput,
    readOnly: false,
    budgeted: false,
    run: deepSearch,
  }),
];
