/** One `tools/call` over an engine's tool server (the 2025 handshake's lane), as an MCP client sends it. */
import { MCP_PATH } from '../../src/contract/legacyWire';

export interface ToolCallReply {
  status: number;
  /** The JSON-RPC result, when the call had one. */
  result?: { isError?: boolean; content?: Array<{ type: string; text?: string }> };
}

export async function callEngineTool(url: string, token: string, name: string, args: Record<string, unknown>): Promise<ToolCallReply> {
  const response = await fetch(`${url}${MCP_PATH}`, {
    method: 'POST',
    headers: {
      Authorization: `token ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2025-03-26',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  const reply = (await response.json().catch(() => ({}))) as { result?: ToolCallReply['result'] };
  return { status: response.status, ...(reply.result ? { result: reply.result } : {}) };
}
