/**
 * Requests per minute that one running question costs the server, counted at the engine: the
 * ConversationStore (the extension's one poller) with its default intervals (also the settings'
 * defaults), a panel visible, a panel hidden, and nothing running; the baseline is a fixed 1 s poller. Each scenario
 * has its own engine, so every request it receives is that scenario's; each runs against a server
 * of the 7.x conversation API and one of the legacy API.
 */
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { DeepSearchClient } from '../../src/api/client';
import { ConversationStore, type ConversationStoreOptions } from '../../src/conversations/conversationStore';
import { createDispatcher, undiciTransport } from '../../src/api/undiciTransport';
import { DEFAULT_POLL_INTERVALS } from '../../src/conversations/poller';
import type { EngineVariant, RunningEngine } from '../../src/engine/options';
import { startEngine } from '../../src/engine/server';
import { createSampleAppRepo } from '../../test/support/gitRepos';
import type { BenchContext, Figure, Row } from '../report';

const TOKEN = 'dse_bench_polling_token';
/** Slow enough that the question runs for the whole window. */
const PACE_MS = 60_000;

interface Scenario {
  name: string;
  intervals: ConversationStoreOptions;
  watched: boolean;
  asks: boolean;
}

/** Each conversation API a server may serve: the same polling must cost the same on both. */
const GENERATIONS = [
  { label: '7.x API', conversationApis: 'connect' },
  { label: 'legacy API', conversationApis: 'legacy' },
] as const satisfies ReadonlyArray<{ label: string; conversationApis: EngineVariant['conversationApis'] }>;

async function run(context: BenchContext): Promise<Row[]> {
  const windowMs = context.quick ? 30_000 : 60_000;
  const shipped: ConversationStoreOptions = DEFAULT_POLL_INTERVALS;
  const scenarios: Scenario[] = [
    { name: 'panel visible', intervals: shipped, watched: true, asks: true },
    { name: 'panel hidden', intervals: shipped, watched: false, asks: true },
    { name: 'nothing running', intervals: shipped, watched: false, asks: false },
    { name: 'fixed 1 s poller', intervals: { watchedIntervalMs: 1000, hiddenIntervalMs: 1000 }, watched: false, asks: true },
  ];
  const repo = await createSampleAppRepo();
  const engines: RunningEngine[] = [];
  const stores: ConversationStore[] = [];
  const dispatcher = createDispatcher();
  try {
    const runs = GENERATIONS.flatMap((generation) => scenarios.map((scenario) => ({ generation, scenario })));
    const counts = await Promise.all(
      runs.map(async ({ generation, scenario }) => {
        let counting = false;
        let requests = 0;
        const engine = await startEngine({
          repos: [repo.dir],
          users: [{ token: TOKEN }],
          dataDir: await mkdtemp(path.join(context.scratch, 'polling-')),
          paceMs: PACE_MS,
          variant: { conversationApis: generation.conversationApis },
          faults: {
            request: () => {
              if (counting) requests++;
              return undefined;
            },
          },
        });
        engines.push(engine);
        const store = new ConversationStore(scenario.intervals);
        stores.push(store);
        store.setClient(new DeepSearchClient({ instanceUrl: engine.url, token: TOKEN, transport: undiciTransport(dispatcher) }));
        await store.refreshList();
        if (scenario.asks) {
          const conversation = await store.ask('Where is parseConfig defined and what does it check?');
          store.setWatched(conversation.id, scenario.watched);
        }
        counting = true;
        await new Promise((resolve) => setTimeout(resolve, windowMs));
        counting = false;
        return (requests * 60_000) / windowMs;
      }),
    );
    const perMinute = (value: number) => `${value.toFixed(1)}/min`;
    const basis = `${(windowMs / 1000).toFixed(0)} s window; intervals ${shipped.watchedIntervalMs} ms visible, ${shipped.hiddenIntervalMs} ms hidden`;
    return GENERATIONS.flatMap((generation, index) => {
      const [visible, hidden, nothing, fixed] = counts.slice(index * scenarios.length, (index + 1) * scenarios.length) as [number, number, number, number];
      const on = `(${generation.label})`;
      return [
        {
          figure: `requests for one running question, panel visible ${on}`,
          measured: perMinute(visible),
          baseline: `fixed 1 s poller: ${perMinute(fixed)}`,
          goal: '— (answers show fast)',
          data: { basis },
        },
        {
          figure: `requests for one running question, panel hidden ${on}`,
          measured: `${perMinute(hidden)} (${(hidden / fixed).toFixed(2)} of baseline)`,
          baseline: `fixed 1 s poller: ${perMinute(fixed)}`,
          goal: '≤ 1/10 of baseline',
          met: hidden <= fixed / 10,
          data: { basis, hidden, fixed },
        },
        { figure: `requests with nothing running ${on}`, measured: perMinute(nothing), baseline: '—', goal: '0', met: nothing === 0, data: { basis } },
      ];
    });
  } finally {
    for (const store of stores) store.dispose();
    await Promise.all(engines.map((engine) => engine.close()));
    await dispatcher.close();
    await repo.remove();
  }
}

export const pollingFigure: Figure = { id: 'polling', title: 'Polling cost at the engine', alongside: true, run };
