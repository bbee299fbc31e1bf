/**
 * The engine as a child process of the extension (bundled as `dist/engineHosted.js`, started with
 * `child_process.fork`): it waits for its options on the IPC channel, says where it listens, sends
 * its log lines back, and stops cleanly (writes finished) when asked — or when the extension host
 * that started it goes away, so no engine outlives its VS Code window.
 */
import { isToEngineMessage, type FromEngineMessage, type HostedEngineOptions } from '../contract/engineProcess';
import type { InvestigationLimits } from '../contract/modelWire';
import type { RunningEngine } from './options';
// From the engine library's bundle, so that its model errors are the ones the investigation knows.
import { ModelBroker, startEngine } from './server';
import { errorMessage } from '../contract/errorMessage';

let engine: Promise<RunningEngine | undefined> | undefined;
let stopping = false;
/** The investigation's limits as the host last set them (read when a question starts). */
let investigationLimits: Partial<InvestigationLimits> = {};

function send(message: FromEngineMessage): boolean {
  if (!process.connected) return false;
  process.send?.(message);
  return true;
}

/** The model the host runs for the engine, if the user chose one. */
const models = new ModelBroker(send);

async function start(options: HostedEngineOptions): Promise<RunningEngine | undefined> {
  models.choose(options.model);
  investigationLimits = options.investigationLimits ?? {};
  try {
    const running = await startEngine({
      repos: options.repos,
      users: [{ token: options.token }],
      dataDir: options.dataDir,
      ...(options.ripgrepPath ? { ripgrepPath: options.ripgrepPath } : {}),
      log: (line) => void send({ type: 'log', line }),
      model: () => models.current(),
      investigationLimits: () => investigationLimits,
    });
    send({ type: 'listening', url: running.url, repoNames: running.repoNames });
    return running;
  } catch (error) {
    // By name: the engine library is a bundle of its own, with its own copy of the class.
    const usage = error instanceof Error && error.name === 'RepositoryError';
    send({ type: 'failed', message: errorMessage(error), usage });
    if (process.connected) process.disconnect();
    process.exitCode = 1;
    return undefined;
  }
}

async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  try {
    await (await engine)?.close();
    send({ type: 'stopped' });
  } finally {
    if (process.connected) process.disconnect();
    process.exit();
  }
}

if (!process.send) {
  process.stderr.write('This is the engine the Deep Search extension starts; run dist/engine.js to start one yourself.\n');
  process.exit(2);
}
process.on('message', (message: unknown) => {
  if (!isToEngineMessage(message)) return;
  if (message.type === 'start' && !engine) engine = start(message.options);
  else if (message.type === 'stop') void stop();
  else if (message.type === 'model') {
    models.choose(message.model ?? undefined);
    investigationLimits = message.investigationLimits ?? investigationLimits;
  } else if (message.type === 'modelReply') models.reply(message.id, message.turn, message.error);
});
// The extension host is gone (closed, crashed, killed): stop with it.
process.on('disconnect', () => {
  models.disconnected();
  void stop();
});
process.on('SIGTERM', () => void stop());
