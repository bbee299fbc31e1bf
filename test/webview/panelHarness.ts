/**
 * Runs the conversation panel's real page (HTML from `panelHtml`, strict CSP, the real bundle and
 * stylesheets) in real Chromium, served from a small loopback HTTP server, with a stand-in for the
 * VS Code extension host that records what the page posts and keeps its `setState` state.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { buildSync } from 'esbuild';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { HostMessage, PanelViewState, RequestOutcome, WebviewMessage } from '../../src/protocol';
import { createNonce, panelHtml } from '../../src/vscode/conversations/panelHtml';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const SCREENSHOT_DIR = path.join(REPO_ROOT, 'test-results', 'webview');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export type Theme = 'light' | 'dark' | 'high-contrast';

declare global {
  interface Window {
    __posted: WebviewMessage[];
    __cspViolations: { directive: string; blockedURI: string; sample: string }[];
    __hostile?: string[];
  }
}

let built = false;

/** Builds `dist/webview/webview.js` once per test run, exactly as the extension ships it. */
export function buildWebviewBundle(): void {
  if (built) return;
  execFileSync(process.execPath, ['esbuild.mjs', '--only', 'webview'], { cwd: REPO_ROOT, stdio: 'inherit' });
  built = true;
}

/**
 * Builds a page-side probe (`entry`, TypeScript) into a script of its own for `probeScript`: test
 * and benchmark code reaches the page this way, never through the shipped bundle.
 */
export function buildProbeBundle(entry: string, outfile: string): string {
  mkdirSync(path.dirname(outfile), { recursive: true });
  buildSync({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'chrome120',
    logLevel: 'warning',
  });
  return outfile;
}

/** `extraArgs`: more Chromium switches, e.g. the benchmark's `--js-flags=--expose-gc`. */
export async function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      ...extraArgs,
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Options a test can put in the page URL. */
export interface PageOptions {
  theme?: Theme;
  /** Adds an inline script without the nonce to the HTML, to prove the CSP blocks it. */
  injectInlineScript?: boolean;
  /** Translations, as the host passes `vscode.l10n.bundle` to `panelHtml`; none means English. */
  l10nBundle?: Record<string, string>;
}

export interface PanelServer {
  origin: string;
  /** Every path requested so far, in order (navigation would show up here). */
  requests: string[];
  close(): Promise<void>;
}

const STATIC_FILES: Record<string, { file: string; type: string }> = {
  '/media/panel.css': { file: 'media/panel.css', type: 'text/css' },
  '/codicons/codicon.css': { file: 'node_modules/@vscode/codicons/dist/codicon.css', type: 'text/css' },
  '/codicons/codicon.ttf': { file: 'node_modules/@vscode/codicons/dist/codicon.ttf', type: 'font/ttf' },
};

export interface PanelServerOptions {
  /**
   * A script file every page loads, with the page's nonce, just before the panel's own bundle: a
   * test's or the benchmark's probe (see `buildProbeBundle`), which the shipped bundle must not carry.
   */
  probeScript?: string;
}

/** Serves the panel page the way a webview does: every resource from one origin, the cspSource. */
export async function startPanelServer(options: PanelServerOptions = {}): Promise<PanelServer> {
  const requests: string[] = [];
  let origin = '';
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', origin);
    requests.push(url.pathname);
    if (url.pathname === '/panel.html') {
      const theme = (url.searchParams.get('theme') ?? 'dark') as Theme;
      const bundle = url.searchParams.get('l10n');
      const nonce = createNonce();
      let html = panelHtml({
        cspSource: origin,
        nonce,
        scriptUri: `${origin}/dist/webview/webview.js`,
        styleUris: [`${origin}/codicons/codicon.css`, `${origin}/theme/${theme}.css`, `${origin}/media/panel.css`],
        title: 'Deep Search',
        l10nBundle: bundle === null ? undefined : (JSON.parse(bundle) as Record<string, string>),
      });
      if (options.probeScript) {
        const bundleTag = `<script type="module" nonce="${nonce}" src="${origin}/dist/webview/webview.js">`;
        if (!html.includes(bundleTag)) throw new Error('panelHtml changed: cannot place the probe script');
        html = html.replace(bundleTag, `<script nonce="${nonce}" src="${origin}/probe.js"></script>\n    ${bundleTag}`);
      }
      if (url.searchParams.has('inject')) {
        html = html.replace('</body>', '<script>window.__inlineScriptRan = true;</script>\n</body>');
      }
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      response.end(html);
      return;
    }
    const themeMatch = /^\/theme\/([a-z-]+)\.css$/.exec(url.pathname);
    if (themeMatch && themeMatch[1] in THEMES) {
      response.writeHead(200, { 'content-type': 'text/css' });
      response.end(themeStylesheet(themeMatch[1] as Theme));
      return;
    }
    if (url.pathname === '/probe.js' && options.probeScript) {
      response.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' });
      response.end(readFileSync(options.probeScript));
      return;
    }
    // The bundle and the chunks it imports, as the webview's resource root serves them.
    const built = /^\/dist\/webview\/((?:chunks\/)?[\w.-]+\.js)$/.exec(url.pathname);
    if (built) {
      response.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' });
      response.end(readFileSync(path.join(REPO_ROOT, 'dist', 'webview', built[1])));
      return;
    }
    const file = STATIC_FILES[url.pathname];
    if (file) {
      response.writeHead(200, { 'content-type': file.type, 'cache-control': 'no-store' });
      response.end(readFileSync(path.join(REPO_ROOT, file.file)));
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain' });
    response.end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requests,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

/**
 * Added to the page before any of its scripts. It plays the VS Code extension host, which cannot
 * run in a bare browser: `acquireVsCodeApi()` (once per page, like VS Code) returns an object
 * whose `postMessage` records into `window.__posted` and whose `setState`/`getState` keep the view
 * state across reloads of the page (in sessionStorage, as VS Code keeps it across webview reloads).
 * It also records CSP violations and gives the body VS Code's theme class.
 *
 * Plain JavaScript text on purpose: tsx compiles test code with esbuild's `keepNames`, which wraps
 * functions in a `__name()` helper that does not exist in the page; the last line provides it for
 * the callbacks tests pass to `page.evaluate`.
 */
function hostStandIn(themeClass: string): string {
  return `(() => {
  const stateKey = '__panelHarnessState';
  window.__posted = [];
  window.__cspViolations = [];
  let acquired = false;
  window.acquireVsCodeApi = () => {
    if (acquired) throw new Error('An instance of the VS Code API has already been acquired');
    acquired = true;
    return Object.freeze({
      postMessage: (message) => { window.__posted.push(JSON.parse(JSON.stringify(message))); },
      getState: () => {
        const raw = sessionStorage.getItem(stateKey);
        return raw === null ? undefined : JSON.parse(raw);
      },
      setState: (state) => { sessionStorage.setItem(stateKey, JSON.stringify(state)); return state; },
    });
  };
  document.addEventListener('securitypolicyviolation', (event) => {
    window.__cspViolations.push({ directive: event.violatedDirective, blockedURI: event.blockedURI, sample: event.sample });
  });
  document.addEventListener('DOMContentLoaded', () => document.body.classList.add(${JSON.stringify(themeClass)}));
  window.__name = window.__name || ((target) => target);
})();`;
}

export interface OpenOptions extends PageOptions {
  viewport?: { width: number; height: number };
  /** Install Playwright's fake clock at this time (paused) before the page loads. */
  clockAt?: number;
}

/** One panel page plus the host's side of the conversation with it. */
export class PanelPage {
  readonly pageErrors: Error[] = [];

  private constructor(
    readonly context: BrowserContext,
    readonly page: Page,
    private readonly url: string,
  ) {
    page.on('pageerror', (error) => this.pageErrors.push(error));
  }

  static async open(browser: Browser, server: PanelServer, options: OpenOptions = {}): Promise<PanelPage> {
    const theme = options.theme ?? 'dark';
    const context = await browser.newContext({
      viewport: options.viewport ?? { width: 760, height: 720 },
      colorScheme: theme === 'light' ? 'light' : 'dark',
      reducedMotion: 'reduce',
    });
    const page = await context.newPage();
    const themeClass = theme === 'high-contrast' ? 'vscode-high-contrast' : `vscode-${theme}`;
    await page.addInitScript({ content: hostStandIn(themeClass) });
    if (options.clockAt !== undefined) {
      await page.clock.install({ time: options.clockAt });
      await page.clock.pauseAt(options.clockAt + 1000);
    }
    const query = new URLSearchParams({ theme });
    if (options.injectInlineScript) query.set('inject', '1');
    if (options.l10nBundle) query.set('l10n', JSON.stringify(options.l10nBundle));
    const url = `${server.origin}/panel.html?${query}`;
    const panel = new PanelPage(context, page, url);
    await panel.load();
    return panel;
  }

  /** Reloads the webview (as VS Code does when a hidden panel comes back); state survives. */
  async reload(): Promise<void> {
    await this.page.reload();
    await this.page.waitForFunction(() => window.__posted.some((message) => message.type === 'ready'));
  }

  /** Delivers a host message the way VS Code does: a `message` event on the window, with `data`. */
  async send(message: HostMessage): Promise<void> {
    await this.page.evaluate(async (hostMessage) => {
      // Messages arrive in order, so once our marker arrives the page has handled `hostMessage`.
      const marker = `flush-${Math.random()}`;
      await new Promise<void>((resolve) => {
        const onMessage = (event: MessageEvent) => {
          if ((event.data as { harnessFlush?: string } | null)?.harnessFlush !== marker) return;
          window.removeEventListener('message', onMessage);
          resolve();
        };
        window.addEventListener('message', onMessage);
        window.postMessage(hostMessage, '*');
        window.postMessage({ harnessFlush: marker }, '*');
      });
    }, message);
  }

  async posted(): Promise<WebviewMessage[]> {
    return this.page.evaluate(() => window.__posted);
  }

  async postedOfType<T extends WebviewMessage['type']>(type: T): Promise<Extract<WebviewMessage, { type: T }>[]> {
    const all = await this.posted();
    return all.filter((message): message is Extract<WebviewMessage, { type: T }> => message.type === type);
  }

  /**
   * Answers, as the host does, the last request of a kind the page posted (by its request id);
   * returns that id.
   */
  async replyToLast(type: 'askFollowup' | 'cancel', outcome: RequestOutcome): Promise<number> {
    const last = (await this.postedOfType(type)).at(-1);
    if (!last) throw new Error(`the page posted no ${type}`);
    await this.send({ type: 'reply', requestId: last.requestId, outcome });
    return last.requestId;
  }

  /** What the page posted of a kind, without the request ids (which only have to be unique). */
  async postedWithoutIds(type: 'askFollowup' | 'cancel'): Promise<Array<Record<string, unknown>>> {
    return (await this.postedOfType(type)).map((message) => {
      const { requestId: _id, ...rest } = message;
      return rest;
    });
  }

  async clearPosted(): Promise<void> {
    await this.page.evaluate(() => {
      window.__posted.length = 0;
    });
  }

  async savedState(): Promise<PanelViewState | undefined> {
    return this.page.evaluate(() => {
      const raw = sessionStorage.getItem('__panelHarnessState');
      return raw === null ? undefined : (JSON.parse(raw) as PanelViewState);
    });
  }

  async cspViolations(): Promise<Window['__cspViolations']> {
    return this.page.evaluate(() => window.__cspViolations);
  }

  async screenshot(name: string): Promise<string> {
    const file = path.join(SCREENSHOT_DIR, `${name}.png`);
    await this.page.evaluate(() => document.fonts.ready.then(() => undefined));
    // The viewport, not the full page: the sticky follow-up box would cover content in a full-page shot.
    await this.page.screenshot({ path: file });
    return file;
  }

  async close(): Promise<void> {
    await this.context.close();
  }

  private async load(): Promise<void> {
    await this.page.goto(this.url);
    await this.page.waitForFunction(() => window.__posted.some((message) => message.type === 'ready'));
  }
}

/**
 * A few of VS Code's own theme colours (Dark Modern, Light Modern, Dark High Contrast), set as the
 * workbench sets them, so screenshots show the panel as it looks in the editor.
 */
const THEMES: Record<Theme, Record<string, string>> = {
  dark: {
    'debugTokenExpression-name': '#c586c0',
    'debugTokenExpression-string': '#ce9178',
    'debugTokenExpression-boolean': '#4e94ce',
    'debugTokenExpression-number': '#b5cea8',
    'symbolIcon-functionForeground': '#b180d7',
    'editorHoverWidget-background': '#202020',
    'editorHoverWidget-border': '#454545',
    'editorHoverWidget-foreground': '#cccccc',
    'font-family': '-apple-system, BlinkMacSystemFont, "Segoe WPC", "Segoe UI", "Ubuntu", "Droid Sans", sans-serif',
    'font-size': '13px',
    'editor-font-family': '"Droid Sans Mono", "monospace", monospace',
    'editor-font-size': '13px',
    foreground: '#cccccc',
    descriptionForeground: '#9d9d9d',
    errorForeground: '#f85149',
    'editor-background': '#1f1f1f',
    focusBorder: '#0078d4',
    'button-background': '#0078d4',
    'button-foreground': '#ffffff',
    'button-hoverBackground': '#026ec1',
    'button-border': '#ffffff12',
    'button-secondaryBackground': '#313131',
    'button-secondaryForeground': '#cccccc',
    'button-secondaryHoverBackground': '#3c3c3c',
    'textLink-foreground': '#4daafc',
    'textLink-activeForeground': '#4daafc',
    'textCodeBlock-background': '#2b2b2b',
    'textBlockQuote-background': '#2b2b2b',
    'textBlockQuote-border': '#616161b3',
    'textPreformat-foreground': '#d0d0d0',
    'textPreformat-background': '#3c3c3c',
    'input-background': '#313131',
    'input-border': '#3c3c3c',
    'input-foreground': '#cccccc',
    'input-placeholderForeground': '#989898',
    'badge-background': '#616161',
    'badge-foreground': '#f8f8f8',
    'panel-border': '#2b2b2b',
    'widget-border': '#313131',
    'editorWidget-border': '#454545',
    'icon-foreground': '#cccccc',
    'toolbar-hoverBackground': '#5a5d5e50',
    'inputValidation-errorBackground': '#5a1d1d',
    'inputValidation-errorBorder': '#be1100',
    'inputValidation-warningBackground': '#352a05',
    'inputValidation-warningBorder': '#b89500',
    'editorWarning-foreground': '#cca700',
    'testing-iconPassed': '#73c991',
  },
  light: {
    'debugTokenExpression-name': '#9b46b0',
    'debugTokenExpression-string': '#a31515',
    'debugTokenExpression-boolean': '#0000ff',
    'debugTokenExpression-number': '#098658',
    'symbolIcon-functionForeground': '#652d90',
    'editorHoverWidget-background': '#f8f8f8',
    'editorHoverWidget-border': '#c8c8c8',
    'editorHoverWidget-foreground': '#3b3b3b',
    'font-family': '-apple-system, BlinkMacSystemFont, "Segoe WPC", "Segoe UI", "Ubuntu", "Droid Sans", sans-serif',
    'font-size': '13px',
    'editor-font-family': '"Droid Sans Mono", "monospace", monospace',
    'editor-font-size': '13px',
    foreground: '#3b3b3b',
    descriptionForeground: '#717171',
    errorForeground: '#a1260d',
    'editor-background': '#ffffff',
    focusBorder: '#005fb8',
    'button-background': '#005fb8',
    'button-foreground': '#ffffff',
    'button-hoverBackground': '#0258a8',
    'button-border': '#0000001a',
    'button-secondaryBackground': '#e5e5e5',
    'button-secondaryForeground': '#3b3b3b',
    'button-secondaryHoverBackground': '#cccccc',
    'textLink-foreground': '#005fb8',
    'textLink-activeForeground': '#005fb8',
    'textCodeBlock-background': '#f3f3f3',
    'textBlockQuote-background': '#f8f8f8',
    'textBlockQuote-border': '#e5e5e5',
    'textPreformat-foreground': '#3b3b3b',
    'textPreformat-background': '#0000001f',
    'input-background': '#ffffff',
    'input-border': '#cecece',
    'input-foreground': '#3b3b3b',
    'input-placeholderForeground': '#767676',
    'badge-background': '#cccccc',
    'badge-foreground': '#3b3b3b',
    'panel-border': '#e5e5e5',
    'widget-border': '#e5e5e5',
    'editorWidget-border': '#c8c8c8',
    'icon-foreground': '#3b3b3b',
    'toolbar-hoverBackground': '#b8b8b850',
    'inputValidation-errorBackground': '#f2dede',
    'inputValidation-errorBorder': '#be1100',
    'inputValidation-warningBackground': '#f6f5d2',
    'inputValidation-warningBorder': '#b89500',
    'editorWarning-foreground': '#bf8803',
    'testing-iconPassed': '#388a34',
  },
  'high-contrast': {
    'debugTokenExpression-name': '#ffffff',
    'debugTokenExpression-string': '#f48771',
    'debugTokenExpression-boolean': '#75bdfe',
    'debugTokenExpression-number': '#89d185',
    'symbolIcon-functionForeground': '#b180d7',
    'editorHoverWidget-background': '#0c141f',
    'editorHoverWidget-border': '#6fc3df',
    'editorHoverWidget-foreground': '#ffffff',
    'font-family': '-apple-system, BlinkMacSystemFont, "Segoe WPC", "Segoe UI", "Ubuntu", "Droid Sans", sans-serif',
    'font-size': '13px',
    'editor-font-family': '"Droid Sans Mono", "monospace", monospace',
    'editor-font-size': '13px',
    foreground: '#ffffff',
    descriptionForeground: '#ffffffb3',
    errorForeground: '#f48771',
    'editor-background': '#000000',
    focusBorder: '#f38518',
    contrastBorder: '#6fc3df',
    contrastActiveBorder: '#f38518',
    'button-background': '#000000',
    'button-foreground': '#ffffff',
    'button-border': '#6fc3df',
    'button-secondaryBackground': '#000000',
    'button-secondaryForeground': '#ffffff',
    'textLink-foreground': '#21a6ff',
    'textLink-activeForeground': '#21a6ff',
    'textCodeBlock-background': '#000000',
    'textBlockQuote-background': '#000000',
    'textBlockQuote-border': '#ffffff',
    'textPreformat-foreground': '#ffffff',
    'input-background': '#000000',
    'input-border': '#6fc3df',
    'input-foreground': '#ffffff',
    'input-placeholderForeground': '#ffffffb3',
    'badge-background': '#000000',
    'badge-foreground': '#ffffff',
    'panel-border': '#6fc3df',
    'icon-foreground': '#ffffff',
    'inputValidation-errorBackground': '#000000',
    'inputValidation-errorBorder': '#6fc3df',
    'inputValidation-warningBackground': '#000000',
    'inputValidation-warningBorder': '#6fc3df',
    'testing-iconPassed': '#73c991',
  },
};

function themeStylesheet(theme: Theme): string {
  const lines = Object.entries(THEMES[theme]).map(([name, value]) => `  --vscode-${name}: ${value};`);
  return `:root {\n${lines.join('\n')}\n}\n`;
}

export interface PanelEnvironment {
  readonly browser: Browser;
  readonly server: PanelServer;
  /** Opens a fresh page (own browser context); closed after the test. */
  open(options?: OpenOptions): Promise<PanelPage>;
}

/**
 * Mocha hooks for a test file: build once, one Chromium and one server per file, pages per test.
 * `probeEntry`: a page-side script (TypeScript) every page of this file loads before the panel.
 */
export function usePanelEnvironment(options: { probeEntry?: string } = {}): PanelEnvironment {
  let browser: Browser | undefined;
  let server: PanelServer | undefined;
  const opened: PanelPage[] = [];
  before(async function () {
    this.timeout(120_000);
    buildWebviewBundle();
    const probeScript = options.probeEntry
      ? buildProbeBundle(options.probeEntry, path.join(REPO_ROOT, 'test-results', 'probes', `${path.basename(options.probeEntry, '.ts')}.js`))
      : undefined;
    browser = await launchChromium();
    server = await startPanelServer({ probeScript });
  });
  afterEach(async () => {
    for (const panel of opened.splice(0)) await panel.close();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });
  return {
    get browser() {
      if (!browser) throw new Error('Chromium is not running yet');
      return browser;
    },
    get server() {
      if (!server) throw new Error('the panel server is not running yet');
      return server;
    },
    async open(options) {
      const panel = await PanelPage.open(this.browser, this.server, options);
      opened.push(panel);
      return panel;
    },
  };
}

/** Tabs from the top of the page until `selector` has focus; false if it never does. */
export async function tabTo(page: Page, selector: string, maxTabs = 60): Promise<boolean> {
  await page.evaluate(() => {
    (document.activeElement as HTMLElement | null)?.blur();
    window.scrollTo(0, 0);
  });
  for (let index = 0; index < maxTabs; index++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((target) => document.activeElement?.matches(target) ?? false, selector)) return true;
  }
  return false;
}
