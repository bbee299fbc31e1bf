/**
 * How the engine's words name a tool: as the endpoint being called serves it (`sg_list_repos` on
 * `/.api/mcp/v1`, `list_repos` on the 2026 endpoints). The tool catalogue hands each call the
 * namer of its endpoint (tools/toolCalls.ts), so messages, notes and descriptions are written with
 * the right names from the start.
 */
import { servedToolName, type ToolServerEndpoint, type ToolServerTool } from '../../contract/toolServers';

/** The name the calling endpoint gives a tool. */
export type ToolNamer = (tool: ToolServerTool) => string;

export function toolNamer(endpoint: ToolServerEndpoint): ToolNamer {
  return (tool) => servedToolName(endpoint, tool);
}

/**
 * How the engine's own answers name tools in what they say when no tool call is under way (a note
 * of an answer made without a model): as v1 names them, as they always have.
 */
export const ANSWER_TOOL_NAMES: ToolNamer = toolNamer('v1');
