/**
 * What the host benchmarks run against (loaded by scripts/test-host.mjs outside VS Code): the host
 * tests' workspace, and an engine whose data folder holds 10,000 finished conversations written
 * in the engine's own storage format before it starts.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { RunningEngine } from '../../src/engine/options';
import { startEngine } from '../../src/engine/server';
import { HOST_TEST_TOKEN, prepareWorkspace as prepareTestWorkspace } from '../../test/host/fixtures';
import { git } from '../../test/support/gitRepos';
import { answeredConversation, storeConversations } from '../../test/support/storedConversations';
import { sourceFile } from '../figures/engineBurst';

/** Generated files committed into the workspace: what the local engine indexes and searches. */
export const WORKSPACE_GENERATED_FILES = 20_000;

/** The host tests' workspace, with a second commit of generated source files. */
export async function prepareWorkspace(dir: string): Promise<void> {
  await prepareTestWorkspace(dir);
  for (let index = 0; index < WORKSPACE_GENERATED_FILES; index++) {
    const folder = path.join(dir, 'generated', String(Math.floor(index / 1000)));
    if (index % 1000 === 0) await mkdir(folder, { recursive: true });
    await writeFile(path.join(folder, `module${index}.ts`), sourceFile(index));
  }
  await git(dir, ['add', 'generated']);
  await git(dir, ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', 'commit', '--quiet', '-m', 'Generated modules']);
}

export const SEEDED_CONVERSATIONS = 10_000;

export interface HostBenchOptions {
  engineUrl: string;
  token: string;
  seeded: number;
  /** Where the suite writes its measurements (from `--results`). */
  results?: string;
  /** `--quick`: leave out the baseline walk. */
  quick?: boolean;
}

export async function startHostTestEngines(runDir: string, workspace: string): Promise<{ engines: RunningEngine[]; options: HostBenchOptions }> {
  const dataDir = path.join(runDir, 'engine-data');
  await seedConversations(dataDir, SEEDED_CONVERSATIONS);
  const engine = await startEngine({ repos: [workspace], users: [{ token: HOST_TEST_TOKEN, id: 1 }], dataDir, paceMs: 100 });
  return { engines: [engine], options: { engineUrl: engine.url, token: HOST_TEST_TOKEN, seeded: SEEDED_CONVERSATIONS } };
}

/** Finished one-question conversations of user 1, one minute apart, with answers of about 1 KB. */
async function seedConversations(dataDir: string, count: number): Promise<void> {
  const start = Date.parse('2026-01-01T00:00:00Z');
  const answer =
    `The configuration is parsed in \`src/config.ts\` by \`parseConfig\`, which checks every field. ` +
    `${'It validates ports, hosts and retry limits, and reports the first problem it finds. '.repeat(12)}`;
  const records = Array.from({ length: count }, (_, index) =>
    answeredConversation({
      id: index + 1,
      question: `Question ${index + 1}: where is parseConfig defined and what does it check?`,
      title: `Where parseConfig is defined (${index + 1})`,
      answer,
      followups: ['What calls parseConfig?'],
      at: new Date(start + (index + 1) * 60_000).toISOString(),
    }),
  );
  await storeConversations(dataDir, records);
}
