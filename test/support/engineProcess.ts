/**
 * Runs an engine in a child process (so a test can kill it with SIGKILL mid-write):
 *   node --require tsx/cjs test/support/engineProcess.ts '<EngineOptions as JSON>'
 * Prints the engine's URL on its first line of output once it listens.
 */
import type { EngineOptions } from '../../src/engine/options';
import { startEngine } from '../../src/engine/server';

const options = JSON.parse(process.argv[2] ?? '{}') as EngineOptions;
startEngine(options).then(
  (engine) => process.stdout.write(`${engine.url}\n`),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
