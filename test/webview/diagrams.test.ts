import assert from 'node:assert/strict';
import { completedQuestion, conversation, snapshot } from './fixtures';
import { usePanelEnvironment, type PanelPage } from './panelHarness';

const FLOWCHART = ['```mermaid', 'flowchart LR', '  ask[Ask] --> poll[Poll until done]', '  poll --> answer[Show the answer]', '```'].join('\n');

/** A diagram that tries every way out Mermaid has: HTML labels, click callbacks, script links, a looser mode. */
const HOSTILE = [
  '```mermaid',
  '%%{init: {"securityLevel": "loose", "htmlLabels": true, "flowchart": {"htmlLabels": true}}}%%',
  'flowchart TD',
  '  A["<img src=x onerror=window.__hostile.push(1)>"] --> B["<b>bold</b><script>window.__hostile.push(2)</script>"]',
  '  B --> C[javascript link]',
  '  click A call window.__hostile.push(3)',
  '  click B href "javascript:window.__hostile.push(4)"',
  '  click C "javascript:window.__hostile.push(5)" "tooltip"',
  '```',
].join('\n');

describe('conversation panel: diagrams', function () {
  this.timeout(60_000);
  const env = usePanelEnvironment();

  /** The page's requests, in the order it made them. */
  const requested = new WeakMap<PanelPage, string[]>();

  async function openWith(answer: string): Promise<PanelPage> {
    const panel = await env.open();
    const urls: string[] = [];
    panel.page.on('request', (request) => urls.push(new URL(request.url()).pathname));
    requested.set(panel, urls);
    await panel.page.evaluate(() => {
      window.__hostile = [];
    });
    await panel.send(snapshot(conversation([completedQuestion(1, { answer })])));
    return panel;
  }

  /**
   * The requests the page has made, once a round trip through the page has followed what came
   * before: a request a script started earlier is reported before the round trip's answer.
   */
  async function requestsSoFar(panel: PanelPage): Promise<string[]> {
    await panel.page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
    await panel.page.evaluate(() => 0);
    return [...(requested.get(panel) ?? [])];
  }

  /** The SVG text of the first diagram image. */
  async function drawnSvg(panel: PanelPage): Promise<string> {
    const image = panel.page.locator('.diagram-block img.diagram-image').first();
    await image.waitFor({ timeout: 30_000 });
    const src = (await image.getAttribute('src')) ?? '';
    assert.match(src, /^data:image\/svg\+xml;base64,/);
    return Buffer.from(src.slice(src.indexOf(',') + 1), 'base64').toString('utf8');
  }

  const diagramChunks = () => env.server.requests.filter((request) => /\/chunks\/diagramRenderer-/.test(request));

  it('draws a Mermaid block as a diagram, with a toggle to its source', async () => {
    const before = diagramChunks().length;
    const panel = await openWith(`The flow:\n\n${FLOWCHART}\n`);
    const svg = await drawnSvg(panel);
    assert.match(svg, /^<svg[\s>]/);
    // Labels are SVG text (a word per span).
    const text = svg.replace(/<[^>]+>/g, '');
    for (const label of ['Ask', 'Poll until done', 'Show the answer']) assert.ok(text.includes(label), `the diagram has the label ${label}`);
    assert.equal(diagramChunks().length, before + 1, 'the diagram library was loaded for it');
    const block = panel.page.locator('.diagram-block');
    assert.equal(await block.locator('pre').isVisible(), false, 'the source hides behind the diagram');
    assert.equal(await block.getByRole('img').getAttribute('alt'), 'Diagram: flowchart LR');
    const toggle = block.getByRole('button', { name: 'Show source' });
    await toggle.click();
    assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
    assert.equal(await block.locator('pre').isVisible(), true);
    assert.equal(await block.locator('img').isVisible(), false);
    assert.match((await block.locator('pre').textContent()) ?? '', /ask\[Ask\] --> poll/);
    await toggle.click();
    assert.equal(await block.locator('img').isVisible(), true);
    assert.deepEqual(panel.pageErrors, []);
    await panel.screenshot('diagram');
  });

  it('does not load the diagram library for an answer without a diagram', async () => {
    const before = diagramChunks().length;
    const panel = await openWith('No diagram here:\n\n```ts\nconst a = 1;\n```\n');
    await panel.page.locator('.code-block pre').waitFor();
    // The answer is rendered, and the page has said what it asked for since.
    assert.deepEqual(
      (await requestsSoFar(panel)).filter((request) => /\/chunks\/diagramRenderer-/.test(request)),
      [],
    );
    assert.equal(diagramChunks().length, before);
    assert.equal(await panel.page.locator('.diagram-block').count(), 0);
  });

  it('runs a hostile diagram in strict mode: no HTML labels, no callbacks, no links, nothing executed', async () => {
    const panel = await openWith(HOSTILE);
    const svg = await drawnSvg(panel);
    // Click everything drawn where a user could: the image, then the toggle and back.
    await panel.page.locator('.diagram-block img').click();
    const toggle = panel.page.locator('.diagram-block').getByRole('button', { name: 'Show source' });
    await toggle.click();
    await panel.page.locator('.diagram-block pre').waitFor();
    await toggle.click();
    await panel.page.locator('.diagram-block img').waitFor();
    // The clicks were handled after the drawing, and the label's image would have been asked for.
    assert.ok(!(await requestsSoFar(panel)).includes('/x'), "the label's <img src=x> was never loaded");
    assert.deepEqual(await panel.page.evaluate(() => window.__hostile), [], 'nothing of the diagram ran');
    assert.doesNotMatch(svg, /<foreignObject/i, 'labels are SVG text, not HTML');
    assert.doesNotMatch(svg, /javascript:/i);
    assert.doesNotMatch(svg, /<script/i);
    assert.doesNotMatch(svg, /\bhref=/i, 'no link goes anywhere');
    assert.match(svg, />&lt;img src="x"&gt;</, 'an HTML label is shown as its text');
    assert.doesNotMatch(svg, /onerror|onclick/i);
    assert.deepEqual(panel.pageErrors, []);
  });

  it('shows the source and why when a diagram cannot be drawn, and renders the rest of the answer', async () => {
    const panel = await openWith('Before.\n\n```mermaid\nflowchart LR\n  a --> \n  this is not mermaid ((\n```\n\nAfter the diagram.');
    const block = panel.page.locator('.diagram-block');
    await block.locator('.diagram-error').waitFor({ timeout: 30_000 });
    assert.match((await block.locator('.diagram-error').textContent()) ?? '', /^This diagram could not be drawn: \S/);
    assert.equal(await block.locator('pre').isVisible(), true, 'the source stays');
    assert.equal(await panel.page.getByText('After the diagram.').isVisible(), true);
    assert.deepEqual(panel.pageErrors, []);
  });
});
