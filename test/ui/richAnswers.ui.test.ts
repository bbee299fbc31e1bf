import * as assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Frame } from 'playwright-core';
import { answeredConversation } from '../support/storedConversations';
import { VSCodeUi } from './vscodeUi';

const APP = 'github.com/acme/app';
const BILLING = 'github.com/acme/billing';
const TITLE = 'How prices and settings are read';
const DIAGRAM_TITLE = 'The flow of a question';
const HOSTILE_TITLE = 'A diagram that tries to run';
const TOO_BIG = 'Explain every module of the monorepo';
const SUMMARY = [
  'So far: settings are parsed in [parseConfig](/github.com/acme/app/-/blob/src/config.ts?L11-15).',
  '',
  'Next: ask about the server alone.',
].join('\n');

/** An answer as an instance writes one: citations of the workspace's repository and of one it lacks. */
const CITED = answeredConversation({
  id: 1,
  question: 'Where are settings parsed and prices formatted?',
  title: TITLE,
  answer: [
    `Settings are parsed by [parseConfig](/${APP}/-/blob/src/config.ts?L11-15), prices are formatted by`,
    `[formatPrice](/${BILLING}/-/blob/src/price.ts?L3-5).`,
    '',
    '```mermaid',
    'flowchart LR',
    '  file[app.json] --> parse[parseConfig] --> config[AppConfig]',
    '  cents --> format[formatPrice] --> price',
    '```',
  ].join('\n'),
  sources: [{ type: 'Repository', link: `/${APP}`, label: APP }],
  at: new Date().toISOString(),
});

const DIAGRAM = answeredConversation({
  id: 2,
  question: 'How does a question flow?',
  title: DIAGRAM_TITLE,
  answer: ['The flow:', '', '```mermaid', 'flowchart LR', '  ask[Ask] --> poll[Poll until done] --> answer[Show the answer]', '```'].join('\n'),
  sources: [],
  at: new Date(Date.now() - 60_000).toISOString(),
});

const PIE_TITLE = 'Where the time goes';

/** A pie chart: its grammar is one of those Mermaid's parser loads (built into one chunk with it). */
const PIE = answeredConversation({
  id: 6,
  question: 'Where does a question spend its time?',
  title: PIE_TITLE,
  answer: ['Roughly:', '', '```mermaid', 'pie title Time per step', '  "Search" : 60', '  "Read" : 30', '  "Write" : 10', '```'].join('\n'),
  sources: [],
  at: new Date(Date.now() - 240_000).toISOString(),
});

const HOSTILE = answeredConversation({
  id: 3,
  question: 'Draw something',
  title: HOSTILE_TITLE,
  answer: [
    '```mermaid',
    '%%{init: {"securityLevel": "loose", "flowchart": {"htmlLabels": true}}}%%',
    'flowchart TD',
    '  A["<img src=x onerror=alert(1)>"] --> B[Next]',
    '  click A call alert(2)',
    '  click B href "javascript:alert(3)"',
    '```',
  ].join('\n'),
  sources: [],
  at: new Date(Date.now() - 120_000).toISOString(),
});

const TABLE_TITLE = 'Prices as a table';
const PRICES_CSV = 'cents,price\n199,$1.99\n5,$0.05\n';
/** An answer with a file it generated, as an instance links one. */
const TABLE = (() => {
  const record = answeredConversation({
    id: 5,
    question: 'List some prices as a table',
    title: TABLE_TITLE,
    answer: 'The prices are in [prices.csv](/deepsearch/files/5/prices.csv).',
    at: new Date(Date.now() - 240_000).toISOString(),
  });
  record.files = [{ name: 'prices.csv', content_type: 'text/csv', text: PRICES_CSV }];
  return record;
})();

/** A question stopped at its token limit, its answer the instance's summary of its progress. */
const STOPPED = (() => {
  const record = answeredConversation({ id: 4, question: TOO_BIG, title: TOO_BIG, answer: SUMMARY, at: new Date(Date.now() - 180_000).toISOString() });
  record.questions[0].error = { title: 'Token limit reached', kind: 'TokenLimitExceeded', message: 'The question needed more tokens than allowed.' };
  return record;
})();

/**
 * What the panel adds to an answer, through the real VS Code: citations with previews of the cited
 * lines (hovered and focused), diagrams (hostile ones too), and the answer as Markdown.
 */
describe('Rich answers in the real VS Code (UI)', function () {
  this.timeout(180_000);
  let ui: VSCodeUi;
  const engineRequests: string[] = [];
  /** While true, the engine refuses new questions as an instance over its quota does. */
  let refuseQuestions = false;

  before(async () => {
    ui = await VSCodeUi.launch({
      paceMs: 100,
      engineLog: (line) => engineRequests.push(line),
      storedConversations: [CITED, DIAGRAM, HOSTILE, STOPPED, TABLE, PIE],
      faults: {
        request: ({ method, path }) =>
          refuseQuestions && method === 'POST' && /CreateConversation$|^\/\.api\/deepsearch\/v1\/?$/.test(path)
            ? {
                kind: 'status',
                status: 429,
                body: JSON.stringify({ error: 'Too many questions: your quota allows the next one in an hour.' }),
                contentType: 'application/json',
              }
            : undefined,
      },
    });
    await ui.runCommand('Deep Search: Focus on Conversations View');
  });

  afterEach(async function () {
    await ui.screenshotIfFailed(this.currentTest, 'rich');
  });

  after(async () => {
    await ui?.close();
  });

  /** The conversation's panel, alone in the editor area (so its webview is the one found). */
  async function openConversation(title: string, shown = '.question.is-completed .answer'): Promise<Frame> {
    await ui.runCommand('View: Close All Editors');
    await ui.treeRow(title).click();
    const webview = await ui.webview();
    await webview.locator(shown).first().waitFor();
    return webview;
  }

  it('hovering a citation badge previews the cited lines from the workspace, and from the instance for a repository the workspace lacks', async () => {
    const webview = await openConversation(TITLE);
    await webview.locator('.diagram-block img.diagram-image').waitFor({ timeout: 60_000 });
    const tooltip = webview.getByRole('tooltip');
    await webview.locator('.answer .citation-badge', { hasText: '1' }).hover();
    await tooltip.getByText('from your workspace').waitFor();
    assert.deepEqual(await tooltip.locator('.preview-line-number').allTextContents(), ['11', '12', '13', '14', '15']);
    assert.match((await tooltip.locator('.preview-lines').textContent()) ?? '', /export function parseConfig\(text: string\): AppConfig \{/);
    await tooltip.locator('.tok-keyword').first().waitFor();
    await ui.screenshot('rich-citation-preview');

    await webview.locator('.answer .citation-badge', { hasText: '2' }).hover();
    await tooltip.getByText('from the instance').waitFor();
    assert.match((await tooltip.locator('.preview-lines').textContent()) ?? '', /export function formatPrice\(cents: number\): string \{/);
    assert.deepEqual(await tooltip.locator('.preview-line-number').allTextContents(), ['3', '4', '5']);
  });

  it('shows the preview to the keyboard: Tab onto a citation of the list', async () => {
    const webview = await openConversation(TITLE);
    const entries = webview.getByRole('region', { name: 'Citations' }).locator('a');
    await webview.locator('.diagram-block img.diagram-image').waitFor({ timeout: 60_000 });
    assert.deepEqual(await entries.allTextContents(), ['1src/config.ts:11–15github.com/acme/app', '2src/price.ts:3–5github.com/acme/billing']);
    await entries.first().focus();
    await ui.page.keyboard.press('Tab');
    const tooltip = webview.getByRole('tooltip');
    await tooltip.getByText('from the instance').waitFor();
    assert.equal(await entries.nth(1).getAttribute('aria-describedby'), 'citation-preview');
    await tooltip.locator('.tok-keyword').first().waitFor();
    await ui.screenshot('rich-citation-keyboard');
    // Enter opens the cited lines, as a click does.
    await ui.page.keyboard.press('Enter');
    const tab = ui.page.locator('.tabs-container .tab.active');
    await tab.filter({ hasText: 'price.ts' }).waitFor();
  });

  it('draws a Mermaid answer as a diagram, and its source is a click away', async () => {
    const webview = await openConversation(DIAGRAM_TITLE);
    const image = webview.locator('.diagram-block img.diagram-image');
    await image.waitFor({ timeout: 60_000 });
    assert.match((await image.getAttribute('src')) ?? '', /^data:image\/svg\+xml;base64,/);
    assert.equal(await image.getAttribute('alt'), 'Diagram: flowchart LR');
    assert.ok(((await image.boundingBox())?.height ?? 0) > 20, 'the diagram is drawn with a size');
    await ui.screenshot('rich-diagram');
    await webview.getByRole('button', { name: 'Show source' }).click();
    await webview.locator('.diagram-block pre', { hasText: 'ask[Ask] --> poll' }).waitFor();
  });

  it("draws a pie chart, whose grammar comes with Mermaid's parser", async () => {
    const webview = await openConversation(PIE_TITLE);
    const image = webview.locator('.diagram-block img.diagram-image');
    await image.waitFor({ timeout: 60_000 });
    assert.equal(await image.getAttribute('alt'), 'Diagram: pie title Time per step');
    assert.ok(((await image.boundingBox())?.height ?? 0) > 20, 'the chart is drawn with a size');
  });

  it('draws a hostile diagram without running anything of it', async () => {
    const dialogs: string[] = [];
    ui.page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    const webview = await openConversation(HOSTILE_TITLE);
    const image = webview.locator('.diagram-block img.diagram-image');
    await image.waitFor({ timeout: 60_000 });
    await image.click();
    const svg = Buffer.from(((await image.getAttribute('src')) ?? '').split(',')[1] ?? '', 'base64').toString('utf8');
    assert.doesNotMatch(svg, /<foreignObject|javascript:|\bhref=|onerror=/i);
    // The panel has handled a click since the one on the image (its source shown), and the host has answered since.
    await webview.getByRole('button', { name: 'Show source' }).click();
    await webview.locator('.diagram-block.is-showing-source pre').waitFor();
    await ui.afterExtensionHost();
    assert.deepEqual(dialogs, [], 'nothing of the diagram ran');
    // Nothing opened either: still the panel in front, no browser tab.
    assert.equal(ui.openedTabs.length, 0);
  });

  it('opens the answer as Markdown from the panel, with its citations as links', async () => {
    const webview = await openConversation(TITLE);
    await webview.getByRole('button', { name: 'Open as Markdown' }).click();
    const editor = ui.page.locator('.monaco-editor .view-lines', { hasText: /Citations:/ }).first();
    await editor.waitFor();
    const text = ((await editor.textContent()) ?? '').replace(/\s/g, ' ');
    assert.match(text, /# How prices and settings are read/);
    assert.match(text, new RegExp(`1\\. \\[src/config\\.ts:11–15\\]\\(http://127\\.0\\.0\\.1:\\d+/${APP}/-/blob/src/config\\.ts\\?L11-15\\) in ${APP}`));
    assert.match(text, /2\. \[src\/price\.ts:3–5\]/);
    assert.match((await ui.page.locator('.tabs-container .tab.active').getAttribute('aria-label')) ?? '', /Untitled/);
    assert.match(await ui.page.locator('[id="status.editor.mode"]').innerText(), /Markdown/);
    // An untitled document asks to be saved when closed: let it go.
    await ui.runCommand('View: Revert and Close Editor');
  });

  it('offers to continue in the browser when a question cannot be sent, with the question on the instance page', async () => {
    refuseQuestions = true;
    try {
      const from = ui.openedTabs.length;
      await ui.runCommand('Deep Search: Ask Deep Search');
      await ui.answerInputBox('Ask Deep Search', 'Where is the price & tax rounded — and why? #billing');
      const toast = ui.toast(/Deep Search could not ask the question/);
      await toast.waitFor();
      await toast.locator('.monaco-button', { hasText: /^Continue in Browser$/ }).click();
      await ui.eventually(() => Promise.resolve(ui.openedTabs.length > from), 'a browser tab');
      const tab = ui.openedTabs[from];
      await tab.waitForURL(/\/deepsearch\?q=/, { waitUntil: 'commit' });
      assert.equal(new URL(tab.url()).searchParams.get('q'), 'Where is the price & tax rounded — and why? #billing');
      await tab.getByRole('textbox', { name: 'Your question' }).waitFor();
      assert.equal(await tab.getByRole('textbox', { name: 'Your question' }).inputValue(), 'Where is the price & tax rounded — and why? #billing');
    } finally {
      refuseQuestions = false;
    }
  });

  it('shows the progress summary of a question stopped at its token limit, and offers a narrower question', async () => {
    const webview = await openConversation(TOO_BIG, '.question.is-failed');
    const summary = webview.getByRole('region', { name: 'What Deep Search found before it stopped' });
    await summary.getByText('Next: ask about the server alone.').waitFor();
    assert.equal(await summary.locator('a.citation').count(), 1, 'its links are citations too');
    await webview.getByRole('button', { name: 'Ask a Narrower Question' }).click();
    const input = ui.page.locator('.quick-input-widget', { has: ui.page.locator('.quick-input-title', { hasText: 'Ask Deep Search' }) }).locator('input');
    await input.waitFor();
    assert.equal(await input.inputValue(), TOO_BIG, 'the question, ready to narrow down');
    await ui.page.keyboard.press('Escape');
  });

  it('completes @-mentions in the Ask box as you type, and the engine searches only the repository named', async () => {
    // Alone in the editor area, the question's panel is the webview found (not one a test before left open).
    await ui.runCommand('View: Close All Editors');
    await ui.runCommand('Deep Search: Ask Deep Search');
    const box = ui.page.locator('.quick-input-widget', { has: ui.page.locator('.quick-input-title', { hasText: 'Ask Deep Search' }) });
    const input = box.locator('input');
    await input.waitFor();
    await input.pressSequentially('Where is `formatPrice` defined? @bil', { delay: 30 });
    const offered = box.locator('.monaco-list-row', { hasText: `@${BILLING}` });
    await offered.waitFor();
    assert.match((await offered.textContent()) ?? '', /repository on the instance/);
    await input.press('Enter');
    // The extension writes the mention in; the box stays open.
    await ui.eventually(async () => (await input.inputValue()) === `Where is \`formatPrice\` defined? @${BILLING} `, 'the mention written whole');
    assert.equal(await box.isVisible(), true);
    await input.pressSequentially('@ap', { delay: 30 });
    await box
      .locator('.monaco-list-row', { hasText: `@${APP}` })
      .filter({ hasText: 'repository in the workspace' })
      .waitFor();
    // Go on typing: a space ends the mention, and Enter asks.
    await input.press('Backspace');
    await input.press('Backspace');
    await input.press('Backspace');
    await box.locator('.monaco-list-row').first().waitFor({ state: 'detached' });
    await input.press('Enter');
    await box.waitFor({ state: 'hidden' });
    const webview = await ui.webview();
    await webview.locator('.question.is-completed .answer').first().waitFor({ timeout: 60_000 });
    const reasoning = webview.locator('.turns-finished');
    await reasoning.locator('summary').click();
    await reasoning.getByText(`Searching only what the question names: @${BILLING}`).waitFor();
    await reasoning.getByText('Searching 1 repository for', { exact: false }).waitFor();
    const citations = await webview.getByRole('region', { name: 'Citations' }).locator('a').allTextContents();
    assert.ok(citations.length > 0 && citations.every((text) => text.includes(BILLING)), `only the billing repository is cited: ${citations.join(' | ')}`);
  });

  it('opens and saves a file the answer generated, read from the instance only when asked', async () => {
    const reads = () => engineRequests.filter((line) => line.startsWith('GET /deepsearch/files/5/prices.csv 200')).length;
    const webview = await openConversation(TABLE_TITLE);
    await webview.getByRole('button', { name: 'Open prices.csv' }).waitFor();
    assert.equal(reads(), 0, 'nothing read before a click');
    await webview.getByRole('button', { name: 'Open prices.csv' }).click();
    await ui.page.locator('.tabs-container .tab.active', { hasText: 'prices.csv' }).waitFor();
    await ui.page
      .locator('.monaco-editor .view-lines', { hasText: /cents,price/ })
      .first()
      .waitFor();
    assert.equal(reads(), 1);

    await ui.runCommand('View: Close All Editors');
    const again = await openConversation(TABLE_TITLE);
    await again.getByRole('button', { name: 'Save prices.csv As…' }).click();
    // VS Code's own save dialog (in a browser: its quick-input file dialog), at the workspace.
    const dialog = ui.page.locator('.quick-input-widget');
    const path = dialog.locator('input');
    await path.waitFor();
    await ui.eventually(async () => /prices\.csv$/.test(await path.inputValue()), 'the save dialog to offer prices.csv');
    await path.press('Enter');
    await ui.toast(/Saved prices\.csv\./).waitFor();
    assert.equal(await readFile(join(ui.workspace, 'prices.csv'), 'utf8'), PRICES_CSV);
  });
});
