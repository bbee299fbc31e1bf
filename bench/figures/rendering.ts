/**
 * Figure "rendering": the real panel page (its HTML, strict CSP and shipped bundle, via the webview
 * test harness) in real Chromium, timed inside the page, after a full garbage collection.
 *
 * - Answers of 10 KB, 100 KB and 1 MB, arriving the way they do: a `questions` message that
 *   completes a running question. Measured: the panel's own performance measure of rendering the
 *   answer (`ANSWER_RENDERED`): Markdown parse, sanitising, and the answer's DOM inserted into its
 *   question in the page, code-block headers included. Style and layout, which the browser does in
 *   the next frame, are not. Baseline: `marked.parse` alone on the same input in the same page.
 *   The whole message (the rest of the question too: status, sources, stats, follow-ups) is timed
 *   as well and kept in the row's data.
 * - A poll update that only adds a reasoning turn to the running question of a conversation holding
 *   20 finished answers: from the start of the message's dispatch to the end of the panel's handler
 *   and its microtasks.
 * - Input built to be slow (`bench/rendering/adversarialRows.ts`): the worst main-thread time, style
 *   and layout included, over the adversarial answers the panel shows as Markdown and over those it
 *   shows as plain text, and of a 250 KB reasoning turn; baseline: a realistic answer of that size.
 */
import path from 'node:path';
import type { Browser } from 'playwright-core';
import type { Question } from '../../src/model/conversation';
import { completedQuestion, conversation, processingQuestion, questionsUpdate, snapshot, T0, turn } from '../../test/webview/fixtures';
import { buildProbeBundle, buildWebviewBundle, launchChromium, PanelPage, startPanelServer, type PanelServer } from '../../test/webview/panelHarness';
import { answerMarkdown } from '../../test/webview/answerMarkdown';
import { adversarialRows } from '../rendering/adversarialRows';
import { richAnswerRows } from '../rendering/richAnswerRows';
import type { MessageTime } from '../rendering/pageProbe';
import { ANSWER_RENDERED } from '../../src/webview/timings';
import { kb, ms, ratio, spread, type BenchContext, type Figure, type Row } from '../report';
import { summarize } from '../stats';

/** The goal: the panel's render takes at most this many times as long as `marked.parse` alone. */
const MAX_RATIO = 1.5;
/** The goal for a poll update, in milliseconds (p95). */
const MAX_POLL_UPDATE_MS = 5;

/** Small answers are cheap to repeat, and their medians need the runs: a millisecond is noisy. */
const SIZES = [
  { bytes: 10 * 1024, runs: 40, quickRuns: 20 },
  { bytes: 100 * 1024, runs: 20, quickRuns: 12 },
  { bytes: 1024 * 1024, runs: 10, quickRuns: 6 },
];
const POLL_UPDATES = { runs: 60, quickRuns: 20 };
const FINISHED_ANSWERS = 20;

export const renderingFigure: Figure = { id: 'rendering', title: 'Rendering in Chromium', run };

async function run(context: BenchContext): Promise<Row[]> {
  buildWebviewBundle();
  // The page-side probe: a bundle of its own, never part of the shipped webview bundle.
  const probeScript = buildProbeBundle(path.join(__dirname, '..', 'rendering', 'pageProbe.ts'), path.join(context.scratch, 'renderProbe.js'));
  const browser = await launchChromium(['--js-flags=--expose-gc']);
  let server: PanelServer | undefined;
  try {
    server = await startPanelServer({ probeScript });
    const rows: Row[] = [];
    for (const size of SIZES) {
      rows.push(await answerRow(browser, server, size.bytes, context.quick ? size.quickRuns : size.runs, context));
    }
    rows.push(await pollRow(browser, server, context.quick ? POLL_UPDATES.quickRuns : POLL_UPDATES.runs, context));
    rows.push(...(await adversarialRows(browser, server, context)));
    rows.push(...(await richAnswerRows(browser, server, context)));
    return rows;
  } finally {
    await browser.close();
    await server?.close();
  }
}

async function answerRow(browser: Browser, server: PanelServer, bytes: number, runs: number, context: BenchContext): Promise<Row> {
  const markdown = answerMarkdown(bytes, bytes);
  const panel = await PanelPage.open(browser, server);
  try {
    await panel.page.evaluate((input) => {
      window.__renderProbe.inputs.answer = input;
    }, markdown);
    const warmup = 2;
    const rendered: number[] = [];
    const handled: number[] = [];
    const parsed: number[] = [];
    for (let index = 0; index < warmup + runs; index++) {
      // A new question each time: the panel keeps a question's rendered answer and would reuse it.
      const id = index + 1;
      const value = conversation([processingQuestion(id)]);
      await panel.send(snapshot(value));
      await settle(panel);
      await takeMessageTimes(panel);
      await collectGarbage(panel);
      await panel.send(questionsUpdate(value, [finishedQuestion(id, markdown)]));
      const update = messageTime(await takeMessageTimes(panel), 'questions');
      const render = await panel.page.evaluate((name) => window.__renderProbe.takeMeasures(name), ANSWER_RENDERED);
      if (render.length !== 1) throw new Error(`expected one rendered answer, got ${render.length}`);
      await settle(panel);
      const parse = await panel.page.evaluate(() => window.__renderProbe.markedParse('answer'));
      if (index >= warmup) {
        rendered.push(render[0]);
        handled.push(update);
        parsed.push(parse);
      }
    }
    await assertRendered(panel, markdown);
    const panelSummary = summarize(rendered);
    const markedSummary = summarize(parsed);
    const updateSummary = summarize(handled);
    const factor = panelSummary.median / markedSummary.median;
    context.log(
      `answer ${kb(markdown.length)}: rendered ${ms(panelSummary.median)}, marked ${ms(markedSummary.median)}, ${ratio(factor)}; ` +
        `whole update ${ms(updateSummary.median)}`,
    );
    return {
      figure: `answer of ${kb(bytes)}: parse + sanitise + DOM`,
      measured: `${spread(panelSummary)}; ${ratio(factor)}; whole message ${ms(updateSummary.median)}`,
      baseline: `marked.parse alone ${spread(markedSummary)}`,
      goal: `≤ ${MAX_RATIO} × marked alone`,
      met: factor <= MAX_RATIO,
      data: { bytes: markdown.length, rendered, marked: parsed, ratio: factor, wholeUpdate: handled },
    };
  } finally {
    await panel.close();
  }
}

async function pollRow(browser: Browser, server: PanelServer, runs: number, context: BenchContext): Promise<Row> {
  const finished = Array.from({ length: FINISHED_ANSWERS }, (_, index) => {
    const id = index + 1;
    // 5–10 KB each, all different.
    return finishedQuestion(id, answerMarkdown(5 * 1024 + ((index * 1777) % (5 * 1024)), 1000 + id));
  });
  const running = processingQuestion(FINISHED_ANSWERS + 1);
  const value = conversation([...finished, running]);
  const panel = await PanelPage.open(browser, server);
  try {
    await panel.send(snapshot(value));
    // The reader follows the live reasoning at the end of the conversation.
    await panel.page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await settle(panel);
    const warmup = 3;
    const times: number[] = [];
    let turns = running.turns;
    for (let index = 0; index < warmup + runs; index++) {
      const seconds = 12 + index * 2;
      turns = [
        ...turns,
        turn(
          index % 2 === 0
            ? `Reading src/api/poller.ts lines ${index * 10}–${index * 10 + 40} to see how the delay grows after error ${index}.`
            : `Searching for callers of nextInterval across the repository (pass ${index}); ${index * 3} matches so far.`,
          seconds,
          index % 2 === 0 ? 'tool' : 'assistant',
        ),
      ];
      const update: Question = { ...running, turns, updatedAt: new Date(T0 + seconds * 1000).toISOString() };
      await takeMessageTimes(panel);
      await collectGarbage(panel);
      await panel.send(questionsUpdate(value, [update], T0 + seconds * 1000 + 500));
      const time = messageTime(await takeMessageTimes(panel), 'questions');
      if (index >= warmup) times.push(time);
      await settle(panel);
    }
    const shown = await panel.page.locator(`[data-question-id="${running.id}"] .turn`).count();
    if (shown !== turns.length - 1) throw new Error(`the running question shows ${shown} turns, expected ${turns.length - 1}`);
    const summary = summarize(times);
    context.log(`poll update: median ${ms(summary.median)}, p95 ${ms(summary.p95)}`);
    return {
      figure: `poll update adding a reasoning turn, ${FINISHED_ANSWERS} finished answers shown`,
      measured: `median ${ms(summary.median)}, p95 ${ms(summary.p95)} (max ${ms(summary.max)}, n=${summary.n})`,
      baseline: '—',
      goal: `≤ ${MAX_POLL_UPDATE_MS} ms (p95)`,
      met: summary.p95 <= MAX_POLL_UPDATE_MS,
      data: { times, answersBytes: finished.map((question) => question.answer?.length ?? 0) },
    };
  } finally {
    await panel.close();
  }
}

function finishedQuestion(id: number, answer: string): Question {
  return completedQuestion(id, { answer, title: `How the poller backs off (${id})` });
}

/** Lets the page render a frame or two, as it would between two host messages. */
async function settle(panel: PanelPage): Promise<void> {
  await panel.page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
}

async function collectGarbage(panel: PanelPage): Promise<void> {
  await panel.page.evaluate(() => window.__renderProbe.collectGarbage());
}

async function takeMessageTimes(panel: PanelPage): Promise<MessageTime[]> {
  return panel.page.evaluate(() => window.__renderProbe.messageTimes.splice(0));
}

function messageTime(times: readonly MessageTime[], type: string): number {
  const matching = times.filter((time) => time.type === type);
  if (matching.length !== 1) throw new Error(`expected one timed '${type}' message, got ${JSON.stringify(times)}`);
  return matching[0].ms;
}

/** The measurement is only worth something if the answer really is in the page. */
async function assertRendered(panel: PanelPage, markdown: string): Promise<void> {
  const counts = await panel.page.evaluate(() => ({
    codeBlocks: document.querySelectorAll('.markdown .code-block').length,
    tables: document.querySelectorAll('.markdown table').length,
    links: document.querySelectorAll('.markdown a[href]').length,
  }));
  const fences = (markdown.match(/^```ts$/gm) ?? []).length;
  if (counts.codeBlocks !== fences || counts.tables === 0 || counts.links === 0) {
    throw new Error(`the answer did not render as expected: ${JSON.stringify(counts)}, ${fences} fences`);
  }
  if (panel.pageErrors.length > 0) throw new Error(`page errors: ${panel.pageErrors.map(String).join('; ')}`);
}
