/**
 * The tools of every endpoint: each tool's name, description (the engine's own words), schemas and
 * the function that runs it. One implementation per tool; each generation gets a thin adapter over
 * it: `/.api/mcp/v1` the `sg_` names and arguments of `mcp-tools-v1.json`, the 2026 endpoints
 * (`/.api/mcp/all`, `/.api/mcp`, `/.api/mcp/deepsearch`) their names and arguments.
 */
import { ENDPOINT_TOOLS, servedToolName, type ToolServerEndpoint, type ToolServerTool } from '../../contract/toolServers';
import { toolNamer, type ToolNamer } from '../messages/toolNames';
import { compareRevisions } from './compare';
import type { ToolContext, ToolOutput } from '../repo/context';
import { deepSearch, deepSearchRead } from './deepsearch';
import { DIFFS_2026, DIFFS_V1, diffSearch } from './diffs';
import { listFiles, listRepos, readFile } from './files';
import { COMMITS_2026, COMMITS_V1, commitSearch, contributorRepos, MAX_CONTRIBUTOR_AUTHORS } from './history';
import type { Schema } from './jsonSchema';
import { findReferences, goToDefinition, REFERENCES_DEFAULT_2026 } from './navigation';
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

function sealed<I, O>(definition: ToolDefinition<I, O>): AnyTool {
  return { name: definition.name, use: (visit) => visit(definition) };
}

const SEARCH_SYNTAX =
  'Query syntax: plain terms (all must occur in a file), "quoted phrases", /regular expressions/ (PCRE), AND, OR, NOT and ( ); ' +
  'filters repo:<regex> (e.g. repo:^github\\.com/acme/app$), file:<regex> (e.g. file:\\.py$ or file:^src/), rev:<branch|tag|commit> (with repo:), ' +
  'lang:<language>, case:yes, count:<files>; prefix a filter with - to exclude. Matching is case-insensitive unless case:yes.';

/**
 * What the engine says that may name other tools: the words themselves, or the words given how the
 * endpoint serving them names the tools (`sg_list_files` on v1, `list_files` on the 2026 endpoints).
 */
type Worded<T> = T | ((tool: ToolNamer) => T);

function worded<T>(words: Worded<T>, tool: ToolNamer): T {
  return typeof words === 'function' ? (words as (tool: ToolNamer) => T)(tool) : words;
}

/** What both generations of a tool share. */
interface Common {
  title: string;
  description: Worded<string>;
  readOnly: boolean;
  budgeted: boolean;
}

/** One generation's form of a tool: its schemas, the adapter onto the implementation, its own description if it differs. */
interface Generation<I, O> {
  input: Worded<Schema<I>>;
  output: Schema<O>;
  run: (context: ToolContext, args: NoInfer<I>) => Promise<ToolOutput<NoInfer<O>>>;
  description?: Worded<string>;
}

/** A tool as the endpoints serve it. */
export interface ToolFamily {
  /** The 2026 name. */
  name: ToolServerTool;
  /** On `/.api/mcp/v1` (as `sg_<name>`); absent: v1 has no such tool. */
  v1?: AnyTool;
  /** On the 2026 endpoints. */
  current: AnyTool;
}

/** A generation's tool as `endpoint` serves it, its words naming the other tools as that endpoint does. */
function served<I, O>(endpoint: ToolServerEndpoint, name: ToolServerTool, common: Common, generation: Generation<I, O>): AnyTool {
  const names = toolNamer(endpoint);
  return sealed<I, O>({
    ...common,
    ...generation,
    name: servedToolName(endpoint, name),
    description: worded(generation.description ?? common.description, names),
    input: worded(generation.input, names),
  });
}

function family<I1, O1, I2, O2>(name: ToolServerTool, common: Common, v1: Generation<I1, O1> | undefined, current: Generation<I2, O2>): ToolFamily {
  return { name, v1: v1 && served('v1', name, common, v1), current: served('all', name, common, current) };
}

/** A tool whose arguments and result are the same in both generations. */
function same<I, O>(name: ToolServerTool, common: Common, generation: Generation<I, O>): ToolFamily {
  return family(name, common, generation, generation);
}

const HISTORY_2026 =
  ' revisions (branches, tags or commits, any of them) searches their history instead of the default branch; a repository that has none of them is skipped.';

export const TOOL_FAMILIES: readonly ToolFamily[] = [
  same(
    'read_file',
    {
      title: 'Read a file',
      description: (tool) =>
        'Returns the text of one file of a repository, every line prefixed with its 1-based number ("12: code"). Read a part with startLine/endLine, ' +
        'and an older or other version with revision (branch, tag or commit). Files over 128 KB must be read in line ranges; binary files cannot be read. ' +
        `Find the exact path first with ${tool('list_files')} or a search.`,
      readOnly: true,
      budgeted: true,
    },
    { input: schemas.readFileInput, output: schemas.readFileOutput, run: readFile },
  ),
  same(
    'list_files',
    {
      title: 'List files',
      description:
        'Lists the entries of one directory of a repository (the root by default), at a revision if given. Paths are from the repository root; ' +
        'directories come first and end with "/". At most 1000 entries: list a subdirectory for more.',
      readOnly: true,
      budgeted: true,
    },
    { input: schemas.listFilesInput, output: schemas.listFilesOutput, run: listFiles },
  ),
  family(
    'list_repos',
    {
      title: 'List repositories',
      description:
        'Finds repositories whose names contain the query (case-insensitive part of the name, not a regular expression; ^ and $ anchor it). ' +
        'Use it to learn the exact names other tools need. Pages of limit results (default 50); pass pagination.endCursor as after for the next page, ' +
        'startCursor as before for the previous one.',
      readOnly: true,
      budgeted: true,
    },
    { input: schemas.listReposInput, output: schemas.listReposOutput, run: listRepos },
    {
      input: schemas.listReposInput,
      output: schemas.listReposOutput2026,
      description:
        'Finds repositories whose names contain the query (case-insensitive part of the name, not a regular expression; ^ and $ anchor it). ' +
        'Use it to learn the exact names other tools need. Pages of limit results (default 50); hasMoreResults says whether more match: pass ' +
        'pagination.endCursor as after for the next page, startCursor as before for the previous one.',
      run: async (context, args) => {
        const page = await listRepos(context, args);
        return { ...page, structured: { ...page.structured, hasMoreResults: page.structured.pagination.hasNextPage } };
      },
    },
  ),
  same(
    'keyword_search',
    {
      title: 'Keyword search',
      description: (tool) =>
        `Exact code search across the repositories' default branches (or rev:). ${SEARCH_SYNTAX} ` +
        'Results are grouped by file: up to 15 files (count: raises it), each with up to 3 numbered chunks of at most 1024 characters; long lines are cut at 256. ' +
        `For concepts or when unsure of the exact words, use ${tool('nls_search')}.`,
      readOnly: true,
      budgeted: true,
    },
    { input: schemas.searchInput, output: schemas.searchOutput, run: keywordSearch },
  ),
  same(
    'nls_search',
    {
      title: 'Natural-language search',
      description: (tool) =>
        'Broad, ranked code search for a topic described in words: any of the words may match, words are reduced to their stems (connection ~ connect) ' +
        'and identifiers are split (parseConfig ~ parse, config); files are ranked with BM25 and path matches. Give keywords rather than a full sentence ' +
        `("database connection close"). The repo:, file:, rev: and lang: filters of ${tool('keyword_search')} work here too. Returns the 15 best files with up to 3 chunks each.`,
      readOnly: true,
      budgeted: true,
    },
    { input: schemas.searchInput, output: schemas.searchOutput, run: nlsSearch },
  ),
  same(
    'go_to_definition',
    {
      title: 'Go to definition',
      description:
        'Finds where a symbol (function, method, class, type, variable, constant) is defined, searching every repository, nearest first: the given ' +
        'repository (at revision), then the others. Give the file where the symbol is used. Search-based, for TypeScript/JavaScript, Python, Go, Java and Rust; ' +
        'returns each definition with up to 50 lines of its body.',
      readOnly: true,
      budgeted: true,
    },
    { input: schemas.navigationInput, output: schemas.navigationOutput, run: goToDefinition },
  ),
  family(
    'find_references',
    {
      title: 'Find references',
      description:
        'Finds the places that use a symbol: whole-word occurrences in files of the same language as the given file (where the symbol is defined), across ' +
        'every repository, with the definitions themselves left out. Search-based, for TypeScript/JavaScript, Python, Go, Java and Rust. At most 500 lines in 50 files.',
      readOnly: true,
      budgeted: true,
    },
    { input: schemas.navigationInput, output: schemas.navigationOutput, run: (context, args) => findReferences(context, args) },
    {
      input: schemas.referencesInput2026,
      output: schemas.navigationOutput,
      description:
        'Finds the places that use a symbol: whole-word occurrences in files of the same language as the given file (where the symbol is defined), across ' +
        `every repository, with the definitions themselves left out. Search-based, for TypeScript/JavaScript, Python, Go, Java ` +
        `and Rust. limit references (default ${REFERENCES_DEFAULT_2026}, at most 500) in at most 50 files.`,
      run: (context, args) => findReferences(context, args, REFERENCES_DEFAULT_2026),
    },
  ),
  family(
    'commit_search',
    {
      title: 'Search commits',
      description:
        "Searches the commit history of the repositories' default branches. Different kinds of criteria must all hold; several values of one kind are " +
        'alternatives: messageTerms (in the message), authors (name or e-mail, partial), contentTerms (in added or removed code), files (paths or globs), ' +
        'after/before (dates such as 2024-05-01 or "2 weeks ago"). Case-insensitive; useRegex for regular expressions. Newest first, count at most (default 50).',
      readOnly: true,
      budgeted: true,
    },
    { input: schemas.commitSearchInput, output: schemas.commitSearchOutput, run: (context, args) => commitSearch(context, args, COMMITS_V1) },
    {
      input: schemas.commitSearchInput2026,
      output: schemas.commitSearchOutput,
      description:
        "Searches the commit history of the repositories' default branches. Different kinds of criteria must all hold; several values of one kind are " +
        'alternatives: messageTerms (in the message), authors (name or e-mail, partial), contentTerms (in added or removed code), files (paths or globs), ' +
        `after/before (dates such as 2024-05-01 or "2 weeks ago").${HISTORY_2026} Case-insensitive; useRegex for regular expressions. ` +
        `Newest first, count at most (default ${COMMITS_2026.default}, up to ${COMMITS_2026.max}).`,
      run: (context, args) => commitSearch(context, args, COMMITS_2026),
    },
  ),
  family(
    'diff_search',
    {
      title: 'Search diffs',
      description:
        'Finds changes whose added or removed lines contain a pattern (not commit messages), in the default branches of the given repositories. ' +
        'Narrow with added or removed (only that kind of line), author, after/before dates. Case-insensitive; useRegex for a regular expression. ' +
        'Each result is one hunk with its file header; matchRanges give 0-based line and character positions of the matches inside diffHunk.',
      readOnly: true,
      budgeted: true,
    },
    {
      input: schemas.diffSearchInput,
      output: schemas.diffSearchOutput,
      run: (context, { author, ...rest }) => diffSearch(context, { ...rest, authors: author === undefined ? undefined : [author] }, DIFFS_V1, 'author'),
    },
    {
      input: schemas.diffSearchInput2026,
      output: schemas.diffSearchOutput,
      description:
        'Finds changes whose added or removed lines contain a pattern (not commit messages), in the default branches of the given repositories. ' +
        `Narrow with added or removed (only that kind of line), authors (any of them), after/before dates.${HISTORY_2026} Case-insensitive; useRegex for a regular expression. ` +
        `Newest first, count hunks at most (default ${DIFFS_2026.default}, up to ${DIFFS_2026.max}). ` +
        'Each result is one hunk with its file header; matchRanges give 0-based line and character positions of the matches inside diffHunk.',
      run: (context, args) => diffSearch(context, args, DIFFS_2026),
    },
  ),
  same(
    'compare_revisions',
    {
      title: 'Compare revisions',
      description:
        'Shows what changed from base (older) to head (newer) in one repository: per file the added and deleted line counts and the hunks. ' +
        'totalAdded/totalDeleted count lines over all files, totalModified counts changed files. Files come a page at a time (first, default 50, ' +
        'at most 100); pass endCursor as after for the next page. For one commit, compare <hash>~1 with <hash>.',
      readOnly: true,
      budgeted: true,
    },
    { input: schemas.compareInput, output: schemas.compareOutput, run: compareRevisions },
  ),
  family(
    'get_contributor_repos',
    {
      title: "Find a contributor's repositories",
      description:
        "Lists the repositories whose default branch has commits by an author (case-insensitive part of the name or e-mail), with each one's commit " +
        'count and latest commit date, most commits first. limit (default 20) and minCommits (default 1) narrow it. Useful to scope commit and diff searches.',
      readOnly: true,
      budgeted: true,
    },
    {
      input: schemas.contributorInput,
      output: schemas.contributorOutput,
      run: (context, { author, ...rest }) => contributorRepos(context, { ...rest, authors: [author] }, 'author'),
    },
    {
      input: schemas.contributorInput2026,
      output: schemas.contributorOutput,
      description:
        `Lists the repositories whose default branch has commits by any of the authors (up to ${MAX_CONTRIBUTOR_AUTHORS}; case-insensitive part of the name or e-mail), with each one's commit ` +
        'count and latest commit date, most commits first. limit (default 20) and minCommits (default 1) narrow it. Useful to scope commit and diff searches.',
      run: contributorRepos,
    },
  ),
  family(
    'deepsearch',
    {
      title: 'Deep Search',
      description:
        "Asks the engine's Deep Search agent a question about the code. It investigates the repositories and writes an answer with links to the sources, " +
        'a title and follow-up questions. This creates a conversation for the calling user (conversation_id, link) and waits for its answer, which can ' +
        'take a while; if it is not ready in time, the result says where to read it later.',
      readOnly: false,
      budgeted: false,
    },
    { input: schemas.deepSearchInput, output: schemas.deepSearchOutput, run: deepSearch },
    {
      input: schemas.deepSearchInput,
      output: schemas.deepSearchOutput,
      description:
        "Asks the engine's Deep Search agent a question about the code. It investigates the repositories and writes an answer with links to the sources, " +
        'a title and follow-up questions. This creates a conversation for the calling user (conversation_id, link) and waits for its answer, which can ' +
        'take a while; if it is not ready in time, read it later with deepsearch_read and the link.',
      run: async (context, args) => {
        const output = await deepSearch(context, args);
        const link = output.structured.link;
        if (output.structured.error?.kind !== 'Timeout' || link === undefined) return output;
        return { ...output, notes: [...(output.notes ?? []), `Read the answer later with deepsearch_read {"identifier": ${JSON.stringify(link)}}.`] };
      },
    },
  ),
  family(
    'deepsearch_read',
    {
      title: 'Read a Deep Search conversation',
      description:
        'Returns the questions and answers of a Deep Search conversation, given its link (as deepsearch returns it) or its read token. ' +
        'processing says whether a question is still being answered: read it again a little later. You can read your own conversations, and ' +
        "others' when the instance shares them.",
      readOnly: true,
      budgeted: true,
    },
    undefined,
    { input: schemas.deepSearchReadInput, output: schemas.deepSearchReadOutput, run: deepSearchRead },
  ),
];

/** The v1 tool set (`/.api/mcp/v1`, every tool there is), in its order. */
export const TOOLS: readonly AnyTool[] = TOOL_FAMILIES.flatMap((entry) => (entry.v1 ? [entry.v1] : []));

/** The tools an endpoint serves, without the disabled ones (2026 names), in the endpoint's order. */
export function endpointTools(endpoint: ToolServerEndpoint, disabled: ReadonlySet<string> = new Set()): AnyTool[] {
  const byName = new Map(TOOL_FAMILIES.map((entry) => [entry.name, entry]));
  return ENDPOINT_TOOLS[endpoint].flatMap((name) => {
    const entry = byName.get(name);
    if (!entry || disabled.has(name)) return [];
    const served = endpoint === 'v1' ? entry.v1 : entry.current;
    return served ? [served] : [];
  });
}
