/**
 * Figure "investigation with a model": the engine on the search corpus (searchCorpus.ts, about
 * 20,000 files) answers a question with a scripted OpenAI-compatible model (test/support/
 * scriptedModel.ts: a model cannot run here) that makes five tool calls — keyword and natural-
 * language search, a file read, definition and references — then writes an answer with two real
 * links and four invented ones. Measured:
 *   - the time the engine adds per tool call: the answer's time less the model's and the tools' own
 *     (the engine's log line per investigation), over the calls made (goal ≤ 50 ms); the baseline is
 *     what the same five calls cost made one by one over the tool server;
 *   - invented links repaired or removed (goal: every one), checked here against git, not by the
 *     engine's own check.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { API_PATH, type WireConversation } from '../../src/contract/legacyWire';
import { blobUrl } from '../../src/engine/answers/answerWriter';
import { createOpenAiModel } from '../../src/engine/models/openaiModel';
import { startEngine } from '../../src/engine/server';
import { startScriptedModel, type ScriptedReply } from '../../test/support/scriptedModel';
import { ms, type BenchContext, type Figure, type Row } from '../report';
import { median } from '../stats';
import { waitForLine } from './engineSearch';
import { ensureCorpus } from './searchCorpus';

const run = promisify(execFile);
const TOKEN = 'dse_bench_model_token';
const CLIENT = 'deep-search-bench 1.0.0';
const OVERHEAD_GOAL_MS = 50;
const TIMES = /links ([\d.]+) ms, engine ([\d.]+) ms$/;

export const modelInvestigationFigure: Figure = { id: 'model', title: 'Investigation with a model (scripted)', run: measure };

interface Call {
  name: string;
  arguments: Record<string, unknown>;
}

async function measure(context: BenchContext): Promise<Row[]> {
  const corpus = await ensureCorpus(context);
  const answers = context.quick ? 3 : 7;
  const dataDir = await mkdtemp(path.join(context.scratch, 'model-engine-'));
  const lines: string[] = [];
  let script: ScriptedReply[] = [];
  const model = await startScriptedModel((_request, index) => script[index % script.length] ?? { text: '' });
  const engine = await startEngine({
    repos: [corpus.dir],
    users: [{ token: TOKEN }],
    dataDir,
    port: 0,
    paceMs: 0,
    log: (line) => lines.push(line),
    model: () => createOpenAiModel({ baseUrl: model.baseUrl, model: 'scripted' }),
  });
  try {
    const repo = engine.repoNames[0] ?? '';
    const callTool = async (call: Call): Promise<{ text: string; ms: number }> => {
      const started = performance.now();
      const response = await fetch(`${engine.url}/.api/mcp/all`, {
        method: 'POST',
        headers: { Authorization: `token ${TOKEN}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: call.name, arguments: call.arguments } }),
      });
      const body = (await response.json()) as { result?: { content?: Array<{ text: string }>; isError?: boolean } };
      if (body.result?.isError) throw new Error(`${call.name} failed: ${body.result.content?.[0]?.text ?? ''}`);
      return { text: body.result?.content?.map((part) => part.text).join('\n') ?? '', ms: performance.now() - started };
    };
    // The transcript: where mergeMap is defined, found as a model would, then read.
    const search = await callTool({ name: 'keyword_search', arguments: { query: 'function mergeMap file:\\.js$' } });
    const file = /^## .+? — (.+)$/m.exec(search.text)?.[1];
    if (!file) throw new Error(`the corpus has no mergeMap definition: ${search.text.slice(0, 200)}`);
    const source = (await run('git', ['show', `HEAD:${file}`], { cwd: corpus.dir, maxBuffer: 64 * 2 ** 20 })).stdout.split('\n');
    const defined = source.findIndex((line) => /function mergeMap\b/.test(line)) + 1;
    const calls: Call[] = [
      { name: 'keyword_search', arguments: { query: 'function mergeMap file:\\.js$' } },
      { name: 'nls_search', arguments: { query: 'merge map inner observable concurrency' } },
      { name: 'read_file', arguments: { repo, path: file, startLine: Math.max(1, defined - 5), endLine: defined + 30 } },
      { name: 'go_to_definition', arguments: { repo, path: file, symbol: 'mergeMap' } },
      { name: 'find_references', arguments: { repo, path: file, symbol: 'mergeMap' } },
    ];
    const quote = (source[defined - 1] ?? '').trim();
    const link = (linkedPath: string, start: number, end: number): string => blobUrl(engine.url, repo, linkedPath, { start, end });
    const invented = [
      // The right file, the wrong lines.
      `[${file}](${link(file, defined + 400, defined + 402)}):\n\n\`\`\`js\n${quote}\n\`\`\``,
      // A file that does not exist, quoting code that does.
      `[src/operators/merge.js](${link('src/operators/merge.js', 1, 3)}):\n\n\`\`\`js\n${quote}\n\`\`\``,
      // A file and code that exist nowhere.
      `[src/made/up.js](${link('src/made/up.js', 10, 12)}):\n\n\`\`\`js\nconst invented = mergeEverything(sources);\n\`\`\``,
      // The right file, lines past its end, nothing quoted.
      `[the end of it](${link(file, source.length + 50, source.length + 60)})`,
    ];
    const real = [`[${file}:${defined}](${link(file, defined, defined)}):\n\n\`\`\`js\n${quote}\n\`\`\``, `[the file](${link(file, 1, 1)})`];
    script = [...calls.map((call) => ({ toolCalls: [call] })), { text: `mergeMap is defined here: ${real[0]}\n\nSee ${real[1]}.\n\n${invented.join('\n\n')}` }];

    // The baseline: the same calls on their own, over the tool server (once to warm, then timed),
    // once the search index the first search started is built: no build beside the measured runs.
    for (const call of calls) await callTool(call);
    await waitForLine(lines, /^(search index of|no search index for|search index failed for)/, 300_000);
    context.log(`measuring once the index is ready: ${lines.find((line) => line.startsWith('search index of')) ?? ''}`);
    const alone: number[] = [];
    for (let round = 0; round < answers; round++) {
      let total = 0;
      for (const call of calls) total += (await callTool(call)).ms;
      alone.push(total / calls.length);
    }

    const perCall: number[] = [];
    const perAnswer: number[] = [];
    const linkChecks: number[] = [];
    let inventedSeen = 0;
    let fixed = 0;
    let realKept = 0;
    for (let round = 0; round < answers; round++) {
      const before = lines.length;
      const answer = await ask(engine.url, 'Where is mergeMap defined, and how does it limit concurrency?');
      const logged = lines.slice(before).find((line) => line.startsWith('investigation: '));
      context.log(logged ?? '');
      const times = TIMES.exec(logged ?? '');
      const own = Number(times?.[2]);
      linkChecks.push(Number(times?.[1]));
      if (!logged || !Number.isFinite(own)) throw new Error(`no investigation log line; the answer was: ${answer.slice(0, 300)}`);
      perAnswer.push(own);
      perCall.push(own / calls.length);
      // Every link left in the answer, checked against git: it names a file that exists and lines inside it that hold its quote.
      const verdicts = await checkLinks(corpus.dir, engine.url, answer);
      inventedSeen += invented.length;
      fixed += invented.length - verdicts.broken;
      realKept += verdicts.valid >= real.length ? real.length : verdicts.valid;
    }
    const perCallMedian = median(perCall);
    return [
      {
        figure: `engine time per tool call of a model's investigation (${corpus.files} files, ${calls.length} calls per answer, median of ${answers} answers)`,
        measured: ms(perCallMedian),
        baseline: `each call alone over the tool server: ${ms(median(alone))}`,
        goal: `≤ ${OVERHEAD_GOAL_MS} ms`,
        met: perCallMedian <= OVERHEAD_GOAL_MS,
        data: { perCall, perAnswer, alone },
      },
      {
        figure: "engine time per answer of a model's investigation (turns recorded, history kept), besides checking its links",
        measured: ms(median(perAnswer)),
        baseline: `the ${calls.length} calls alone: ${ms(median(alone) * calls.length)}`,
        goal: '—',
      },
      {
        figure: `checking the ${real.length + invented.length} links of an answer against the repository (files read, quotes searched)`,
        measured: ms(median(linkChecks)),
        baseline: '—',
        goal: '—',
        data: { linkChecks },
      },
      {
        figure: "invented links in a model's answer repaired or removed (checked against git)",
        measured: `${fixed}/${inventedSeen}; real links kept ${realKept}/${real.length * answers}`,
        baseline: '—',
        goal: 'every one',
        met: fixed === inventedSeen && realKept === real.length * answers,
      },
    ];
  } finally {
    await engine.close();
    await model.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function ask(url: string, question: string): Promise<string> {
  const headers = { Authorization: `token ${TOKEN}`, 'X-Requested-With': CLIENT, 'Content-Type': 'application/json' };
  const created = (await (await fetch(`${url}${API_PATH}/`, { method: 'POST', headers, body: JSON.stringify({ question }) })).json()) as WireConversation;
  for (let attempt = 0; attempt < 6000; attempt++) {
    const conversation = (await (await fetch(`${url}${API_PATH}/${created.id}`, { headers })).json()) as WireConversation;
    const latest = conversation.questions.at(-1);
    if (latest && latest.status !== 'processing') {
      if (!latest.answer) throw new Error(`no answer: ${JSON.stringify(latest.error)}`);
      return latest.answer;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the answer did not come within 2 minutes');
}

/** Each link into the corpus: valid (file exists, lines inside it, holding the quote after it) or broken. */
async function checkLinks(dir: string, url: string, answer: string): Promise<{ valid: number; broken: number }> {
  let valid = 0;
  let broken = 0;
  for (const match of answer.matchAll(/\[[^\]]*\]\(([^)\s]+)\)(:\n\n```[^\n]*\n([^\n]*)\n```)?/g)) {
    const href = match[1] ?? '';
    if (!href.startsWith(`${url}/`)) continue;
    const parsed = /\/-\/blob\/([^?#]+)\?L(\d+)-(\d+)$/.exec(href);
    const file = parsed?.[1] ? decodeURIComponent(parsed[1]) : undefined;
    const lines = file
      ? await run('git', ['show', `HEAD:${file}`], { cwd: dir, maxBuffer: 64 * 2 ** 20 }).then(
          (result) => result.stdout.split('\n'),
          () => undefined,
        )
      : undefined;
    const start = Number(parsed?.[2]);
    const end = Number(parsed?.[3]);
    const inside = lines !== undefined && start >= 1 && end <= lines.length && start <= end;
    const quoted = match[3]?.trim();
    const holds = inside && (quoted === undefined || lines.slice(start - 1, end).some((line) => line.trim() === quoted));
    if (holds) valid++;
    else broken++;
  }
  return { valid, broken };
}
