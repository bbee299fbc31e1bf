/**
 * Rows of figure "rendering" for what the panel adds to an answer (issue: answers as rich as the
 * instance's page), in the real page in Chromium:
 *
 * - An answer with 50 citations (links to a file and lines) and a Mermaid diagram, against the same
 *   answer without them (the same links to pages that are not files, the diagram as a plain code
 *   block): the panel's render of the answer (`ANSWER_RENDERED`: Markdown, sanitising, DOM,
 *   citation badges and list). The diagram is drawn after the answer shows: its own time is kept
 *   in the row's data (first drawing includes loading the library).
 * - JavaScript loaded by the page for an answer without a diagram and for one with a diagram: the
 *   diagram library must not be loaded for the first.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { completedQuestion, conversation, processingQuestion, questionsUpdate, snapshot } from '../../test/webview/fixtures';
import { PanelPage, REPO_ROOT, type PanelServer } from '../../test/webview/panelHarness';
import { answerMarkdown } from '../../test/webview/answerMarkdown';
import { ANSWER_RENDERED } from '../../src/webview/timings';
import { kb, ms, ratio, spread, type BenchContext, type Row } from '../report';
import { summarize } from '../stats';

const MAX_RATIO = 1.5;
const CITATIONS = 50;
const INSTANCE = 'https://sourcegraph.example.com';
const DIAGRAM = ['flowchart LR', '  ask[Ask] --> poll[Poll until done]', '  poll --> answer[Show the answer]', '  answer --> cite[Cite the lines]'].join('\n');

/** A 20 KB answer with 50 links and a diagram; `rich` makes the links citations and the block Mermaid. */
function answer(rich: boolean): string {
  const links = Array.from({ length: CITATIONS }, (_, index) =>
    rich
      ? `- [step ${index}](/github.com/org/repo/-/blob/src/file${index % 17}.ts?L${index + 1}-${index + 9})`
      : `- [step ${index}](/search?q=step${index}&patternType=literal)`,
  );
  return [answerMarkdown(20 * 1024, 7), '', ...links, '', rich ? '```mermaid' : '```text', DIAGRAM, '```', ''].join('\n');
}

export async function richAnswerRows(browser: Browser, server: PanelServer, context: BenchContext): Promise<Row[]> {
  const runs = context.quick ? 10 : 30;
  const plain = await renderTimes(browser, server, answer(false), runs);
  const rich = await renderTimes(browser, server, answer(true), runs);
  const plainSummary = summarize(plain.times);
  const richSummary = summarize(rich.times);
  const factor = richSummary.median / plainSummary.median;
  context.log(`rich answer: ${ms(richSummary.median)} against ${ms(plainSummary.median)} (${ratio(factor)}); diagram drawn in ${ms(rich.diagramMs)}`);
  const bytes = await scriptBytes(browser, server);
  context.log(`scripts loaded: ${kb(bytes.withoutDiagram)} without a diagram, ${kb(bytes.withDiagram)} with one`);
  return [
    {
      figure: `answer with ${CITATIONS} citations and a diagram: render`,
      measured: `${spread(richSummary)}; ${ratio(factor)}; diagram drawn ${ms(rich.diagramMs)} later`,
      baseline: `the same answer without them ${spread(plainSummary)}`,
      goal: `≤ ${MAX_RATIO} × without`,
      met: factor <= MAX_RATIO,
      data: { rich: rich.times, plain: plain.times, ratio: factor, diagramMs: rich.diagramMs, citations: rich.citations },
    },
    {
      figure: 'JavaScript loaded by the panel for an answer',
      measured: `${kb(bytes.withoutDiagram)} without a diagram (diagram library: ${kb(bytes.diagramWithout)})`,
      baseline: `${kb(bytes.withDiagram)} with a diagram`,
      goal: 'no diagram library without a diagram',
      met: bytes.diagramWithout === 0 && bytes.withDiagram > bytes.withoutDiagram,
      data: bytes,
    },
  ];
}

async function renderTimes(
  browser: Browser,
  server: PanelServer,
  markdown: string,
  runs: number,
): Promise<{ times: number[]; diagramMs: number; citations: number }> {
  const panel = await PanelPage.open(browser, server);
  try {
    const times: number[] = [];
    let diagramMs = 0;
    let citations = 0;
    for (let index = 0; index < runs + 2; index++) {
      const id = index + 1;
      const value = conversation([processingQuestion(id)]);
      await panel.send({ ...snapshot(value), instanceUrl: INSTANCE });
      await panel.page.evaluate(() => window.__renderProbe.collectGarbage());
      const sent = Date.now();
      await panel.send(questionsUpdate(value, [completedQuestion(id, { answer: markdown })]));
      const render = await panel.page.evaluate((name) => window.__renderProbe.takeMeasures(name), ANSWER_RENDERED);
      if (render.length !== 1) throw new Error(`expected one rendered answer, got ${render.length}`);
      if (markdown.includes('```mermaid')) {
        await panel.page.locator('.diagram-block img.diagram-image').waitFor({ timeout: 60_000 });
        if (index === 0) diagramMs = Date.now() - sent;
      }
      citations = await panel.page.locator('.citation-list li').count();
      if (index >= 2) times.push(render[0]);
    }
    if (markdown.includes('```mermaid') && citations < CITATIONS) throw new Error(`expected at least ${CITATIONS} citations, the panel lists ${citations}`);
    if (panel.pageErrors.length > 0) throw new Error(`page errors: ${panel.pageErrors.map(String).join('; ')}`);
    return { times, diagramMs, citations };
  } finally {
    await panel.close();
  }
}

/** Bytes of the scripts a fresh page requested, for an answer without and then one with a diagram. */
async function scriptBytes(browser: Browser, server: PanelServer): Promise<{ withoutDiagram: number; diagramWithout: number; withDiagram: number }> {
  const loaded = async (markdown: string, drawn: boolean) => {
    const from = server.requests.length;
    const panel = await PanelPage.open(browser, server);
    try {
      await panel.send({ ...snapshot(conversation([completedQuestion(1, { answer: markdown })])), instanceUrl: INSTANCE });
      if (drawn) await panel.page.locator('.diagram-block img.diagram-image').waitFor({ timeout: 60_000 });
      else await panel.page.waitForTimeout(500);
      const scripts = server.requests.slice(from).filter((request) => request.startsWith('/dist/webview/') && request.endsWith('.js'));
      const size = (request: string) => statSync(path.join(REPO_ROOT, request.slice(1))).size;
      return {
        total: scripts.reduce((sum, request) => sum + size(request), 0),
        // The library's entry chunk; the chunks only it imports come with it.
        diagram: scripts.filter((request) => /\/chunks\/diagramRenderer-/.test(request)).reduce((sum, request) => sum + size(request), 0),
      };
    } finally {
      await panel.close();
    }
  };
  const without = await loaded(answer(false), false);
  const withDiagram = await loaded(answer(true), true);
  return { withoutDiagram: without.total, diagramWithout: without.diagram, withDiagram: withDiagram.total };
}
