/**
 * Runs engines one after another in a process that has nothing else to do, as the answer-quality
 * bench does:
 *   node --require tsx/cjs test/support/enginesInTurn.ts '<EngineOptions as JSON>' <count>
 * Each engine runs a search that starts its regular-expression worker and its process launcher,
 * then closes; the script prints `closed <n>` after each close and `done` at the end. A close that
 * waits on something the process does not keep alive ends the process early, without those lines.
 */
import { MCP_PATH } from '../../src/contract/legacyWire';
import type { EngineOptions } from '../../src/engine/options';
import { startEngine } from '../../src/engine/server';

const options = JSON.parse(process.argv[2] ?? '{}') as EngineOptions;
const count = Number(process.argv[3] ?? '2');
const token = options.users[0]?.token ?? '';

async function search(url: string, query: string): Promise<void> {
  const response = await fetch(`${url}${MCP_PATH}`, {
    method: 'POST',
    headers: {
      Authorization: `token ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2025-03-26',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'sg_keyword_search', arguments: { query } } }),
  });
  const reply = (await response.json()) as { result?: { isError?: boolean } };
  if (response.status !== 200 || !reply.result || reply.result.isError)
    throw new Error(`the search failed: ${response.status} ${JSON.stringify(reply).slice(0, 300)}`);
}

async function main(): Promise<void> {
  for (let n = 1; n <= count; n++) {
    const engine = await startEngine({ ...options, dataDir: `${options.dataDir}-${n}` });
    // A file: filter runs in the regular-expression worker; the search runs git through the launcher.
    await search(engine.url, 'parseConfig file:\\.ts$');
    if (!engine.owned.regex.running || engine.owned.launcher.pid === undefined) throw new Error('the worker or the launcher did not start');
    await engine.close();
    process.stdout.write(`closed ${n}\n`);
  }
  process.stdout.write('done\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
