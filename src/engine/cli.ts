/**
 * `deep-search-engine` (bundled as `dist/engine.js`): starts the local engine from the command line,
 * prints where it listens and how to authenticate, and stops cleanly on SIGINT or SIGTERM.
 */
import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import * as path from 'node:path';
import { API_PATH } from '../contract/legacyWire';
import { CONNECT_SERVICE_PATH } from '../contract/connectWire';
import { TOOL_SERVER_ENDPOINTS } from '../contract/toolServers';
import { parseArgs, USAGE, type CliConfig } from './cliArgs';
import type { ChatModel } from './models/chatModel';
import { configuredModel } from './models/configuredModel';
import { discoverRepositories, RepositoryError } from './git/repos';
import { servedToolEndpoints, startEngine } from './server';
import { errorMessage } from '../contract/errorMessage';

const EXIT_USAGE = 2;
/** The MCP revisions each `--tool-protocol` speaks, as the banner says them. */
const MCP_REVISIONS = { '2025': '2025-11-25 and earlier', '2026': '2026-07-28', both: '2026-07-28 and 2025-11-25' } as const;

async function main(argv: readonly string[]): Promise<void> {
  const command = parseArgs(argv);
  if (command.kind === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (command.kind === 'error') {
    process.stderr.write(`${command.message}\n\n${USAGE}\n`);
    process.exitCode = EXIT_USAGE;
    return;
  }
  const { config } = command;
  // The model first: its key leaves the environment as it is read (configuredModel.ts), before the
  // engine starts any process (git, below) that would inherit it.
  let model: ChatModel | undefined;
  if (config.model) {
    const configured = await configuredModel(config.model);
    if ('problem' in configured) {
      process.stderr.write(`${configured.problem}\n\n${configured.usage ? `${USAGE}\n` : ''}`);
      process.exitCode = configured.usage ? EXIT_USAGE : 1;
      return;
    }
    for (const warning of configured.warnings) process.stderr.write(`${warning}\n`);
    model = configured.model;
  }
  const repos = config.repos.length > 0 ? config.repos : await currentDirectoryRepo();
  if (!repos) {
    process.stderr.write(`No --repo given and ${process.cwd()} is not a git repository.\n\n${USAGE}\n`);
    process.exitCode = EXIT_USAGE;
    return;
  }
  const ripgrepPath = config.ripgrepPath === undefined ? undefined : path.resolve(config.ripgrepPath);
  if (
    ripgrepPath !== undefined &&
    !(await stat(ripgrepPath).then(
      (info) => info.isFile(),
      () => false,
    ))
  ) {
    process.stderr.write(`--ripgrep ${ripgrepPath} is not a file: give the path of a ripgrep executable (rg), or leave the option out.\n\n${USAGE}\n`);
    process.exitCode = EXIT_USAGE;
    return;
  }
  await run({ ...config, ripgrepPath }, repos, model);
}

async function currentDirectoryRepo(): Promise<string[] | undefined> {
  try {
    await discoverRepositories([process.cwd()]);
    return [process.cwd()];
  } catch (error) {
    if (error instanceof RepositoryError) return undefined;
    throw error;
  }
}

async function run(config: CliConfig, repos: string[], model: ChatModel | undefined): Promise<void> {
  const generated = config.tokens.length === 0 ? `dse_${randomBytes(16).toString('hex')}` : undefined;
  const tokens = generated ? [generated] : config.tokens;
  const dataDir = path.resolve(config.dataDir);
  let engine;
  try {
    engine = await startEngine({
      repos,
      users: tokens.map((token) => ({ token, ...(config.scopes ? { scopes: config.scopes } : {}) })),
      dataDir,
      port: config.port,
      sharing: config.sharing,
      paceMs: config.paceMs,
      limits: config.limits,
      oauth: config.oauth ? { clients: config.oauthClients } : false,
      ripgrepPath: config.ripgrepPath,
      ...(config.corsOrigins ? { corsOrigins: config.corsOrigins } : {}),
      ...(config.indexBudgetBytes !== undefined ? { indexBudgetBytes: config.indexBudgetBytes } : {}),
      variant: {
        ...(config.conversationApis ? { conversationApis: config.conversationApis } : {}),
        ...(config.toolServer ? { toolServer: config.toolServer } : {}),
        ...(config.toolProtocol ? { toolProtocol: config.toolProtocol } : {}),
        ...(config.disabledTools ? { disabledTools: config.disabledTools } : {}),
      },
      log: (line) => process.stderr.write(`${line}\n`),
      ...(model ? { model: () => model, investigationLimits: config.model?.limits } : {}),
    });
  } catch (error) {
    process.stderr.write(`Could not start the engine: ${errorMessage(error)}\n`);
    process.exitCode = error instanceof RepositoryError ? EXIT_USAGE : 1;
    return;
  }
  const lines = [
    `Deep Search engine listening on ${engine.url}`,
    ...(config.conversationApis === 'connect' ? [] : [`Conversation API: ${engine.url}${API_PATH}`]),
    ...(config.conversationApis === 'legacy' ? [] : [`Conversation API (Connect): ${engine.url}${CONNECT_SERVICE_PATH}`]),
    ...servedToolEndpoints(config.toolServer ?? 'both')
      .slice(0, 1)
      .map((endpoint) => `Tool server (MCP ${MCP_REVISIONS[config.toolProtocol ?? 'both']}): ${engine.url}${TOOL_SERVER_ENDPOINTS[endpoint]}`),
    `Repositories: ${engine.repoNames.join(', ')}`,
    `Data: ${dataDir}`,
    `Answers: ${model ? `investigated by ${model.label} with the engine's tools (the question and the code it reads go to that server)` : "the engine's own (no --model-url)"}`,
  ];
  if (config.corsOrigins) lines.push(`Web origins allowed (CORS): ${config.corsOrigins.join(' ')}`);
  if (generated) lines.push(`Access token (generated for this run): ${generated}`);
  if (config.scopes) lines.push(`Token scopes: ${config.scopes.join(', ') || 'none'} (other requests are refused with a 403)`);
  process.stdout.write(`${lines.join('\n')}\n`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      process.stderr.write(`Received ${signal} again: exiting without waiting.\n`);
      process.exit(1);
    }
    stopping = true;
    process.stderr.write(`Received ${signal}: stopping…\n`);
    engine.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`Error while stopping: ${errorMessage(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
