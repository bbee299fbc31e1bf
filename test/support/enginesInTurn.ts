/**
 * Runs engines one after another in a process that has nothing else to do, as the answer-quality
 * bench does:
 *   node --require tsx/cjs test/support/enginesInTurn.ts '<EngineOptions as JSON>' <count>
 * Each engine runs a search that starts its regular-expression worker and its process launcher,
 * then closes; the script prints `closed <n>` after each close and `done` at the end. A close that
 * waits on something the process does not keep alive ends the process early, without those lines.
 */
import type { EngineOptions } from '../../src/engine/options';
import { startEngine } from '../../src/engine/server';
import { callEngineTool } from './toolCalls';

const options = JSON.parse(process.argv[2] ?? '{}') as EngineOptions;
const count = Number(process.argv[3] ?? '2');
const token = options.users[0]?.token ?? '';

async function search(url: string, query: string): Promise<void> {
  const reply = await callEngineTool(url, token, 'sg_keyword_search', { query });
  if (reply.status !== 200 || !reply.result || reply.result.isError)
    throw new Error(`the search failed: ${reply.status} ${JSON.stringify(reply.result ?? {}).slice(0, 300)}`);
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
