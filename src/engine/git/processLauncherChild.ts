/**
 * The process launcher's helper process (processLauncher.ts): it starts the processes the engine
 * asks for, runs each to its end within its bounds (runtime/boundedProcess.ts: output cap, timeout,
 * kill on request) and sends back its output and outcome over the IPC channel. It imports nothing
 * of the engine's but that runner, so that it stays as small as a bare Node.
 */
import { runBounded } from '../runtime/boundedProcess';
import type { LauncherMessage, LauncherRequest, LaunchRequest } from './processLauncher';

const stops = new Map<number, AbortController>();

function tell(message: LauncherMessage): void {
  if (process.connected) process.send?.(message);
}

// The engine is gone: so is every process started for it.
process.on('disconnect', () => {
  for (const stop of stops.values()) stop.abort();
  process.exit(0);
});
process.on('message', (message: LauncherRequest) => {
  if (message.kind === 'stop') {
    stops.get(message.id)?.abort();
    return;
  }
  void run(message.id, message.request);
});

async function run(id: number, request: LaunchRequest): Promise<void> {
  const stop = new AbortController();
  stops.set(id, stop);
  // Output goes to the engine as it comes, a message per piece: one message of megabytes would be
  // gathered there by copying all of it again for every piece the channel reads.
  const outcome = await runBounded(request, { signal: stop.signal, onOutput: (chunk) => tell({ id, kind: 'data', chunk }) });
  stops.delete(id);
  if (outcome.kind !== 'exited') tell({ id, ...outcome });
  else tell({ id, kind: 'exited', code: outcome.code, stderr: outcome.stderr, truncated: outcome.truncated });
}
