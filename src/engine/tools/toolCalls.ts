/**
 * A tool call as every caller makes it — the tool server's clients (through `mcp/server.ts`, which
 * wraps the result into MCP's content parts) and the engine's own investigation
 * (answers/investigation.ts), which reads it natively: the arguments checked against the tool's
 * schema, a time budget, the result checked against its output schema, and every failure a
 * `ToolFailure` whose message says what to change.
 */
import { GitError } from '../git/git';
import { errorMessage } from '../../contract/errorMessage';
import type { ToolServerEndpoint } from '../../contract/toolServers';
import { TOOL_BUDGET_MS, ToolError, type FileRead, type ToolContext } from '../repo/context';
import { problems, type JsonSchema } from './jsonSchema';
import { toolNamer } from '../messages/toolNames';
import { endpointTools, type ToolDefinition } from './tools';

/** A tool's arguments, as a caller sends them (checked against its input schema before it runs). */
export type ToolArguments = Record<string, unknown>;

/** What a tool is, as a catalogue lists it. */
export interface ToolDescription {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: { title: string; readOnlyHint: boolean; openWorldHint: boolean };
}

/** Why a call gave no result: its arguments or its output did not fit the schema, or it failed. */
export interface ToolFailure {
  kind: 'arguments' | 'output' | 'failed';
  message: string;
}

export type ToolResult =
  { ok: true; text: string; notes: string[]; structured: Record<string, unknown>; filesRead: FileRead[] } | { ok: false; failure: ToolFailure };

/** What a caller brings to a call: the tool table adds how its endpoint names the tools. */
export type CallerContext = Omit<ToolContext, 'toolName'>;

export interface ServedTool {
  listed: ToolDescription;
  call(args: ToolArguments, context: CallerContext): Promise<ToolResult>;
}

/** The tools of an endpoint by the names it gives them. */
export function toolTable(endpoint: ToolServerEndpoint, disabled: ReadonlySet<string>, log: (line: string) => void): Map<string, ServedTool> {
  const table = new Map<string, ServedTool>();
  // The tools' messages and notes name other tools as this endpoint does.
  const toolName = toolNamer(endpoint);
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
        call: (args, context) => callTool(definition, name, args, { ...context, toolName }, log),
      });
    });
  }
  return table;
}

async function callTool<I, O>(
  definition: ToolDefinition<I, O>,
  name: string,
  args: ToolArguments,
  context: ToolContext,
  log: (line: string) => void,
): Promise<ToolResult> {
  const wrong = problems(definition.input, args);
  if (wrong.length > 0) return failed('arguments', `Invalid arguments for tool ${name}: ${wrong.join('; ')}.`);
  const budget = definition.budgeted ? AbortSignal.timeout(TOOL_BUDGET_MS) : undefined;
  const signal = budget ? AbortSignal.any([context.signal, budget]) : context.signal;
  try {
    // The check above is what makes the arguments an I.
    const output = await definition.run({ ...context, signal }, args as I);
    // The result is checked too, so that a client never gets one its output schema rejects.
    const unfit = problems(definition.output, output.structured);
    if (unfit.length > 0) {
      log(`mcp ${name}: result does not fit the output schema: ${unfit.join('; ')}`);
      return failed('output', `Invalid structured content for tool ${name}: ${unfit.join('; ')}.`);
    }
    return {
      ok: true,
      text: output.text,
      notes: output.notes ?? [],
      structured: output.structured as Record<string, unknown>,
      filesRead: output.filesRead ?? [],
    };
  } catch (error) {
    if (budget?.aborted) {
      return failed(
        'failed',
        `${name} took longer than ${TOOL_BUDGET_MS / 1000} s and was stopped: narrow the request (a repo: or file: filter, fewer repositories, a shorter date range, a smaller range).`,
      );
    }
    if (error instanceof ToolError) return failed('failed', error.message);
    const message = errorMessage(error);
    if (error instanceof GitError) {
      log(`mcp ${name}: git failed: ${message}`);
      return failed('failed', `${name} failed in git: ${message}. Check the arguments; the engine log has details.`);
    }
    log(`mcp ${name}: internal error: ${error instanceof Error && error.stack ? error.stack : message}`);
    return failed('failed', `${name} hit an internal engine error: ${message}. The engine log has details.`);
  }
}

function failed(kind: ToolFailure['kind'], message: string): ToolResult {
  return { ok: false, failure: { kind, message } };
}
