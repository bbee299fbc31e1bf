/**
 * The local engine as a child process (`dist/engineHosted.js`, forked on the extension host's own
 * Node): its memory and its git processes stay out of the extension host, which every other
 * extension shares. The token goes over the IPC channel, not the command line or environment.
 * No `vscode` import: the launcher (localEngine.ts) says things to the user.
 */
import { fork, type ChildProcess } from 'node:child_process';
import * as l10n from '@vscode/l10n';
import { ENGINE_ENVIRONMENT, isFromEngineMessage, type HostedEngineOptions, type ToEngineMessage } from '../../contract/engineProcess';
import type { InvestigationLimits, ModelDescription, ModelTurn, ModelTurnRequest } from '../../contract/modelWire';

/** The engine has this long to say where it listens (it reads the repositories first). */
const START_TIMEOUT_MS = 60_000;
/** A stop that takes longer (a hung write) ends with SIGKILL. */
const STOP_TIMEOUT_MS = 15_000;
/** Lines of the engine's stderr kept for the message when it fails (a crash's stack). */
const STDERR_LINES_KEPT = 20;

/** Runs the engine's model turns on the model the user chose (VS Code's language models). */
export interface EngineModelRunner {
  turn(request: ModelTurnRequest, signal: AbortSignal): Promise<ModelTurn>;
}

/** Model turns the engine may have waiting at once (one per answer being investigated, and some). */
const MAX_MODEL_TURNS = 16;

export interface EngineProcessOptions {
  /** The engine's child-process bundle. */
  script: string;
  engine: HostedEngineOptions;
  /** Who runs the engine's model turns; without it, each is answered with an error. */
  models?: EngineModelRunner;
  /** The engine's log lines and its stderr (`warn`). */
  log(line: string, level: 'info' | 'warn'): void;
  startTimeoutMs?: number;
}

/** Why the engine did not start or why it ended: what the user reads. */
export class EngineProcessError extends Error {
  constructor(
    message: string,
    /** The repositories were refused (not git repositories): starting again will not help. */
    readonly usage = false,
  ) {
    super(message);
    this.name = 'EngineProcessError';
  }
}

export class EngineProcess {
  private stopping: Promise<void> | undefined;
  private exitListener: ((reason: string) => void) | undefined;
  private readonly exited: Promise<void>;

  /** Model turns under way for the engine, by its id for them. */
  private readonly turns = new Map<number, AbortController>();

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
    readonly repoNames: string[],
    private readonly stderrTail: string[],
    models: EngineModelRunner | undefined,
  ) {
    child.on('message', (message: unknown) => {
      if (!isFromEngineMessage(message)) return;
      if (message.type === 'modelTurn') this.runTurn(message.id, message.request, models);
      else if (message.type === 'modelCancel') this.turns.get(message.id)?.abort();
    });
    this.exited = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('exit', () => resolve());
    });
    child.once('exit', (code, signal) => {
      for (const turn of this.turns.values()) turn.abort();
      if (!this.stopping) this.exitListener?.(exitReason(code, signal, this.stderrTail));
    });
    // A message sent as it dies (EPIPE) ends in 'error': its exit is what counts, reported above.
    child.on('error', () => undefined);
  }

  /** Forks the engine and resolves once it listens; rejects with what went wrong otherwise. */
  static start(options: EngineProcessOptions): Promise<EngineProcess> {
    const child = fork(options.script, [], {
      execArgv: [],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'json',
      // On desktop VS Code the extension host's executable is Electron: run it as Node.
      env: { ...process.env, ...ENGINE_ENVIRONMENT, ELECTRON_RUN_AS_NODE: '1' },
    });
    const stderrTail: string[] = [];
    child.stderr?.setEncoding('utf8');
    let partial = '';
    child.stderr?.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        options.log(line, 'warn');
        stderrTail.push(line.slice(0, 500));
        if (stderrTail.length > STDERR_LINES_KEPT) stderrTail.shift();
      }
    });
    child.on('message', (message: unknown) => {
      if (isFromEngineMessage(message) && message.type === 'log') options.log(message.line, 'info');
    });
    return new Promise<EngineProcess>((resolve, reject) => {
      const timer = setTimeout(() => {
        finish();
        child.kill('SIGKILL');
        reject(new EngineProcessError(l10n.t('The local engine did not start within {0} s.', Math.round((options.startTimeoutMs ?? START_TIMEOUT_MS) / 1000))));
      }, options.startTimeoutMs ?? START_TIMEOUT_MS);
      const onMessage = (message: unknown): void => {
        if (!isFromEngineMessage(message)) return;
        if (message.type === 'listening') {
          finish();
          resolve(new EngineProcess(child, message.url, message.repoNames, stderrTail, options.models));
        } else if (message.type === 'failed') {
          finish();
          reject(new EngineProcessError(message.message, message.usage));
        }
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
        finish();
        reject(new EngineProcessError(l10n.t('The local engine {0} before it started.', exitReason(code, signal, stderrTail))));
      };
      const onError = (error: Error): void => {
        finish();
        reject(new EngineProcessError(l10n.t('The local engine could not be started: {0}', error.message)));
      };
      const finish = (): void => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        child.off('error', onError);
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.once('error', onError);
      const start: ToEngineMessage = { type: 'start', options: options.engine };
      child.send(start);
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Tells the engine which model it now has (none: it answers on its own) and how far it may go. */
  chooseModel(model: ModelDescription | undefined, investigationLimits: Partial<InvestigationLimits>): void {
    this.send({ type: 'model', model: model ?? null, investigationLimits });
  }

  private send(message: ToEngineMessage): void {
    if (this.running && this.child.connected) this.child.send(message);
  }

  private runTurn(id: number, request: ModelTurnRequest, models: EngineModelRunner | undefined): void {
    if (!models || this.turns.size >= MAX_MODEL_TURNS || this.turns.has(id)) {
      this.send({ type: 'modelReply', id, error: models ? `More than ${MAX_MODEL_TURNS} model turns at once.` : 'This editor runs no model for the engine.' });
      return;
    }
    const controller = new AbortController();
    this.turns.set(id, controller);
    models
      .turn(request, controller.signal)
      .then(
        (turn) => {
          if (!controller.signal.aborted) this.send({ type: 'modelReply', id, turn });
        },
        (error: unknown) => {
          if (!controller.signal.aborted) this.send({ type: 'modelReply', id, error: (error instanceof Error ? error.message : String(error)).slice(0, 2000) });
        },
      )
      .finally(() => this.turns.delete(id));
  }

  /** Called once if the engine ends without being asked to, with what happened ("was killed by SIGKILL"). */
  onUnexpectedExit(listener: (reason: string) => void): void {
    this.exitListener = listener;
  }

  /** Asks the engine to stop (it finishes its writes) and waits until it has; SIGKILL if it hangs. */
  stop(timeoutMs = STOP_TIMEOUT_MS): Promise<void> {
    this.stopping ??= (async () => {
      if (!this.running) return;
      const stop: ToEngineMessage = { type: 'stop' };
      if (this.child.connected) this.child.send(stop);
      else this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
      await this.exited;
      clearTimeout(timer);
    })();
    return this.stopping;
  }
}

function exitReason(code: number | null, signal: NodeJS.Signals | null, stderrTail: readonly string[]): string {
  const how = signal ? l10n.t('was stopped by {0}', signal) : l10n.t('exited with code {0}', code ?? l10n.t('unknown'));
  const last = stderrTail
    .filter((line) => line.trim() !== '')
    .slice(-3)
    .join(' ');
  return last ? l10n.t('{0} ({1})', how, last.slice(0, 300)) : how;
}
