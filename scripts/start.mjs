// `npm start`, the main job: builds the extension, installs a real VS Code if it is not there yet
// (code-server, cached in .vscode-test/), starts the local engine on this repository (a real git
// repository, so you can ask about the project's own code), installs the extension into that VS
// Code already pointed at the engine, and prints the URL to open.
//   npm start [-- --port <n>] [-- --repo <dir> …] [-- --pace <ms>]
//             [-- --cors-origin <origin> …] (a VS Code for the Web whose page may call the engine)
//             [-- --model-url <url> --model <name> [--model-key-env <VAR> | --model-key-file <path>]]
// (the --model… options are the engine CLI's: a model on an OpenAI-compatible server investigates)
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { installExtensionUnpacked, root, startVSCodeServer, vscodeTestDir, writeUserSettings } from './vscodeServer.mjs';

const args = process.argv.slice(2);
const option = (name) => args.flatMap((arg, index) => (arg === name ? [args[index + 1]] : [])).filter(Boolean);
const port = Number(option('--port')[0] ?? process.env.PORT ?? 8123);
const repos = option('--repo').map((dir) => resolve(dir));
if (repos.length === 0) repos.push(root);
const paceMs = Number(option('--pace')[0] ?? 400);

// The second run (below) finds both done.
if (process.env.DEEP_SEARCH_START_PREPARED !== '1') {
  step('Building', () => spawnSync(process.execPath, [join(root, 'esbuild.mjs')], { cwd: root, stdio: 'inherit' }));
  step('Setting up VS Code', () => spawnSync('bash', [join(root, 'scripts', 'setup-vscode.sh')], { stdio: 'inherit' }));
}

const { startEngine, ENGINE_ENVIRONMENT, parseEngineArgs, configuredModel } = createRequire(import.meta.url)(join(root, 'dist', 'engineServer.js'));
// The engine runs in this process: run it again with the environment the extension starts its
// engine with (set before the process starts, or the C library never reads it).
if (Object.entries(ENGINE_ENVIRONMENT).some(([name, value]) => process.env[name] !== value)) {
  const again = spawnSync(process.execPath, process.argv.slice(1), {
    stdio: 'inherit',
    env: { ...process.env, ...ENGINE_ENVIRONMENT, DEEP_SEARCH_START_PREPARED: '1' },
  });
  process.exit(again.status ?? 1);
}
// The model options, read and checked as the engine CLI reads them.
const parsed = parseEngineArgs(args);
if (parsed.kind === 'error') {
  console.error(parsed.message);
  process.exit(2);
}
const modelConfig = parsed.kind === 'run' ? parsed.config.model : undefined;
const configured = modelConfig ? await configuredModel(modelConfig) : undefined;
if (configured && 'problem' in configured) {
  console.error(configured.problem);
  process.exit(2);
}
const model = configured?.model;
const token = `dse_${randomBytes(16).toString('hex')}`;
const OAUTH_CLIENT_ID = 'deep-search-vscode';
/** Loopback (any port: VS Code in a browser, like this one) and VS Code's own links (desktop). */
const OAUTH_REDIRECT_URIS = [
  'http://127.0.0.1/callback',
  'vscode://deepsearch-team.deep-search-vscode/oauth-callback',
  'vscode-insiders://deepsearch-team.deep-search-vscode/oauth-callback',
];
const ripgrepPath = codeServerRipgrep();
const engine = await startEngine({
  repos,
  users: [{ token }],
  // The client an administrator would create for the extension, so Sign In's OAuth ways can be tried.
  oauth: { clients: [{ id: OAUTH_CLIENT_ID, name: 'Deep Search for VS Code', redirectUris: OAUTH_REDIRECT_URIS }] },
  dataDir: join(root, '.engine-data'),
  paceMs,
  ...(parsed.kind === 'run' && parsed.config.corsOrigins ? { corsOrigins: parsed.config.corsOrigins } : {}),
  log: (line) => console.log(`[engine] ${line}`),
  // The ripgrep of this VS Code answers the first searches while the engine's index builds, as in the extension.
  ...(ripgrepPath ? { ripgrepPath } : {}),
  ...(model ? { model: () => model, investigationLimits: modelConfig.limits } : {}),
});

const runDir = join(vscodeTestDir, 'start');
const extensionsDir = join(runDir, 'extensions');
mkdirSync(extensionsDir, { recursive: true });
await installExtensionUnpacked(extensionsDir);
await writeUserSettings(runDir, {
  'deepSearch.instanceUrl': engine.url,
  'deepSearch.oauth.clientId': OAUTH_CLIENT_ID,
  'workbench.startupEditor': 'none',
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'security.workspace.trust.enabled': false,
});
const server = await startVSCodeServer({
  runDir,
  port,
  extensionsDir,
  // Handed to this VS Code only; the extension moves the token into SecretStorage.
  env: { DEEP_SEARCH_LAUNCH_INSTANCE_URL: engine.url, DEEP_SEARCH_LAUNCH_TOKEN: token },
});

console.log(`
Deep Search is ready.

  Open VS Code:   ${server.url}/?folder=${encodeURIComponent(repos[0])}
  Engine:         ${engine.url} serving ${engine.repoNames.join(', ')}
  Answers:        ${model ? `investigated by ${model.label} (the question and the code it reads go there)` : "the engine's own (add -- --model-url <url> --model <name> to answer with a model)"}

In VS Code, open the Deep Search view in the activity bar (or press F1 and run
"Deep Search: Ask Deep Search") and ask, for example: "How does the poller back off after errors?"
To try signing in with OAuth: F1 → "Deep Search: Sign Out", then "Deep Search: Sign In" with
${engine.url} and "Sign in with your browser" (or "with a device code").
Press Ctrl+C here to stop.`);

let stopping = false;
const stop = async () => {
  if (stopping) process.exit(1);
  stopping = true;
  server.stop();
  await engine.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
server.child.on('exit', (code) => {
  if (stopping) return;
  console.error(`VS Code (code-server) stopped unexpectedly (exit ${code}); see ${join(runDir, 'server.log')}`);
  void engine.close().then(() => process.exit(1));
});

/** The ripgrep that code-server's VS Code ships (as `ripgrepInVSCode` finds it for the extension), if any. */
function codeServerRipgrep() {
  const appRoot = join(vscodeTestDir, 'node_modules', 'code-server', 'lib', 'vscode');
  const executable = process.platform === 'win32' ? 'rg.exe' : 'rg';
  return ['node_modules', 'node_modules.asar.unpacked']
    .flatMap((modules) => [
      join(appRoot, modules, '@vscode', 'ripgrep', 'bin', executable),
      join(appRoot, modules, '@vscode', 'ripgrep-universal', 'bin', `${process.platform}-${process.arch}`, executable),
    ])
    .find((candidate) => existsSync(candidate));
}

function step(what, run) {
  console.log(`--- ${what}`);
  const result = run();
  if (result.status !== 0) {
    console.error(`${what} failed.`);
    process.exit(result.status ?? 1);
  }
}
