/**
 * The process launcher's helper process (processLauncher.ts): it starts the processes the engine
 * asks for, runs each to its end (output cap, timeout, kill on request) and sends back its output
 * and outcome over the IPC channel. It imports nothing of the engine's, so that it stays as small
 * as a bare Node.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { LaunchRequest, LauncherMessage, LauncherOutcome, LauncherRequest } from './processLauncher';

const stops = new Map<number, () => void>();

function tell(message: LauncherMessage): void {
  if (process.connected) process.send?.(message);
}

// The engine is gone: so is every process started for it.
process.on('disconnect', () => {
  for (const stop of stops.values()) stop();
  process.exit(0);
});
process.on('message', (message: LauncherRequest) => {
  if (message.kind === 'stop') {
    stops.get(message.id)?.();
    return;
  }
  run(message.id, message.request);
});

function run(id: number, request: LaunchRequest): void {
  let settled = false;
  let stdoutBytes = 0;
  let stderr = '';
  let truncated = false;
  // Set once the process starts: a start that fails finishes before it.
  let timer: NodeJS.Timeout | undefined = undefined;
  const finish = (outcome: LauncherOutcome): void => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    stops.delete(id);
    tell({ id, ...outcome });
  };
  let child: ChildProcess;
  try {
    child = spawn(request.command, request.args, {
      cwd: request.cwd,
      env: request.env,
      stdio: [request.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
  } catch (error) {
    const failure = error as NodeJS.ErrnoException | undefined;
    finish({ kind: 'start-failed', errno: failure?.code, message: String(failure?.message) });
    return;
  }
  const { stdin, stdout, stderr: errors } = child;
  // Stopping settles at once: a killed process may leave a grandchild holding the pipes.
  const stop = (kind: 'aborted' | 'timeout' | 'output-limit'): void => {
    child.kill('SIGKILL');
    stdout?.destroy();
    errors?.destroy();
    finish({ kind });
  };
  stops.set(id, () => stop('aborted'));
  timer = setTimeout(() => stop('timeout'), request.timeoutMs);
  if (request.input !== undefined) {
    // A process that exits without reading it all closes the pipe: not an error of ours.
    stdin?.on('error', () => undefined);
    stdin?.end(request.input);
  }
  // Output goes to the engine as it comes, a message per piece: one message of megabytes would be
  // gathered there by copying all of it again for every piece the channel reads.
  const pass = (chunk: Buffer): void => {
    if (chunk.length > 0) tell({ id, kind: 'data', chunk });
  };
  stdout?.on('data', (chunk: Buffer) => {
    if (truncated || settled) return;
    const room = request.maxOutputBytes - stdoutBytes;
    if (chunk.length <= room) {
      pass(chunk);
      stdoutBytes += chunk.length;
      return;
    }
    if (!request.truncate) {
      stop('output-limit');
      return;
    }
    pass(chunk.subarray(0, room));
    stdoutBytes += room;
    truncated = true;
    child.kill('SIGKILL');
  });
  errors?.on('data', (chunk: Buffer) => {
    if (stderr.length < request.stderrKeptBytes) stderr += chunk.toString('utf8');
  });
  child.on('error', (error: NodeJS.ErrnoException) => finish({ kind: 'start-failed', errno: error.code, message: error.message }));
  child.on('close', (code: number | null) => finish({ kind: 'exited', code, stderr, truncated }));
}
