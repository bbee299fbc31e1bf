/**
 * Worker-thread entry of the engine API figure: runs the simulated clients with the options it was
 * given and posts their results back, so the load has its own event loop apart from the engine's.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runClients, type ClientsOptions } from './engineApiClients';

runClients(workerData as ClientsOptions).then(
  (result) => parentPort?.postMessage({ ok: true, result }),
  (error: unknown) => parentPort?.postMessage({ ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
);
