/**
 * Rows of the rendering figure for input built to be slow: the adversarial answers of
 * `test/webview/adversarialMarkdown.ts` (about 250 KB each; those the panel shows as Markdown sit
 * just inside its limits, the costliest it renders) and a reasoning turn of 125,000 lines.
 *
 * Measured for each, in the real panel page: its main-thread time, from the start of the dispatch
 * of the `questions` message that brings it to the end of the panel's handler, plus the style and
 * layout that message leaves for the next frame, forced and timed right after (see `forceLayout` in
 * `pageProbe.ts`); the median over the runs. The page's main-thread CPU time for the same span
 * (Chromium's Performance domain, in thread time: what other processes on the machine cannot
 * inflate) is kept alongside. Baseline, measured the same way in the same page: a realistic answer
 * of the same size, and a one-line turn.
 */
import type { Browser, CDPSession } from 'playwright-core';
import type { Question } from '../../src/model/conversation';
import { ANSWER_RENDERED } from '../../src/webview/timings';
import { ADVERSARIAL_INPUTS, type AdversarialInput } from '../../test/webview/adversarialMarkdown';
import { answerMarkdown } from '../../test/webview/answerMarkdown';
import { completedQuestion, conversation, processingQuestion, questionsUpdate, snapshot, T0, turn } from '../../test/webview/fixtures';
import { PanelPage, type PanelServer } from '../../test/webview/panelHarness';
import { kb, ms, type BenchContext, type Row } from '../report';
import { median } from '../stats';
import type { MessageTime } from './pageProbe';

/** The goal for every adversarial input: main-thread time, milliseconds. */
const MAX_MAIN_THREAD_MS = 250;
const RUNS = { runs: 3, quickRuns: 1 };
/** A reasoning turn of this many lines of one character: 250 KB. */
const TURN_LINES = 125_000;

interface Timing {
  /** Handler plus forced style and layout, in the page. */
  mainThread: number;
  /** The panel's own measure of rendering the answer (parse, sanitise, DOM), when it rendered one. */
  render: number;
  cpu: number;
}

interface Measured {
  name: string;
  bytes: number;
  mainThread: number;
  render: number;
  cpu: number;
}

export async function adversarialRows(browser: Browser, server: PanelServer, context: BenchContext): Promise<Row[]> {
  const runs = context.quick ? RUNS.quickRuns : RUNS.runs;
  const panel = await PanelPage.open(browser, server);
  try {
    const cdp = await panel.context.newCDPSession(panel.page);
    await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
    await panel.page.evaluate(() => {
      window.__renderProbe.forceLayout = true;
    });
    const page = new AnswerPage(panel, cdp);
    const normal = answerMarkdown(250 * 1024, 11);
    // Warm the parser, the builder, the sanitiser and the plain-text path before timing anything.
    for (const markdown of [normal, normal, ADVERSARIAL_INPUTS[0].markdown, '<b>raw</b> HTML\n\n'.repeat(500)]) await page.answer(markdown);

    const baseline = await measure(page, { group: 'other', name: 'realistic answer', markdown: normal, shown: { as: 'markdown' } }, runs);
    const measured: Record<'markdown' | 'plain', Measured[]> = { markdown: [], plain: [] };
    for (const input of ADVERSARIAL_INPUTS) {
      const result = await measure(page, input, runs);
      measured[input.shown.as].push(result);
      context.log(
        `${input.name} (${kb(input.markdown.length)}, ${input.shown.as}): ${ms(result.mainThread)} main thread, render ${ms(result.render)}, CPU ${ms(result.cpu)}`,
      );
    }
    context.log(`realistic answer (${kb(normal.length)}): ${ms(baseline.mainThread)} main thread, render ${ms(baseline.render)}, CPU ${ms(baseline.cpu)}`);
    const rows = [
      worstRow(
        `adversarial answers shown as Markdown (${measured.markdown.length}, just inside the limits, ~250 KB): main thread`,
        measured.markdown,
        baseline,
      ),
      worstRow(`adversarial answers shown as plain text with a note (${measured.plain.length}, ~250 KB, one of 2.2 MB): main thread`, measured.plain, baseline),
    ];
    rows.push(await turnRow(page, runs, context));
    if (panel.pageErrors.length > 0) throw new Error(`page errors: ${panel.pageErrors.map(String).join('; ')}`);
    return rows;
  } finally {
    await panel.close();
  }
}

function worstRow(figure: string, measured: readonly Measured[], baseline: Measured): Row {
  const worst = measured.reduce((a, b) => (b.mainThread > a.mainThread ? b : a));
  const worstCpu = measured.reduce((a, b) => (b.cpu > a.cpu ? b : a));
  return {
    figure,
    measured:
      `worst ${ms(worst.mainThread)} (${worst.name}; render ${ms(worst.render)}), median ${ms(median(measured.map((each) => each.mainThread)))}; ` +
      `CPU worst ${ms(worstCpu.cpu)}`,
    baseline: `realistic answer of ${kb(baseline.bytes)}: ${ms(baseline.mainThread)} (render ${ms(baseline.render)}; CPU ${ms(baseline.cpu)})`,
    goal: `≤ ${MAX_MAIN_THREAD_MS} ms each`,
    met: worst.mainThread <= MAX_MAIN_THREAD_MS,
    data: { inputs: measured, baseline },
  };
}

async function measure(page: AnswerPage, input: AdversarialInput, runs: number): Promise<Measured> {
  const timings: Timing[] = [];
  for (let run = 0; run < runs; run++) {
    timings.push(await page.answer(input.markdown));
    await page.assertShown(input);
  }
  return {
    name: input.name,
    bytes: input.markdown.length,
    mainThread: median(timings.map((timing) => timing.mainThread)),
    render: median(timings.map((timing) => timing.render)),
    cpu: median(timings.map((timing) => timing.cpu)),
  };
}

async function turnRow(page: AnswerPage, runs: number, context: BenchContext): Promise<Row> {
  const long: number[] = [];
  const short: number[] = [];
  const cpu: number[] = [];
  for (let run = 0; run < runs + 1; run++) {
    const longTurn = await page.turn(`${'x\n'.repeat(TURN_LINES - 1)}run ${run}`);
    const shortTurn = await page.turn(`Reading src/api/poller.ts, run ${run}.`);
    // The first run warms up.
    if (run === 0) continue;
    long.push(longTurn.mainThread);
    cpu.push(longTurn.cpu);
    short.push(shortTurn.mainThread);
  }
  const measured = median(long);
  context.log(`reasoning turn of ${TURN_LINES} lines: ${ms(measured)} main thread, CPU ${ms(median(cpu))}; one-line turn ${ms(median(short))}`);
  return {
    figure: `poll update adding a reasoning turn of ${kb(TURN_LINES * 2)} (${TURN_LINES.toLocaleString('en')} lines): main thread`,
    measured: `${ms(measured)} (n=${long.length}); CPU ${ms(median(cpu))}`,
    baseline: `a one-line turn ${ms(median(short))}`,
    goal: `≤ ${MAX_MAIN_THREAD_MS} ms`,
    met: measured <= MAX_MAIN_THREAD_MS,
    data: { long, short, cpu },
  };
}

/** The panel page, showing one question at a time, each new (the panel keeps a question's rendered answer). */
class AnswerPage {
  private id = 0;

  constructor(
    private readonly panel: PanelPage,
    private readonly cdp: CDPSession,
  ) {}

  /** Completes a new running question with `markdown` as its answer. */
  async answer(markdown: string): Promise<Timing> {
    const id = ++this.id;
    const value = conversation([processingQuestion(id)]);
    await this.panel.send(snapshot(value));
    return this.timed(questionsUpdate(value, [completedQuestion(id, { answer: markdown, title: `Adversarial ${id}` })]));
  }

  /** Adds a turn with `reasoning` to a new running question. */
  async turn(reasoning: string): Promise<Timing> {
    const id = ++this.id;
    const running = processingQuestion(id);
    const value = conversation([running]);
    await this.panel.send(snapshot(value));
    const update: Question = { ...running, turns: [...running.turns, turn(reasoning, 20)], updatedAt: new Date(T0 + 20_000).toISOString() };
    return this.timed(questionsUpdate(value, [update], T0 + 20_500));
  }

  /** Checks that the last answer shows as `input` says: the measurement is worth nothing otherwise. */
  async assertShown(input: AdversarialInput): Promise<void> {
    const shown = await this.panel.page.evaluate(() => {
      const markdown = document.querySelector('.answer .markdown');
      return { note: markdown?.querySelector('.markdown-plain-note')?.textContent ?? null, children: markdown?.childElementCount ?? 0 };
    });
    const plain = input.shown.as === 'plain';
    if ((shown.note !== null) !== plain || shown.children === 0) {
      throw new Error(`${input.name}: expected ${input.shown.as}, the page shows ${JSON.stringify(shown)}`);
    }
  }

  private async timed(message: Parameters<PanelPage['send']>[0]): Promise<Timing> {
    const page = this.panel.page;
    await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
    await page.evaluate((name) => {
      window.__renderProbe.messageTimes.splice(0);
      window.__renderProbe.takeMeasures(name);
      window.__renderProbe.collectGarbage();
    }, ANSWER_RENDERED);
    const before = await this.threadTime();
    await this.panel.send(message);
    const after = await this.threadTime();
    const times: MessageTime[] = await page.evaluate(() => window.__renderProbe.messageTimes.splice(0));
    const render = await page.evaluate((name) => window.__renderProbe.takeMeasures(name), ANSWER_RENDERED);
    const handled = times.filter((time) => time.type === 'questions');
    if (handled.length !== 1) throw new Error(`expected one timed 'questions' message, got ${JSON.stringify(times)}`);
    return { mainThread: handled[0].ms + (handled[0].layoutMs ?? 0), render: render[0] ?? Number.NaN, cpu: after - before };
  }

  /** The page's main-thread CPU time so far, in milliseconds. */
  private async threadTime(): Promise<number> {
    const { metrics } = await this.cdp.send('Performance.getMetrics');
    const value = metrics.find((metric) => metric.name === 'ThreadTime')?.value;
    if (value === undefined) throw new Error('Chromium reports no ThreadTime');
    return value * 1000;
  }
}
