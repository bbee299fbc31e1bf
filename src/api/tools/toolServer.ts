/**
 * What the extension knows about an instance's tool server before talking to it: the tool names,
 * the endpoints to try, and how a missing server shows. Kept apart from the client so that views
 * can use these facts without loading the MCP SDK.
 */
import { TOOL_SERVER_ENDPOINTS, type ToolServerTool } from '../../contract/toolServers';
import { isDeepSearchError, type DeepSearchError } from '../errors';

/** The tools the extension uses, by their 2026 names (without the `sg_` of `/.api/mcp/v1`). */
export type ToolName = Exclude<ToolServerTool, 'deepsearch_read'>;

export const TOOL_NAMES: readonly ToolName[] = [
  'read_file', 'list_files', 'list_repos', 'keyword_search', 'nls_search', 'go_to_definition',
  'find_references', 'commit_search', 'diff_search', 'compare_revisions', 'get_contributor_repos', 'deepsearch',
];

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
 * The arguments of a call as this server's version of the tool takes them: a singular argument the
 * schema has in the plural becomes a one-item list (`author` → `authors: [author]`, as 2026 servers
 * ask), and arguments the schema does not declare are left out. Without a schema, as given.
 */
export function argumentsFor(args: Record<string, unknown>, declared: ReadonlySet<string> | undefined): Record<string, unknown> {
  if (!declared || declared.size === 0) return args;
  const adapted: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    if (declared.has(name)) adapted[name] = value;
    else if (declared.has(`${name}s`)) adapted[`${name}s`] = Array.isArray(value) ? value : [value];
    else if (name.endsWith('s') && declared.has(name.slice(0, -1)) && Array.isArray(value) && value.length === 1) adapted[name.slice(0, -1)] = value[0];
  }
  return adapted;
}

/** The instance has no tool server at all (a missing single tool is `unsupported` without a status). */
export function isToolServerMissing(error: unknown): error is DeepSearchError {
  return isDeepSearchError(error) && error.kind === 'unsupported' && error.status === 404;
}
