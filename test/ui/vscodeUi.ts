/**
 * UI tests drive a real VS Code (code-server from .vscode-test/) in real Chromium, the way a user
 * does: the extension is installed as a user would have it, pointed at a local engine serving a
 * workspace that is a real git repository. Screenshots go to test-results/ui/.
 */
import { cp, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { EngineFaults, EngineVariant, RunningEngine } from '../../src/engine/options';
import { startEngine } from '../../src/engine/server';
import type { OAuthOptions } from '../../src/engine/oauth/authorizationServer';
import type { ConversationRecord } from '../../src/engine/conversations/records';
import { BILLING_NAME } from '../host/billingRepo';
import { createBillingRepo, HOST_TEST_TOKEN, prepareWorkspace } from '../host/fixtures';
import { SAMPLE_APP_NAME } from '../support/gitRepos';
import { storeConversations } from '../support/storedConversations';
import { WorkbenchPage } from './workbenchPage';

interface VSCodeServer {
  url: string;
  stop(): void;
}

interface ServerScripts {
  root: string;
  chromiumArgs: string[];
  newRunFolder(label: string): string;
  freePort(): Promise<number>;
  startVSCodeServer(options: { runDir: string; port: number; extensionsDir?: string; env?: Record<string, string> }): Promise<VSCodeServer>;
  installExtensionUnpacked(extensionsDir: string): Promise<string>;
  writeUserSettings(runDir: string, settings: Record<string, unknown>): Promise<void>;
}

export const SCREENSHOTS = path.join(__dirname, '..', '..', 'test-results', 'ui');

export interface LaunchOptions {
  /** The engine's pace between answer steps. */
  paceMs: number;
  /** User settings on top of the harness's own (instance URL, no start page…). */
  settings?: Record<string, unknown>;
  /** The engine's log lines (one per request), for benchmarks that count requests. */
  engineLog?: (line: string) => void;
  /** Conversations in the engine's data folder before it starts (answers no repository would give). */
  storedConversations?: ConversationRecord[];
  /** A server generation other than the engine's default (e.g. one without a tool server). */
  variant?: EngineVariant;
  /** The engine's OAuth server (pre-registered clients, lifetimes); default: on, nothing registered. */
  oauth?: OAuthOptions;
  /** False: VS Code starts signed out (the launch token is not given). Default true. */
  signedIn?: boolean;
  /** Faults the engine applies (requests refused, questions failing), to test recovery through the UI. */
  faults?: EngineFaults;
  /** Folders of other extensions installed beside this one (test fixtures, such as a model provider). */
  extensions?: string[];
}

export class VSCodeUi extends WorkbenchPage {
  private constructor(
    page: Page,
    readonly workspace: string,
    readonly repoName: string,
    /** A repository the engine serves that the workspace does not hold. */
    readonly remoteRepoName: string,
    private readonly browser: Browser,
    private readonly server: VSCodeServer,
    readonly engine: RunningEngine,
    private readonly changeSettings: (settings: Record<string, unknown>) => Promise<void>,
  ) {
    super(page, SCREENSHOTS);
  }

  /** Starts engine, VS Code and Chromium; resolves once the workbench has loaded its extensions. */
  static async launch(options: LaunchOptions): Promise<VSCodeUi> {
    const scripts = (await import(path.join(__dirname, '..', '..', 'scripts', 'vscodeServer.mjs'))) as ServerScripts;
    const runDir = scripts.newRunFolder('ui');
    const workspace = path.join(runDir, 'workspace');
    const extensionsDir = path.join(runDir, 'extensions');
    // Steps that share nothing run at once: Chromium starts, and the extensions are laid out, while
    // the repositories are made and the engine starts; VS Code starts once the engine's URL is known.
    const browsing = chromium.launch({ executablePath: '/usr/bin/chromium', args: scripts.chromiumArgs }).then(async (browser) => {
      const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      return { browser, context, page: await context.newPage() };
    });
    const installing = (async () => {
      await scripts.installExtensionUnpacked(extensionsDir);
      for (const folder of options.extensions ?? []) {
        const manifest = JSON.parse(await readFile(path.join(folder, 'package.json'), 'utf8')) as { publisher: string; name: string; version: string };
        await cp(folder, path.join(extensionsDir, `${manifest.publisher}.${manifest.name}-${manifest.version}`), { recursive: true });
      }
    })();
    const starting = (async () => {
      await mkdir(workspace, { recursive: true });
      const dataDir = await mkdtemp(path.join(runDir, 'engine-'));
      const [, billing] = await Promise.all([
        prepareWorkspace(workspace),
        // A repository the workspace does not hold: its files open as remote documents.
        createBillingRepo(),
        storeConversations(dataDir, options.storedConversations ?? []),
      ]);
      return startEngine({
        repos: [workspace, billing.dir],
        users: [{ token: HOST_TEST_TOKEN }],
        dataDir,
        paceMs: options.paceMs,
        variant: options.variant,
        log: options.engineLog,
        faults: options.faults,
        ...(options.oauth ? { oauth: options.oauth } : {}),
      });
    })();
    // When a step fails, what the others started is closed: nothing is left running.
    const settled = Promise.allSettled([browsing, installing, starting]);
    let server: VSCodeServer | undefined;
    try {
      const engine = await starting;
      const baseSettings = {
        'deepSearch.instanceUrl': engine.url,
        'workbench.startupEditor': 'none',
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
        'workbench.tips.enabled': false,
      };
      const changeSettings = (settings: Record<string, unknown>) => scripts.writeUserSettings(runDir, { ...baseSettings, ...settings });
      await changeSettings(options.settings ?? {});
      await installing;
      server = await scripts.startVSCodeServer({
        runDir,
        port: await scripts.freePort(),
        extensionsDir,
        env: options.signedIn === false ? {} : { DEEP_SEARCH_LAUNCH_INSTANCE_URL: engine.url, DEEP_SEARCH_LAUNCH_TOKEN: HOST_TEST_TOKEN },
      });
      const { browser, context, page } = await browsing;
      return await VSCodeUi.open(page, context, workspace, browser, server, engine, changeSettings);
    } catch (error) {
      server?.stop();
      const [browser, , engine] = await settled;
      await Promise.all([
        browser.status === 'fulfilled' ? browser.value.browser.close() : undefined,
        engine.status === 'fulfilled' ? engine.value.close() : undefined,
      ]);
      throw error;
    }
  }

  /** Opens the workspace in VS Code; resolves once the workbench has loaded its extensions. */
  private static async open(
    page: Page,
    context: BrowserContext,
    workspace: string,
    browser: Browser,
    server: VSCodeServer,
    engine: RunningEngine,
    changeSettings: (settings: Record<string, unknown>) => Promise<void>,
  ): Promise<VSCodeUi> {
    const ui = new VSCodeUi(page, workspace, SAMPLE_APP_NAME, BILLING_NAME, browser, server, engine, changeSettings);
    // Every browser tab VS Code opens (links, Open in Browser) is counted.
    context.on('page', (opened) => ui.openedTabs.push(opened));
    await page.goto(`${server.url}/?folder=${encodeURIComponent(workspace)}`);
    await page.waitForFunction(() => performance.getEntriesByName('code/didLoadExtensions').length > 0, null, { timeout: 90_000 });
    await mkdir(SCREENSHOTS, { recursive: true });
    return ui;
  }

  /** Rewrites the user settings (the harness's own plus these), for the next window. */
  setSettings(settings: Record<string, unknown>): Promise<void> {
    return this.changeSettings(settings);
  }

  /**
   * Writes the workspace's `.vscode/settings.json`, which VS Code watches (a running window applies
   * it at once; the user settings file is only read at start here).
   */
  async setWorkspaceSettings(settings: Record<string, unknown>): Promise<void> {
    await mkdir(path.join(this.workspace, '.vscode'), { recursive: true });
    await writeFile(path.join(this.workspace, '.vscode', 'settings.json'), JSON.stringify(settings, null, 2));
  }

  async close(): Promise<void> {
    this.server.stop();
    await Promise.all([this.browser.close(), this.engine.close()]);
  }
}
