/**
 * The tool server (MCP) endpoints of every server generation and the tools each one serves, as the
 * extension's client looks for them and the local engine serves them: one definition for both
 * sides. Tools go by their 2026 names (`read_file`); `/.api/mcp/v1` serves them as `sg_<name>`.
 */
import { TOKEN_SCOPES } from './tokenScopes';

/** Where each endpoint is. */
export const TOOL_SERVER_ENDPOINTS = {
  /** 2026: every tool. */
  all: '/.api/mcp/all',
  /** 2026: the curated default set. */
  curated: '/.api/mcp',
  /** 2026: the Deep Search tools only. */
  deepsearch: '/.api/mcp/deepsearch',
  /** 6.8–7.x: the `sg_` tools of `mcp-tools-v1.json`; deprecated since January 2026. */
  v1: '/.api/mcp/v1',
} as const;

export type ToolServerEndpoint = keyof typeof TOOL_SERVER_ENDPOINTS;

/** Every tool by its 2026 name. */
export type ToolServerTool =
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
  | 'deepsearch'
  | 'deepsearch_read';

export const TOOL_SERVER_TOOLS: readonly ToolServerTool[] = [
  'read_file',
  'list_files',
  'list_repos',
  'keyword_search',
  'nls_search',
  'go_to_definition',
  'find_references',
  'commit_search',
  'diff_search',
  'compare_revisions',
  'get_contributor_repos',
  'deepsearch',
  'deepsearch_read',
];

/**
 * The curated default (`/.api/mcp`). Real servers add their search agent `code_finder` and
 * `evaluator` (and `nls_search` when `code_finder` is disabled); the local engine has neither.
 */
const CURATED: readonly ToolServerTool[] = ['read_file', 'list_files', 'list_repos', 'keyword_search', 'commit_search', 'diff_search', 'deepsearch_read'];

/** The tools of each endpoint, before an admin disables any. */
export const ENDPOINT_TOOLS: Readonly<Record<ToolServerEndpoint, readonly ToolServerTool[]>> = {
  all: [...CURATED, 'nls_search', 'go_to_definition', 'find_references', 'compare_revisions', 'get_contributor_repos', 'deepsearch'],
  curated: CURATED,
  deepsearch: ['deepsearch', 'deepsearch_read'],
  // No deepsearch_read: v1 servers have no way to read a conversation by its link.
  v1: TOOL_SERVER_TOOLS.filter((tool) => tool !== 'deepsearch_read'),
};

/** The name an endpoint gives a tool: `sg_read_file` on v1, `read_file` on the 2026 endpoints. */
export function servedToolName(endpoint: ToolServerEndpoint, tool: ToolServerTool): string {
  return endpoint === 'v1' ? `sg_${tool}` : tool;
}

/** Whether a name is one of the 2026 tool names. */
export function isToolServerTool(name: string): name is ToolServerTool {
  return (TOOL_SERVER_TOOLS as readonly string[]).includes(name);
}

/** The permission a user needs on 2026 servers for any MCP endpoint (else 403). */
export const MCP_ACCESS_PERMISSION = 'MCP#ACCESS';
/** The scope an OAuth or access token needs for the MCP endpoints. */
export const MCP_TOKEN_SCOPE = TOKEN_SCOPES.mcp;
