import assert from 'node:assert/strict';
import type { CitationPreview } from '../../src/protocol';
import { completedQuestion, conversation, snapshot } from './fixtures';
import { usePanelEnvironment, type PanelPage } from './panelHarness';

const INSTANCE = 'https://sg.example.com';

/** Links of every kind an answer holds: three cite lines (one twice), the others do not. */
const ANSWER = [
  'The poller backs off in [nextInterval](/github.com/org/repo/-/blob/src/poller.ts?L10-12) and',
  'waits in [the Go helper](https://sg.example.com/github.com/org/repo@abc123def/-/blob/cmd/wait.go#L5).',
  '',
  'Again: [nextInterval](/github.com/org/repo/-/blob/src/poller.ts?L10-12), then [tests](/github.com/org/repo/-/blob/test/poller.test.ts?L1-3).',
  '',
  'Not citations: [the file](/github.com/org/repo/-/blob/src/poller.ts), [the repository](/github.com/org/repo),',
  '[docs](https://example.org/docs), [another host](https://elsewhere.example/github.com/org/repo/-/blob/a.ts?L1).',
].join('\n');

describe('conversation panel: citations', function () {
  this.timeout(30_000);
  const env = usePanelEnvironment();

  async function openCited(): Promise<PanelPage> {
    const panel = await env.open();
    await panel.send({ ...snapshot(conversation([completedQuestion(1, { answer: ANSWER })])), instanceUrl: INSTANCE });
    return panel;
  }

  async function previews(panel: PanelPage): Promise<string[]> {
    return (await panel.postedOfType('preview')).map((message) => message.href);
  }

  async function answerPreview(panel: PanelPage, preview: CitationPreview): Promise<void> {
    const last = (await panel.postedOfType('preview')).at(-1);
    if (!last) throw new Error('the page asked for no preview');
    await panel.send({ type: 'preview', previewId: last.previewId, preview });
  }

  it('numbers the links to a file and lines in order, one number per cited range, and lists them under the answer', async () => {
    const panel = await openCited();
    const badges = await panel.page
      .locator('.answer .markdown a.citation')
      .evaluateAll((links) => links.map((link) => [link.textContent, link.querySelector('.citation-badge')?.textContent]));
    assert.deepEqual(badges, [
      ['nextInterval1', '1'],
      ['the Go helper2', '2'],
      ['nextInterval1', '1'],
      ['tests3', '3'],
    ]);
    assert.equal(await panel.page.locator('.answer .markdown a:not(.citation)').count(), 4, 'the other links stay plain links');
    const list = panel.page.getByRole('region', { name: 'Citations' });
    const entries = await list.locator('li').evaluateAll((items) => items.map((item) => item.textContent));
    assert.deepEqual(entries, [
      '1src/poller.ts:10–12github.com/org/repo',
      '2cmd/wait.go:5github.com/org/repo@abc123def',
      '3test/poller.test.ts:1–3github.com/org/repo',
    ]);
    assert.equal(
      await list.locator('a').first().getAttribute('href'),
      '/github.com/org/repo/-/blob/src/poller.ts?L10-12',
      'an entry opens what the link opens',
    );
    assert.deepEqual(await previews(panel), [], 'nothing is read before the user hovers or focuses a citation');
  });

  it('hovering a badge shows the cited lines with their numbers and syntax colours, read once', async () => {
    const panel = await openCited();
    await panel.page.locator('.answer .citation-badge').first().hover();
    await panel.page.waitForFunction(() => window.__posted.some((message) => message.type === 'preview'));
    assert.deepEqual(await previews(panel), ['/github.com/org/repo/-/blob/src/poller.ts?L10-12']);
    const tooltip = panel.page.getByRole('tooltip');
    await answerPreview(panel, {
      ok: true,
      from: 'workspace',
      startLine: 10,
      lines: ['export function nextInterval(visible: boolean): number {', "  return visible ? 2_000 : 30_000; // '<b>'", '}'],
      more: 0,
    });
    await tooltip.locator('.preview-line').nth(2).waitFor();
    assert.deepEqual(await tooltip.locator('.preview-line-number').allTextContents(), ['10', '11', '12']);
    assert.match((await tooltip.locator('.preview-lines').textContent()) ?? '', /return visible \? 2_000 : 30_000; \/\/ '<b>'/);
    await tooltip.locator('.tok-keyword').first().waitFor();
    assert.equal(await tooltip.locator('.tok-keyword').first().textContent(), 'export');
    assert.equal(await tooltip.locator('b').count(), 0, 'server text stays text');
    assert.match((await tooltip.textContent()) ?? '', /src\/poller\.ts.*github\.com\/org\/repo.*from your workspace/);
    assert.equal(await panel.page.locator('.answer a.citation').first().getAttribute('aria-describedby'), 'citation-preview');

    // Away and back: the same lines, not asked again.
    await panel.page.mouse.move(5, 5);
    await tooltip.waitFor({ state: 'hidden' });
    await panel.page.getByRole('region', { name: 'Citations' }).locator('a').first().hover();
    await tooltip.locator('.preview-line').first().waitFor();
    assert.equal((await previews(panel)).length, 1, 'one read per citation');
    assert.deepEqual(await panel.cspViolations(), [], 'the highlighter loads within the CSP');
  });

  it('focusing a citation with the keyboard shows its preview, and Escape hides it', async () => {
    const panel = await openCited();
    await panel.page.locator('.answer a.citation').nth(1).focus();
    await panel.page.waitForFunction(() => window.__posted.some((message) => message.type === 'preview'));
    assert.deepEqual(await previews(panel), ['https://sg.example.com/github.com/org/repo@abc123def/-/blob/cmd/wait.go#L5']);
    await answerPreview(panel, { ok: true, from: 'instance', startLine: 5, lines: ['func wait() {}'], more: 0 });
    const tooltip = panel.page.getByRole('tooltip');
    await tooltip.getByText('from the instance').waitFor();
    await panel.page.keyboard.press('Escape');
    await tooltip.waitFor({ state: 'hidden' });
  });

  it('says why when the lines cannot be read, and asks again on the next hover', async () => {
    const panel = await openCited();
    const badge = panel.page.locator('.answer .citation-badge').last();
    await badge.hover();
    await panel.page.waitForFunction(() => window.__posted.some((message) => message.type === 'preview'));
    await answerPreview(panel, { ok: false, message: 'Could not read the cited lines of test/poller.test.ts: the instance is unreachable.' });
    await panel.page.getByRole('tooltip').getByText('the instance is unreachable').waitFor();
    await panel.page.mouse.move(5, 5);
    await panel.page.getByRole('tooltip').waitFor({ state: 'hidden' });
    await badge.hover();
    await panel.page.waitForFunction(() => window.__posted.filter((message) => message.type === 'preview').length === 2);
  });

  it('says how many cited lines the preview leaves out', async () => {
    const panel = await openCited();
    await panel.page.locator('.answer .citation-badge').first().hover();
    await panel.page.waitForFunction(() => window.__posted.some((message) => message.type === 'preview'));
    await answerPreview(panel, { ok: true, from: 'instance', startLine: 10, lines: ['a', 'b'], more: 7 });
    await panel.page.getByRole('tooltip').getByText('… and 7 more lines: open the link to see them').waitFor();
  });

  it('offers Open and Save As beside links to files the answer generated, and reads nothing before a click', async () => {
    const panel = await env.open();
    const answer = [
      'Tables: [prices](/deepsearch/files/7/prices.csv), [data](https://sg.example.com/deepsearch/files/7/data.json),',
      '[drawing](/deepsearch/files/7/flow.svg).',
      'Not generated: [package.json](/github.com/org/repo/-/blob/package.json), [elsewhere](https://example.org/x.csv).',
    ].join('\n');
    await panel.send({ ...snapshot(conversation([completedQuestion(1, { answer })])), instanceUrl: INSTANCE });
    const offered = await panel.page
      .locator('.generated-file-actions button')
      .evaluateAll((buttons) => buttons.map((button) => button.getAttribute('aria-label')));
    assert.deepEqual(offered, ['Open prices.csv', 'Save prices.csv As…', 'Open data.json', 'Save data.json As…', 'Open flow.svg', 'Save flow.svg As…']);
    assert.deepEqual(await panel.postedOfType('generatedFile'), []);
    await panel.page.getByRole('button', { name: 'Save data.json As…' }).click();
    await panel.page.getByRole('button', { name: 'Open flow.svg' }).click();
    assert.deepEqual(await panel.postedOfType('generatedFile'), [
      { type: 'generatedFile', href: 'https://sg.example.com/deepsearch/files/7/data.json', action: 'saveAs' },
      { type: 'generatedFile', href: '/deepsearch/files/7/flow.svg', action: 'open' },
    ]);
  });
});
