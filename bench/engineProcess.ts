/**
 * The bundled engine (`dist/engine.js`, which `npm run bench` builds) in a process of its own,
 * started with the environment the extension starts it with: the one way every figure that needs
 * the engine as users run it starts and stops it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ENGINE_ENVIRONMENT } from '../src/contract/engineProcess';
import type { BenchContext } from './report';

/** Lines of the engine's log kept for a figure to read (its first ones matter: what it built). */
const MAX_KEPT_LINES = 100_000;
const START_TIMEOUT_MS = 60_000;

export interface EngineProcess {
  child: ChildProcess;
  url: string;
  /** Its log so far (stdout and stderr), one entry per line. */
  lines: string[];
  /** Its exit state and last lines, for a failure's message. */
  state(): string;
  /** Its resident memory, in bytes (Linux). */
  rss(): Promise<number>;
  /** SIGTERM, then SIGKILL if it has not exited within 30 s. */
  close(): Promise<void>;
}

/**
 * `args`: the engine CLI's arguments (after `dist/engine.js`); `env`: variables besides the
 * extension's (a model key's). Error lines of its log go to the bench log.
 */
export async function startEngineProcess(context: BenchContext, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<EngineProcess> {
  const child = spawn(process.execPath, [path.join(context.root, 'dist', 'engine.js'), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...ENGINE_ENVIRONMENT, ...env },
  });
  const lines: string[] = [];
  let url: string | undefined;
  let listening: (() => void) | undefined;
  const take = (stream: 'stdout' | 'stderr') => {
    let pending = '';
    return (chunk: Buffer): void => {
      pending += chunk.toString('utf8');
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      for (const line of parts) {
        if (lines.length < MAX_KEPT_LINES) lines.push(line);
        if (stream === 'stderr' && /error|fail/i.test(line)) context.log(`engine: ${line.slice(0, 300)}`);
        // The CLI's own line on stdout (the log line on stderr goes on with what it serves).
        const match = url === undefined && stream === 'stdout' ? /^Deep Search engine listening on (http:\/\/\S+)/.exec(line) : null;
        if (match?.[1]) {
          url = match[1];
          listening?.();
        }
      }
    };
  };
  child.stdout?.on('data', take('stdout'));
  child.stderr?.on('data', take('stderr'));
  const state = (): string => {
    const { exitCode, signalCode } = child;
    const running = exitCode === null && signalCode === null ? 'the engine still runs' : `the engine exited (code ${exitCode}, signal ${signalCode})`;
    return `${running}; its last lines: ${
      lines
        .slice(-8)
        .map((line) => line.slice(0, 300))
        .join(' | ') || 'none'
    }`;
  };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the engine did not say where it listens within 60 s: ${state()}`)), START_TIMEOUT_MS);
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`the engine did not start: ${state()}`));
    });
    listening = () => {
      clearTimeout(timer);
      resolve();
    };
  });
  return {
    child,
    url: url ?? '',
    lines,
    state,
    rss: async () => Number(/^VmRSS:\s+(\d+) kB/m.exec(await readFile(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? Number.NaN) * 1024,
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
