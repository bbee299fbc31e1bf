/**
 * A tool call as every caller makes it — the tool server's clients and the engine's own
 * investigation (answers/investigation.ts): the arguments checked against the tool's schema, a
 * time budget, the result checked against its output schema, and every failure a tool error whose
 * text says what to change.
 */
import { GitError } from '../git/git';
import { errorMessage } from '../../contract/errorMessage';
import type { ToolServerEndpoint } from '../../contract/toolServers';
import type { Params } from '../mcp/jsonRpc';
import type { CallToolResult, ListedTool } from '../mcp/protocol';
import { TOOL_BUDGET_MS, ToolError, type ToolContext } from './context';
import { problems } from './jsonSchema';
import { endpointTools, plainToolNames, type ToolDefinition } from './tools';

export interface ServedTool {
  listed: ListedTool;
  call(args: Params, context: ToolContext): Promise<CallToolResult>;
}

/** The tools of an endpoint by the names it gives them. */
export function toolTable(endpoint: ToolServerEndpoint, disabled: ReadonlySet<string>, log: (line: string) => void): Map<string, ServedTool> {
  const table = new Map<string, ServedTool>();
  // The 2026 endpoints' messages name the tools as those endpoints do.
  const speak = endpoint === 'v1' ? (text: string): string => text : plainToolNames;
  for (const entry of endpointTools(endpoint, disabled)) {
    entry.use((definition) => {
      const name = definition.name;
      table.set(name, {
        listed: {
          name,
          title: definition.title,
          description: definition.description,
          inputSchema: definition.input,
          outputSchema: definition.output,
          annotations: { title: definition.title, readOnlyHint: definition.readOnly, openWorldHint: false },
        },
        call: async (args, context) => {
          const result = await callTool(definition, name, args, context, log);
          // The first text block is the result itself (it may quote code); errors and notes are the engine's words.
          return { ...result, content: result.content.map((part, index) => (result.isError || index > 0 ? { ...part, text: speak(part.text) } : part)) };
        },
      });
    });
  }
  return table;
}

async function callTool<I, O>(
  definition: ToolDefinition<I, O>,
  name: string,
  args: Params,
  context: ToolContext,
  log: (line: string) => void,
): Promise<CallToolResult> {
  const wrong = problems(definition.input, args);
  if (wrong.length > 0) {
    return toolError(`MCP error -32602: Input validation error: Invalid arguments for tool ${name}: ${wrong.join('; ')}.`);
  }
  const budget = definition.budgeted ? AbortSignal.timeout(TOOL_BUDGET_MS) : undefined;
  const signal = budget ? AbortSignal.any([context.signal, budget]) : context.signal;
  try {
    // The check above is what makes the arguments an I.
    const output = await definition.run({ ...context, signal }, args as I);
    // The result is checked too, so that a client never gets one its output schema rejects.
    const unfit = problems(definition.output, output.structured);
    if (unfit.length > 0) {
      log(`mcp ${name}: result does not fit the output schema: ${unfit.join('; ')}`);
      return toolError(`MCP error -32602: Output validation error: Invalid structured content for tool ${name}: ${unfit.join('; ')}.`);
    }
    const content: CallToolResult['content'] = [{ type: 'text', text: output.text }];
    for (const note of output.notes ?? []) content.push({ type: 'text', text: note });
    return { content, structuredContent: output.structured as Record<string, unknown> };
  } catch (error) {
    if (budget?.aborted) {
      return toolError(
        `${name} took longer than ${TOOL_BUDGET_MS / 1000} s and was stopped: narrow the request (a repo: or file: filter, fewer repositories, a shorter date range, a smaller range).`,
      );
    }
    if (error instanceof ToolError) return toolError(error.message);
    const message = errorMessage(error);
    if (error instanceof GitError) {
      log(`mcp ${name}: git failed: ${message}`);
      return toolError(`${name} failed in git: ${message}. Check the arguments; the engine log has details.`);
    }
    log(`mcp ${name}: internal error: ${error instanceof Error && error.stack ? error.stack : message}`);
    return toolError(`${name} hit an internal engine error: ${message}. The engine log has details.`);
  }
}

export function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
