/**
 * Files the search tests commit: identifiers in several spellings, a Python helper, more matching
 * lines than a file keeps, and long lines that fill a small output cap.
 */

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
