/**
 * What the extension knows about an instance's tool server before talking to it: the tool names,
 * the endpoints to try, and how a missing server shows. Kept apart from the client so that views
 * can use these facts without loading the MCP client.
 */
import * as l10n from '@vscode/l10n';
import { TOOL_SERVER_ENDPOINTS, TOOL_SERVER_TOOLS, type ToolServerTool } from '../../contract/toolServers';
import { DeepSearchError, isDeepSearchError } from '../errors';

/** The tools the extension uses, by their 2026 names (without the `sg_` of `/.api/mcp/v1`). */
export type ToolName = Exclude<ToolServerTool, 'deepsearch_read'>;

export const TOOL_NAMES: readonly ToolName[] = TOOL_SERVER_TOOLS.filter((tool): tool is ToolName => tool !== 'deepsearch_read');

/** What a user misses without each tool, in the words of the editor's features (read when said, so translated). */
export const TOOL_FEATURES: Readonly<Record<ToolName, string>> = {
  get read_file() {
    return l10n.t('reading remote files');
  },
  get list_files() {
    return l10n.t('listing remote folders');
  },
  get list_repos() {
    return l10n.t('listing repositories');
  },
  get keyword_search() {
    return l10n.t('keyword code search');
  },
  get nls_search() {
    return l10n.t('natural-language code search');
  },
  get go_to_definition() {
    return l10n.t('Go to Definition across repositories');
  },
  get find_references() {
    return l10n.t('Find References across repositories');
  },
  get commit_search() {
    return l10n.t('commit search');
  },
  get diff_search() {
    return l10n.t('searching changes (diffs)');
  },
  get compare_revisions() {
    return l10n.t('comparing revisions');
  },
  get get_contributor_repos() {
    return l10n.t("finding a contributor's repositories");
  },
  get deepsearch() {
    return l10n.t('Deep Search as a tool');
  },
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
      throw new DeepSearchError(
        'unsupported',
        l10n.t("This instance's {0} takes one {1}, not {2}: search for one at a time.", feature, singular, value.length),
      );
    } else if (!SIZE_ARGUMENTS.has(name)) {
      throw new DeepSearchError(
        'unsupported',
        l10n.t('This instance\'s {0} does not take "{1}" (its tool server is of another version), so it cannot answer this as asked.', feature, name),
      );
    }
  }
  return adapted;
}

/** The instance has no tool server at all (a missing single tool is `unsupported` without a status). */
export function isToolServerMissing(error: unknown): error is DeepSearchError {
  return isDeepSearchError(error) && error.kind === 'unsupported' && error.status === 404;
}
