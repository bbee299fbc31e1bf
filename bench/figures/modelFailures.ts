/**
 * Figure "model failures": the engine as it ships (`dist/engine.js`) with a model server that
 * misbehaves (test/support/modelFaults.ts: an echoed key in a 401 and a 500, a cut stream, malformed
 * events, HTML with 200, a reply that never ends, floods, a server that is not running) and a model
 * whose answer cites invented code in every form a Markdown link takes. Measured:
 *   - secrets shown: places (the answer, its turns and stats, the engine's output, its data folder,
 *     its children's environments) where the key appears, over every scenario (goal 0);
 *   - failures named right: answers whose first line names what happened (goal every one);
 *   - citations unverified but kept: links into the repositories left in the answer that do not
 *     hold up when checked here against git and the answer's Markdown parsed with `marked`
 *     (goal 0).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { Lexer, type Token, type Tokens } from 'marked';
import { API_PATH, type WireConversation, type WireQuestion } from '../../src/contract/legacyWire';
import { allText, closedPort, descendantEnvironments, MODEL_FAULTS } from '../../test/support/modelFaults';
import { createSampleAppRepo, SAMPLE_APP_NAME } from '../../test/support/gitRepos';
import { startScriptedModel, type ScriptedReply } from '../../test/support/scriptedModel';
import { startEngineProcess } from '../engineProcess';
import type { BenchContext, Figure, Row } from '../report';

const run = promisify(execFile);
const TOKEN = 'dse_bench_failures_token';
const CLIENT = 'deep-search-bench 1.0.0';
const KEY = 'sk-bench-7d41c0e95ab2f368';
const KEY_VARIABLE = 'DSE_BENCH_MODEL_KEY';
const QUESTION = 'Where is `parseConfig` defined?';

export const modelFailuresFigure: Figure = { id: 'model-failures', title: 'Model failures (scripted server, shipped engine)', run: measure };

interface Scenario {
  name: string;
  baseUrl: string;
  line?: RegExp;
  extra?: string[];
}

async function measure(context: BenchContext): Promise<Row[]> {
  const repo = await createSampleAppRepo();
  const scratch = await mkdtemp(path.join(context.scratch, 'model-failures-'));
  let tried = 0;
  let named = 0;
  const shown: string[] = [];
  const misnamed: string[] = [];
  try {
    const scenarios: Array<{ script: ScriptedReply[] | undefined; scenario: Omit<Scenario, 'baseUrl'> }> = [
      ...MODEL_FAULTS.map((fault) => ({
        script: fault.script,
        scenario: { name: fault.name, line: fault.line, ...(fault.extra ? { extra: fault.extra } : {}) },
      })),
      { script: undefined, scenario: { name: 'is not running', line: /^> The model server at 127\.0\.0\.1:\d+ is not running/ } },
    ];
    for (const { script, scenario } of scenarios) {
      const model = script ? await startScriptedModel(script) : undefined;
      try {
        const baseUrl = model?.baseUrl ?? `http://127.0.0.1:${await closedPort()}/v1`;
        const result = await askEngine(context, repo.dir, path.join(scratch, `case-${tried}`), { ...scenario, baseUrl });
        tried++;
        const firstLine = (result.question.answer ?? '').split('\n')[0] ?? '';
        if (scenario.line?.test(firstLine)) named++;
        else misnamed.push(`${scenario.name}: ${firstLine.slice(0, 160)}`);
        shown.push(...result.places.map((place) => `${scenario.name}: ${place}`));
      } finally {
        await model?.close();
      }
    }
    for (const line of misnamed) context.log(`named wrong: ${line}`);
    for (const place of shown) context.log(`key shown: ${place}`);

    // A model that answers with invented citations in every form of link.
    const model = await startScriptedModel((request) => ({ text: inventedCitations(engineUrlOf(request.body.messages[0]?.content ?? '')) }));
    let citations = { kept: 0, unverified: 0, details: [] as string[] };
    try {
      const result = await askEngine(context, repo.dir, path.join(scratch, 'citations'), { name: 'citations', baseUrl: model.baseUrl });
      citations = await verifyCitations(repo.dir, result.url, result.question.answer ?? '');
      shown.push(...result.places.map((place) => `citations: ${place}`));
    } finally {
      await model.close();
    }
    for (const detail of citations.details) context.log(`unverified but kept: ${detail}`);
    return [
      {
        figure: `model failures: scenarios tried (${tried}), secrets shown (places where the key appears)`,
        measured: String(shown.length),
        baseline: '—',
        goal: '0',
        met: shown.length === 0,
        data: { shown },
      },
      {
        figure: "model failures named right by the answer's first line",
        measured: `${named}/${tried}`,
        baseline: '—',
        goal: 'every one',
        met: named === tried,
        data: { misnamed },
      },
      {
        figure: `citations of a model's answer in every link form (${citations.kept} links kept): unverified but kept`,
        measured: String(citations.unverified),
        baseline: '—',
        goal: '0',
        met: citations.unverified === 0,
        data: { details: citations.details },
      },
    ];
  } finally {
    await repo.remove();
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Runs the shipped engine with the model at `baseUrl`, asks one question, and looks for the key everywhere it left. */
async function askEngine(
  context: BenchContext,
  repoDir: string,
  dataDir: string,
  scenario: Scenario,
): Promise<{ question: WireQuestion; places: string[]; url: string }> {
  const args = ['--repo', repoDir, '--data', dataDir, '--token', TOKEN, '--pace', '0', '--port', '0'];
  const modelArgs = ['--model-url', scenario.baseUrl, '--model', 'scripted-1', '--model-key-env', KEY_VARIABLE, ...(scenario.extra ?? [])];
  const engine = await startEngineProcess(context, [...args, ...modelArgs], { [KEY_VARIABLE]: KEY });
  try {
    const headers = { Authorization: `token ${TOKEN}`, 'X-Requested-With': CLIENT, 'Content-Type': 'application/json' };
    const created = (await (
      await fetch(`${engine.url}${API_PATH}/`, { method: 'POST', headers, body: JSON.stringify({ question: QUESTION }) })
    ).json()) as WireConversation;
    let question: WireQuestion | undefined;
    for (let attempt = 0; attempt < 6000 && !question; attempt++) {
      const conversation = (await (await fetch(`${engine.url}${API_PATH}/${created.id}`, { headers })).json()) as WireConversation;
      const latest = conversation.questions.at(-1);
      if (latest && latest.status !== 'processing') question = latest;
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
    if (!question) throw new Error(`no answer within 2 minutes (${scenario.name}): ${engine.state()}`);
    const environments = await descendantEnvironments(engine.child.pid ?? 0);
    await engine.close();
    const places: Array<[string, string]> = [
      ['the answer, its turns and its stats', JSON.stringify(question)],
      ["the engine's output", engine.lines.join('\n')],
      ['the data folder', await allText(dataDir)],
      ...environments.map((environment, index): [string, string] => [`child process ${index + 1}'s environment`, environment]),
    ];
    return { question, places: places.filter(([, text]) => text.includes(KEY)).map(([where]) => where), url: engine.url };
  } finally {
    await engine.close();
  }
}

/** The engine's address, from the instructions (they show the link form with it). */
function engineUrlOf(instructions: string): string {
  return /\((http:\/\/127\.0\.0\.1:\d+)\//.exec(instructions)?.[1] ?? 'http://127.0.0.1:1';
}

/** An answer whose every citation is invented, one per form a link takes (a paragraph each), and one real one. */
function inventedCitations(url: string): string {
  const port = new URL(url).port;
  const blob = (base: string, file: string, range = '?L1-3'): string => `${base}/${SAMPLE_APP_NAME}/-/blob/${file}${range}`;
  return [
    `The real one: [src/config.ts](${blob(url, 'src/config.ts', '?L10-11')}).`,
    `With a title: [invented](${blob(url, 'src/invented.ts')} "a title").`,
    `In angle brackets: [invented](<${blob(url, 'src/invented-angle.ts')}>).`,
    `By reference: [invented][ref] and [ref].`,
    `An autolink: <${blob(url, 'src/invented-auto.ts')}>.`,
    `A bare address: ${blob(url, 'src/invented-bare.ts')} .`,
    `Relative: [invented](${blob('', 'src/invented-relative.ts')}).`,
    `Another spelling: [invented](${blob(`http://localhost:${port}`, 'src/invented-localhost.ts')}).`,
    `IPv6: [invented](${blob(`http://[::1]:${port}`, 'src/invented-v6.ts')}).`,
    `Climbing out: [invented](${blob(url, 'src/../../../../etc/passwd')}).`,
    `Encoded: [invented](${blob(url, 'src/%2e%2e/%2e%2e/etc/passwd')}).`,
    [
      `A quote whose first line is real [src/config.ts](${blob(url, 'src/config.ts', '?L11-13')}):`,
      '',
      '```ts',
      'export function parseConfig(text: string): AppConfig {',
      '  return invented(text);',
      '  // and more invented code',
      '```',
    ].join('\n'),
    `[ref]: ${blob(url, 'src/invented-reference.ts')}`,
  ].join('\n\n');
}

/**
 * Every link of the answer (parsed as the panel parses it) that points into the engine, under any
 * spelling of its address or relative to it, checked against git: the file exists, the lines are
 * inside it, and a fenced quote right after the link is there, all its lines in a row in the range.
 */
async function verifyCitations(repoDir: string, engineUrl: string, answer: string): Promise<{ kept: number; unverified: number; details: string[] }> {
  const tokens = new Lexer({ gfm: true }).lex(answer);
  const links: Array<{ href: string; quote?: string[] }> = [];
  const linksIn = (token: Token): Array<{ href: string }> => [
    ...(token.type === 'link' ? [{ href: (token as Tokens.Link).href }] : []),
    ...((token as { tokens?: Token[] }).tokens ?? []).flatMap(linksIn),
    ...((token as { items?: Token[] }).items ?? []).flatMap(linksIn),
  ];
  for (const [index, token] of tokens.entries()) {
    const found: Array<{ href: string; quote?: string[] }> = linksIn(token);
    // A paragraph that ends with its link and a colon introduces the fenced block after it.
    const next = tokens.slice(index + 1).find((candidate) => candidate.type !== 'space');
    const last = found.at(-1);
    if (token.type === 'paragraph' && next?.type === 'code' && last && /:\s*$/.test(token.raw)) last.quote = (next as Tokens.Code).text.split('\n');
    links.push(...found);
  }
  const engine = new URL(engineUrl);
  let kept = 0;
  let unverified = 0;
  const details: string[] = [];
  for (const link of links) {
    let target: URL;
    try {
      target = new URL(link.href, `${engineUrl}/`);
    } catch {
      continue;
    }
    const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname) || /^127\./.test(target.hostname);
    if (!(loopback && target.port === engine.port)) continue;
    kept++;
    const parsed = /^\/(.+?)\/-\/blob\/(.+)$/.exec(target.pathname);
    const range = /^[?#]?L(\d+)(?:-L?(\d+))?/.exec(target.search || target.hash);
    const file = parsed?.[2] ? decodeURIComponent(parsed[2]) : undefined;
    const lines =
      parsed?.[1] === SAMPLE_APP_NAME && file
        ? await run('git', ['show', `HEAD:${file}`], { cwd: repoDir }).then(
            (result) => result.stdout.split('\n'),
            () => undefined,
          )
        : undefined;
    const start = range ? Number(range[1]) : 1;
    const end = range?.[2] ? Number(range[2]) : start;
    const cited = lines && start >= 1 && end <= lines.length && start <= end ? lines.slice(start - 1, end).map(flat) : undefined;
    const quote = (link.quote ?? []).map(flat).filter((line) => line !== '');
    const holds = cited !== undefined && (quote.length === 0 || cited.some((_, at) => quote.every((line, offset) => cited[at + offset] === line)));
    if (!holds) {
      unverified++;
      details.push(link.href);
    }
  }
  return { kept, unverified, details };
}

function flat(line: string): string {
  return line.replace(/\s+/g, ' ').trim();
}
