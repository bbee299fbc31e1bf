/**
 * The process launcher (processLauncher.ts): the engine's git and ripgrep processes start from a
 * small helper process, which must not outlive the engine that started it.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from '../../../support/engineHarness';
import { isAlive } from '../../../support/processes';

const run = promisify(execFile);
const LAUNCHER = path.resolve(__dirname, '../../../../src/engine/git/processLauncher.ts');

/** The processes whose parent is `pid`, with their command lines. */
async function childrenOf(pid: number): Promise<Array<{ pid: number; args: string }>> {
  const { stdout } = await run('ps', ['-e', '-o', 'pid=,ppid=,args=']);
  return stdout.split('\n').flatMap((line) => {
    const match = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line);
    return match && Number(match[2]) === pid ? [{ pid: Number(match[1]), args: match[3] ?? '' }] : [];
  });
}

describe('engine: process launcher', function () {
  this.timeout(30_000);

  it('runs a process from a helper process of its own, which exits when the engine does, ending what it still runs', async function () {
    // An "engine": a Node process that starts a long sleep, launches `git --version`, says so, and waits to be killed.
    const script = `
      const launcher = new (require(${JSON.stringify(LAUNCHER)}).ProcessLauncher)();
      void launcher.launch({ command: 'sleep', args: ['60'], cwd: process.cwd(), env: process.env, timeoutMs: 120000, maxOutputBytes: 4096, truncate: false, stderrKeptBytes: 1024 });
      launcher.launch({ command: 'git', args: ['--version'], cwd: process.cwd(), env: process.env, timeoutMs: 10000, maxOutputBytes: 4096, truncate: false, stderrKeptBytes: 1024 })
        .then((outcome) => { process.stdout.write(JSON.stringify({ kind: outcome.kind, stdout: outcome.stdout && outcome.stdout.toString() }) + '\\n'); setInterval(() => undefined, 1000); });
    `;
    const engine = spawn(process.execPath, ['--import', 'tsx', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const said = await new Promise<string>((resolve, reject) => {
        engine.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString()));
        engine.once('exit', (code) => reject(new Error(`the engine exited (${code})`)));
      });
      const outcome = JSON.parse(said) as { kind: string; stdout: string };
      assert.equal(outcome.kind, 'exited');
      assert.match(outcome.stdout, /^git version /);
      const helpers = (await childrenOf(engine.pid ?? -1)).filter((child) => child.args.includes('processLauncherChild'));
      assert.equal(helpers.length, 1, `one helper process: ${JSON.stringify(helpers)}`);
      const helper = helpers[0]?.pid ?? -1;
      const sleeping = (await childrenOf(helper)).filter((child) => child.args === 'sleep 60');
      assert.equal(sleeping.length, 1, 'the helper runs the sleep');
      const sleep = sleeping[0]?.pid ?? -1;
      engine.kill('SIGKILL');
      await waitFor(
        () => Promise.resolve(isAlive(helper)),
        (living) => !living,
        { description: 'the helper to exit', timeoutMs: 10_000 },
      );
      await waitFor(
        () => Promise.resolve(isAlive(sleep)),
        (living) => !living,
        { description: 'the sleep to end', timeoutMs: 10_000 },
      );
    } finally {
      engine.kill('SIGKILL');
    }
  });
});
