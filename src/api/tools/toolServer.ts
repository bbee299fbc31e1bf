/**
 * What the extension knows about an instance's tool server before talking to it: the tool names,
 * the endpoints to try, and how a missing server shows. Kept apart from the client so that views
 * can use these facts without loading the MCP client.
 */
import { TOOL_SERVER_ENDPOINTS, type ToolServerTool } from '../../contract/toolServers';
import { DeepSearchError, isDeepSearchError } from '../errors';

/** The tools the extension uses, by their 2026 names (without the `sg_` of `/.api/mcp/v1`). */
export type ToolName = Exclude<ToolServerTool, 'deepsearch_read'>;

export const TOOL_NAMES: readonly ToolName[] = [
  'read_file', 'list_files', 'list_repos', 'keyword_search', 'nls_search', 'go_to_definition',
  'find_references', 'commit_search', 'diff_search', 'compare_revisions', 'get_contributor_repos', 'deepsearch',
];

/** What a user misses without each tool, in the words of the editor's features. */
export const TOOL_FEATURES: Readonly<Record<ToolName, string>> = {
  read_file: 'reading remote files',
  list_files: 'listing remote folders',
  list_repos: 'listing repositories',
  keyword_search: 'keyword code search',
  nls_search: 'natural-language code search',
  go_to_definition: 'Go to Definition across repositories',
  find_references: 'Find References across repositories',
  commit_search: 'commit search',
  diff_search: 'searching changes (diffs)',
  compare_revisions: 'comparing revisions',
  get_contributor_repos: "finding a contributor's repositories",
  deepsearch: 'Deep Search as a tool',
};

/**
 * The endpoints of every server generation, best first: 2026's full set, 2026's curated default
 * (without navigation, compare, contributors and natural-language search), and the deprecated
 * `sg_` set of 6.8–7.x. The client takes the one that serves the most of its tools.
 */
export const TOOL_SERVER_PATHS = [TOOL_SERVER_ENDPOINTS.all, TOOL_SERVER_ENDPOINTS.curated, TOOL_SERVER_ENDPOINTS.v1] as const;

export interface ToolServer {
  /** The endpoint that answered, e.g. `https://host/.api/mcp/all`. */
  url: string;
  /** Tool → the name the server knows it by; tools it lacks (or an admin disabled) are absent. */
  names: ReadonlyMap<ToolName, string>;
  /** Tool → the argument names its input schema declares (absent: the schema said none). */
  parameters: ReadonlyMap<ToolName, ReadonlySet<string>>;
}

/**
 * Arguments that only bound the size of a result: a server whose tool does not take them still
 * answers the question asked (with its own default size), so they are left out there.
 */
const SIZE_ARGUMENTS: ReadonlySet<string> = new Set(['limit', 'count', 'first', 'minCommits']);

/**
 * The arguments of a call as this server's version of the tool takes them: a singular argument the
 * schema has in the plural becomes a one-item list (`author` → `authors: [author]`, as 2026 servers
 * ask), a one-item list becomes the singular where the schema has that, and size bounds the schema
 * lacks are left out. Anything else the server cannot take (a revision, a path, a second author)
 * would change the answer without saying so: that is an `unsupported` error naming it. Without a
 * schema, as given.
 */
export function argumentsFor(args: Record<string, unknown>, declared: ReadonlySet<string> | undefined, feature: string): Record<string, unknown> {
  if (!declared || declared.size === 0) return args;
  const adapted: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined) continue;
    const singular = name.endsWith('s') ? name.slice(0, -1) : undefined;
    if (declared.has(name)) adapted[name] = value;
    else if (declared.has(`${name}s`)) adapted[`${name}s`] = Array.isArray(value) ? value : [value];
    else if (singular && declared.has(singular) && Array.isArray(value) && value.length <= 1) {
      if (value.length === 1) adapted[singular] = value[0];
    } else if (singular && declared.has(singular) && Array.isArray(value)) {
      throw new DeepSearchError('unsupported', `This instance's ${feature} takes one ${singular}, not ${value.length}: search for one at a time.`);
    } else if (!SIZE_ARGUMENTS.has(name)) {
      throw new DeepSearchError('unsupported', `This instance's ${feature} does not take "${name}" (its tool server is of another version), so it cannot answer this as asked.`);
    }
  }
  return adapted;
}

/** The instance has no tool server at all (a missing single tool is `unsupported` without a status). */
export function isToolServerMissing(error: unknown): error is DeepSearchError {
  return isDeepSearchError(error) && error.kind === 'unsupported' && error.status === 404;
}
