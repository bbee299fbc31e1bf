/**
 * What the search tests share: the files they commit (identifiers in several spellings, a Python
 * helper, more matching lines than a file keeps, long lines that fill a small output cap), a tool
 * context over one repository, and its HEAD.
 */
import type { ToolContext } from '../../../../src/engine/tools/context';
import type { SearchIndexes } from '../../../../src/engine/search/searchIndex';
import type { TestRepo } from '../../../support/gitRepos';

export const APP_TS = [
  "import { readFileSync } from 'node:fs';",
  '',
  'export function parseConfig(text: string): Config {',
  '  return JSON.parse(text) as Config; // parseConfig parses; ParseConfig and PARSECONFIG are other spellings',
  '}',
  '',
  'export const parseConfigFile = (file: string) => parseConfig(readFileSync(file, "utf8"));',
  'const my_parseConfig = parseConfig;',
  'export class Config { port = 8080 }',
  'parseConfig',
  '',
].join('\n');

export const RETRY_PY = 'import time\n\n\ndef retry_with_backoff(action, retries=3):\n    for attempt in range(retries):\n        return action()\n\nMAX_RETRIES = 5\n';

/** 300 matching lines: over the default 200 kept per file. */
export const MANY_ROWS = Array.from({ length: 300 }, (_, index) => `row ${index + 1} of the table`).join('\n') + '\n';

/** Lines of 500 characters: a few of them fill a small output cap. */
export const LONG_LINES = Array.from({ length: 40 }, (_, index) => `long ${index} ${'z'.repeat(490)}`).join('\n') + '\n';

/** A tool context over `repo` served as `name`; Deep Search is not used by these tests. */
export function toolContext(repo: TestRepo, name: string, searchIndexes?: SearchIndexes): ToolContext {
  return {
    repositories: [{ name, dir: repo.dir, bare: false }],
    user: { id: 1, name: 'owner' },
    instanceUrl: 'http://127.0.0.1:1',
    signal: new AbortController().signal,
    deepSearch: {
      create: () => Promise.reject(new Error('not used')),
      get: () => {
        throw new Error('not used');
      },
    },
    deepSearchWaitMs: 1000,
    pcre: { available: true },
    ...(searchIndexes ? { searchIndexes } : {}),
  };
}

export async function head(repo: TestRepo): Promise<string> {
  return (await repo.git('rev-parse', 'HEAD')).trim();
}
