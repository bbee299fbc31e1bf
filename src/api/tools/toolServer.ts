/**
 * What the extension knows about an instance's tool server before talking to it: the tool names,
 * the endpoints to try, and how a missing server shows. Kept apart from the client so that views
 * can use these facts without loading the MCP SDK.
 */
import { isDeepSearchError, type DeepSearchError } from '../errors';

/** The tools by their names without the `sg_` prefix. */
export type ToolName =
  | 'read_file'
  | 'list_files'
  | 'list_repos'
  | 'keyword_search'
  | 'nls_search'
  | 'go_to_definition'
  | 'find_references'
  | 'commit_search'
  | 'diff_search'
  | 'compare_revisions'
  | 'get_contributor_repos'
  | 'deepsearch';

export const TOOL_NAMES: readonly ToolName[] = [
  'read_file', 'list_files', 'list_repos', 'keyword_search', 'nls_search', 'go_to_definition',
  'find_references', 'commit_search', 'diff_search', 'compare_revisions', 'get_contributor_repos', 'deepsearch',
];

/** Tried in this order: the full set first, then the newer curated endpoint. */
export const TOOL_SERVER_PATHS = ['/.api/mcp/v1', '/.api/mcp'] as const;

export interface ToolServer {
  /** The endpoint that answered, e.g. `https://host/.api/mcp/v1`. */
  url: string;
  /** Tool → the name the server knows it by; tools it lacks are absent. */
  names: ReadonlyMap<ToolName, string>;
}

/** The instance has no tool server at all (a missing single tool is `unsupported` without a status). */
export function isToolServerMissing(error: unknown): error is DeepSearchError {
  return isDeepSearchError(error) && error.kind === 'unsupported' && error.status === 404;
}
